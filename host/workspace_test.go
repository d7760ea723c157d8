package host

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
)

// TestWorkspaceFiles: whole files read and written through the grants,
// confined as the core tools are.
func TestWorkspaceFiles(t *testing.T) {
	dir := t.TempDir()
	protected := filepath.Join(dir, "skills")
	require.NoError(t, os.Mkdir(protected, 0o755))
	all := []capabilities.Path{{Root: capabilities.RootWorkspace}}
	ws, err := NewWorkspace(dir, capabilities.Set{Read: all, Write: all}, protected)
	require.NoError(t, err)
	ctx := context.Background()

	_, err = ws.ReadFile(ctx, "db/a.db", 10)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NoError(t, ws.WriteFile(ctx, "db/a.db", []byte("0123456789")))
	got, err := ws.ReadFile(ctx, "db/a.db", 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(got))
	_, err = ws.ReadFile(ctx, "db/a.db", 9)
	assert.ErrorContains(t, err, "over the 9-byte limit")

	for _, p := range []string{"../x", "/etc/passwd", ".", "a\\b"} {
		_, err := ws.ReadFile(ctx, p, 10)
		assert.Error(t, err, p)
		assert.Error(t, ws.WriteFile(ctx, p, nil), p)
	}
	assert.ErrorContains(t, ws.WriteFile(ctx, "skills/x", []byte("x")), "protected")

	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	_, err = ws.ReadFile(ctx, "link", 100)
	assert.Error(t, err, "a link out of the workspace is not followed")
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(dir, "dirlink")))
	assert.Error(t, ws.WriteFile(ctx, "dirlink/new", []byte("x")))
	assert.NoFileExists(t, filepath.Join(filepath.Dir(outside), "new"))

	_, err = NewWorkspace(filepath.Join(dir, "db", "a.db"), capabilities.Set{})
	assert.ErrorContains(t, err, "not a directory")
}
