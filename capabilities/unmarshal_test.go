package capabilities

import (
	"encoding"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unmarshalCase parses in with UnmarshalText into a fresh T and checks the
// outcome: the error wantErr exactly, or no error and the value want. It
// returns the parsed value and whether the parse was expected to succeed,
// so the caller can go on checking it (round trips, validation).
func unmarshalCase[T comparable, P interface {
	*T
	encoding.TextUnmarshaler
}](t *testing.T, in string, want T, wantErr string) (T, bool) {
	t.Helper()
	var got T
	err := P(&got).UnmarshalText([]byte(in))
	if wantErr != "" {
		require.EqualError(t, err, wantErr, "UnmarshalText(%q)", in)
		return got, false
	}
	require.NoError(t, err, "UnmarshalText(%q)", in)
	assert.Equal(t, want, got, "UnmarshalText(%q)", in)
	return got, true
}
