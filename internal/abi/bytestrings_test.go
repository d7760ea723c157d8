package abi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestByteStrings: arguments and environment that are not UTF-8 cross
// the host boundary byte for byte; UTF-8 ones stay plain JSON strings.
func TestByteStrings(t *testing.T) {
	in := ExecRequest{Args: ByteStrings{"python3", "\xff", "é", ""}, Env: ByteStrings{"A=\x80b"}}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"args":["python3",{"b":"/w=="},"é",""]`)
	var out ExecRequest
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in.Args, out.Args)
	assert.Equal(t, in.Env, out.Env)

	var none ExecRequest
	require.NoError(t, json.Unmarshal([]byte(`{"args":null}`), &none))
	assert.Nil(t, none.Args)
	for _, bad := range []string{`{"args":[1]}`, `{"args":[{"b":"!!"}]}`, `{"args":"x"}`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &none), bad)
	}
}
