package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCreate(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "not", "yet")
	files := []File{
		{Path: "SKILL.md", Data: []byte("md\n"), Mode: 0o644},
		{Path: "scripts/run.sh", Data: []byte("#!/bin/sh\n"), Mode: 0o755},
	}
	dir, err := Create(parent, "skill", files)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(parent, "skill"); dir != want {
		t.Errorf("Create returned %q, want %q", dir, want)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		data, err := os.ReadFile(p)
		if err != nil || string(data) != string(f.Data) {
			t.Errorf("%s: %q, %v; want %q", f.Path, data, err, f.Data)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o100 != f.Mode&0o100 {
			t.Errorf("%s: mode %v, want %v less the umask", f.Path, fi.Mode(), f.Mode)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o500 != 0o500 {
		t.Errorf("the skill folder: %v, %v; want it readable and searchable", fi.Mode(), err)
	}
	assertOnly(t, parent, "skill")

	// Again: refused, matching fs.ErrExist, and nothing changes.
	_, err = Create(parent, "skill", []File{{Path: "SKILL.md", Data: []byte("other\n"), Mode: 0o644}})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing folder: %v, want fs.ErrExist", err)
	}
	if pe, ok := errors.AsType[*fs.PathError](err); !ok || pe.Path != dir {
		t.Errorf("the error %v does not name %s", err, dir)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "SKILL.md")); string(data) != "md\n" {
		t.Errorf("SKILL.md is now %q", data)
	}
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
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create with a repeated path: %v, want an error matching fs.ErrExist", err)
	}
	assertOnly(t, parent)
}

func TestCreateBadName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "../x"} {
		if _, err := Create(t.TempDir(), name, nil); err == nil {
			t.Errorf("Create(%q) succeeded", name)
		}
	}
}

// renameNoReplace never replaces what appears at the target after the
// check, not even an empty folder, which os.Rename would.
func TestRenameNoReplace(t *testing.T) {
	base := t.TempDir()
	from, to := filepath.Join(base, "from"), filepath.Join(base, "to")
	for _, d := range []string{from, to} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(from, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := renameNoReplace(from, to); !errors.Is(err, fs.ErrExist) {
		t.Errorf("renameNoReplace onto an empty folder: %v, want fs.ErrExist", err)
	}
	if _, err := os.Stat(filepath.Join(from, "f")); err != nil {
		t.Errorf("from was moved: %v", err)
	}
	if err := os.Remove(to); err != nil {
		t.Fatal(err)
	}
	if err := renameNoReplace(from, to); err != nil {
		t.Errorf("renameNoReplace to a free path: %v", err)
	}
}

// assertOnly fails t unless dir holds exactly the entries names: no
// temporary folder is left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}
