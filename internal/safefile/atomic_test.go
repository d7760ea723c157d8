package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteAtomic: the file appears whole, replaces the old one, and a
// failed write leaves the old one and no temporary file.
func TestWriteAtomic(t *testing.T) {
	name := filepath.Join(t.TempDir(), "sub", "f.snap")
	write := func(s string, fail error) error {
		return WriteAtomic(name, 0o600, func(w io.Writer) error {
			_, err := io.WriteString(w, s)
			return errors.Join(err, fail)
		})
	}
	require.NoError(t, write("one", nil))
	require.NoError(t, write("two", nil))
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	fi, err := os.Stat(name)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	assert.Error(t, write("three", errors.New("disk full")))
	got, err = os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	entries, err := os.ReadDir(filepath.Dir(name))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

// TestWriteAtomicMode: the file gets the mode asked for.
func TestWriteAtomicMode(t *testing.T) {
	name := filepath.Join(t.TempDir(), "lib.py")
	require.NoError(t, WriteAtomic(name, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "x = 1\n")
		return err
	}))
	fi, err := os.Stat(name)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}
