package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// WriteFile writes data to the file name (a slash path, relative to dir),
// creating the folders on the way, and returns the file's path. A failure
// fails tb at once.
func WriteFile(tb testing.TB, dir, name, data string) string {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(tb, os.WriteFile(p, []byte(data), 0o644))
	return p
}

// WriteTree writes files (slash path relative to dir -> content) with
// [WriteFile] and returns dir.
func WriteTree(tb testing.TB, dir string, files map[string]string) string {
	tb.Helper()
	for name, data := range files {
		WriteFile(tb, dir, name, data)
	}
	return dir
}
