package capabilities

import (
	"encoding"
	"testing"
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
		if err == nil || err.Error() != wantErr {
			t.Fatalf("UnmarshalText(%q) error = %v, want %q", in, err, wantErr)
		}
		return got, false
	}
	if err != nil {
		t.Fatalf("UnmarshalText(%q): %v", in, err)
	}
	if got != want {
		t.Errorf("UnmarshalText(%q) = %+v, want %+v", in, got, want)
	}
	return got, true
}
