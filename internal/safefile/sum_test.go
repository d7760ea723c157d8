package safefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSHA256 hashes a file as sha256sum does, and names a missing one.
func TestSHA256(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(name, []byte("abc"), 0o600))
	sum, err := SHA256(name)
	require.NoError(t, err)
	assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", sum)
	_, err = SHA256(name + ".missing")
	assert.ErrorIs(t, err, os.ErrNotExist)
}
