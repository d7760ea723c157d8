//go:build linux

package wire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExeID: the identity names this executable and does not change
// while it runs.
func TestExeID(t *testing.T) {
	id := ExeID()
	exe, err := os.Executable()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(id, exe+"\x00"), "%q", id)
	assert.Equal(t, id, ExeID())
}

// TestCacheDir follows os.UserCacheDir on Linux.
func TestCacheDir(t *testing.T) {
	for _, env := range [][2]string{{"/x/cache", "/home/u"}, {"", "/home/u"}, {"rel", "/home/u"}, {"", ""}} {
		t.Setenv("XDG_CACHE_HOME", env[0])
		t.Setenv("HOME", env[1])
		want, wantErr := os.UserCacheDir()
		got, err := CacheDir()
		assert.Equal(t, wantErr != nil, err != nil, "%v", env)
		assert.Equal(t, want, got, "%v", env)
	}
}

// TestSocketPathMakesFolders: the folder and its missing parents are
// made 0700; a relative folder is refused.
func TestSocketPathMakesFolders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	p, err := SocketPath(dir, "x")
	require.NoError(t, err)
	assert.Equal(t, dir, filepath.Dir(p))
	fi, err := os.Stat(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	_, err = SocketPath("rel/dir", "x")
	assert.ErrorContains(t, err, "not an absolute path")
}
