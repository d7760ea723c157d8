package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreate(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "not", "yet")
	files := []File{
		{Path: "SKILL.md", Data: []byte("md\n"), Mode: 0o644},
		{Path: "scripts/run.sh", Data: []byte("#!/bin/sh\n"), Mode: 0o755},
	}
	dir, err := Create(parent, "skill", files)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(parent, "skill"), dir, "Create returned")
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		data, err := os.ReadFile(p)
		if assert.NoError(t, err, f.Path) {
			assert.Equal(t, string(f.Data), string(data), f.Path)
		}
		if fi, err := os.Stat(p); err == nil {
			assert.Equal(t, f.Mode&0o100, fi.Mode()&0o100, "%s: mode %v, want %v less the umask", f.Path, fi.Mode(), f.Mode)
		}
	}
	fi, err := os.Stat(dir)
	if assert.NoError(t, err, "the skill folder") {
		assert.Equal(t, fs.FileMode(0o500), fi.Mode().Perm()&0o500, "the skill folder: mode %v; want it readable and searchable", fi.Mode())
	}
	assertOnly(t, parent, "skill")

	// Again: refused, matching fs.ErrExist, and nothing changes.
	_, err = Create(parent, "skill", []File{{Path: "SKILL.md", Data: []byte("other\n"), Mode: 0o644}})
	assert.ErrorIs(t, err, fs.ErrExist, "Create over an existing folder")
	if pe, ok := errors.AsType[*fs.PathError](err); assert.True(t, ok, "the error %v is no *fs.PathError", err) {
		assert.Equal(t, dir, pe.Path, "the error %v does not name the folder", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	assert.Equal(t, "md\n", string(data), "SKILL.md")
	assertOnly(t, parent, "skill")
}

// A failure while writing leaves nothing: here the second file has the
// path of the first, which is never overwritten.
func TestCreateFailureLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	_, err := Create(parent, "skill", []File{
		{Path: "a/b", Data: []byte("1"), Mode: 0o644},
		{Path: "a/b", Data: []byte("2"), Mode: 0o644},
	})
	assert.ErrorIs(t, err, fs.ErrExist, "Create with a repeated path")
	assertOnly(t, parent)
}

func TestCreateBadName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "../x"} {
		_, err := Create(t.TempDir(), name, nil)
		assert.Error(t, err, "Create(%q) succeeded", name)
	}
}

// renameNoReplace never replaces what appears at the target after the
// check, not even an empty folder, which os.Rename would.
func TestRenameNoReplace(t *testing.T) {
	base := t.TempDir()
	from, to := filepath.Join(base, "from"), filepath.Join(base, "to")
	for _, d := range []string{from, to} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(from, "f"), nil, 0o644))
	assert.ErrorIs(t, renameNoReplace(from, to), fs.ErrExist, "renameNoReplace onto an empty folder")
	_, err := os.Stat(filepath.Join(from, "f"))
	assert.NoError(t, err, "from was moved")
	require.NoError(t, os.Remove(to))
	assert.NoError(t, renameNoReplace(from, to), "renameNoReplace to a free path")
}

// assertOnly fails t unless dir holds exactly the entries names: no
// temporary folder is left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.Equal(t, names, got, "%s holds", dir)
}
