package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertNoLeftovers checks that dir holds nothing but the installed
// interpreters: no half-copied temporary folders, no old installs.
func assertNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return
	}
	require.NoError(t, err)
	for _, e := range ents {
		n := e.Name()
		if n == lockName {
			continue // the lock file stays (a lock is released by close, or by death)
		}
		assert.False(t, strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".old"), "left behind in %s: %s", dir, n)
	}
}

func TestInstallPythonFrom(t *testing.T) {
	from := fakePython(t, t.TempDir())
	testkit.WriteFile(t, from, "lib/python3.11/json/__init__.py", "# json\n")
	testkit.WriteFile(t, from, "VERSION", "3.11.2-test\n")
	dir := filepath.Join(t.TempDir(), "cache", "interpreters") // created on the way

	in, err := InstallPythonFrom(dir, from)
	require.NoError(t, err)
	d := filepath.Join(dir, "python-3.11")
	assert.Equal(t, Python, in.Language)
	assert.Equal(t, "3.11.2-test", in.Version)
	assert.Equal(t, d, in.Dir)
	assert.Equal(t, filepath.Join(d, "python.wasm"), in.Module)

	assert.Equal(t, wasmMagic+"python", readString(t, filepath.Join(d, "python.wasm")))
	assert.Equal(t, "# os\n", readString(t, filepath.Join(d, "lib/python3.11/os.py")))
	assert.Equal(t, "# json\n", readString(t, filepath.Join(d, "lib/python3.11/json/__init__.py")))
	assert.Equal(t, string(sitecustomize), readString(t, filepath.Join(d, "lib/python3.11/sitecustomize.py")))
	assertNoLeftovers(t, dir)

	// The prebuilt is copied, not changed.
	_, err = os.Stat(filepath.Join(from, "lib/python3.11/sitecustomize.py"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	found, err := Find(dir, Python)
	require.NoError(t, err)
	assert.Equal(t, in, found)
}

func TestInstallPythonFromWithoutVersion(t *testing.T) {
	from := fakePython(t, t.TempDir())
	dir := t.TempDir()
	in, err := InstallPythonFrom(dir, from)
	require.NoError(t, err)
	assert.Equal(t, "prebuilt ("+from+")", in.Version)
	assert.Equal(t, "prebuilt ("+from+")\n", readString(t, filepath.Join(dir, "python-3.11", "VERSION")))
}

func TestInstallPythonFromNotAPrebuilt(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, from string) string // returns what to pass as from
		want  string
	}{
		{"missing folder", func(t *testing.T, from string) string {
			return filepath.Join(from, "missing")
		}, "no python.wasm"},
		{"empty folder", func(t *testing.T, from string) string { return from }, "no python.wasm"},
		{"no python.wasm", func(t *testing.T, from string) string {
			testkit.WriteFile(t, from, "lib/python3.11/os.py", "")
			return from
		}, "no python.wasm"},
		{"no lib", func(t *testing.T, from string) string {
			testkit.WriteFile(t, from, "python.wasm", wasmMagic)
			return from
		}, "no os.py"},
		{"lib without os.py", func(t *testing.T, from string) string {
			testkit.WriteFile(t, from, "python.wasm", wasmMagic)
			testkit.WriteFile(t, from, "lib/python3.11/json/__init__.py", "")
			return from
		}, "no os.py"},
		{"not WebAssembly", func(t *testing.T, from string) string {
			testkit.WriteFile(t, from, "python.wasm", "#!/bin/sh\n")
			testkit.WriteFile(t, from, "lib/python3.11/os.py", "")
			return from
		}, "is not a WebAssembly module"},
		{"a file, not a folder", func(t *testing.T, from string) string {
			return testkit.WriteFile(t, from, "python.tar.gz", "")
		}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := tt.setup(t, t.TempDir())
			dir := filepath.Join(t.TempDir(), "interpreters")
			in, err := InstallPythonFrom(dir, from)
			require.Error(t, err)
			assert.Nil(t, in)
			msg := err.Error()
			assert.Contains(t, msg, from+" is not a CPython 3.11 for WASI")
			assert.Contains(t, msg, tt.want)
			assert.Contains(t, msg, "want python.wasm and lib/python3.11/")
			_, err = os.Stat(dir)
			assert.ErrorIs(t, err, os.ErrNotExist, "nothing is created for a bad prebuilt")
		})
	}
}

// A prebuilt's python.wasm may be a link (to a build's output, say): its
// contents are copied, and the install holds a regular file.
func TestInstallPythonFromModuleSymlink(t *testing.T) {
	from := fakePython(t, t.TempDir())
	elsewhere := testkit.WriteFile(t, t.TempDir(), "out/python.wasm", wasmMagic+"built")
	require.NoError(t, os.Remove(filepath.Join(from, "python.wasm")))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(from, "python.wasm")))

	dir := t.TempDir()
	in, err := InstallPythonFrom(dir, from)
	require.NoError(t, err)
	info, err := os.Lstat(in.Module)
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular(), "installed python.wasm is %v", info.Mode())
	assert.Equal(t, wasmMagic+"built", readString(t, in.Module))
}

// A symbolic link in the prebuilt standard library is refused: copied as
// a link it could point anywhere on the host, and CPython's standard
// library has none.
func TestInstallPythonFromRefusesSymlinks(t *testing.T) {
	outside := t.TempDir()
	secret := testkit.WriteFile(t, outside, "secret.txt", "host secret\n")
	tests := []struct {
		name, link, target string
	}{
		{"file out of the tree", "lib/python3.11/evil.py", secret},
		{"folder out of the tree", "lib/python3.11/encodings", outside},
		{"relative out of the tree", "lib/python3.11/up.py", "../../../secret.txt"},
		{"inside the tree", "lib/python3.11/alias.py", "os.py"},
		{"the standard library itself", "lib/python3.11", outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := t.TempDir()
			testkit.WriteFile(t, from, "python.wasm", wasmMagic)
			if tt.link == "lib/python3.11" {
				testkit.WriteFile(t, outside, "os.py", "")
				require.NoError(t, os.MkdirAll(filepath.Join(from, "lib"), 0o755))
			} else {
				testkit.WriteFile(t, from, "lib/python3.11/os.py", "")
			}
			link := filepath.Join(from, filepath.FromSlash(tt.link))
			require.NoError(t, os.Symlink(tt.target, link))

			dir := t.TempDir()
			_, err := InstallPythonFrom(dir, from)
			require.Error(t, err)
			assert.Contains(t, err.Error(), link, "the error names the link")
			assert.Contains(t, err.Error(), "symbolic link")
			_, err = Find(dir, Python)
			require.ErrorIs(t, err, ErrNotInstalled)
			assertNoLeftovers(t, dir)
		})
	}
}

func TestInstallPythonFromReplaces(t *testing.T) {
	dir := t.TempDir()
	v1 := fakePython(t, t.TempDir())
	testkit.WriteFile(t, v1, "VERSION", "v1\n")
	testkit.WriteFile(t, v1, "lib/python3.11/only_in_v1.py", "")
	_, err := InstallPythonFrom(dir, v1)
	require.NoError(t, err)

	v2 := fakePython(t, t.TempDir())
	testkit.WriteFile(t, v2, "VERSION", "v2\n")
	in, err := InstallPythonFrom(dir, v2)
	require.NoError(t, err)
	assert.Equal(t, "v2", in.Version)
	_, err = os.Stat(filepath.Join(in.Dir, "lib/python3.11/only_in_v1.py"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the old install is replaced, not merged into")
	assertNoLeftovers(t, dir)
}

// The copy goes to a temporary folder first: when it fails, the
// installed interpreter is as it was.
func TestInstallPythonFromFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	v1 := fakePython(t, t.TempDir())
	testkit.WriteFile(t, v1, "VERSION", "v1\n")
	_, err := InstallPythonFrom(dir, v1)
	require.NoError(t, err)

	bad := fakePython(t, t.TempDir())
	testkit.WriteFile(t, bad, "VERSION", "bad\n")
	testkit.WriteFile(t, bad, "lib/python3.11/a.py", "")
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(bad, "lib/python3.11/z.py")))
	_, err = InstallPythonFrom(dir, bad)
	require.Error(t, err)

	in, err := Find(dir, Python)
	require.NoError(t, err)
	assert.Equal(t, "v1", in.Version)
	_, err = os.Stat(filepath.Join(in.Dir, "lib/python3.11/a.py"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assertNoLeftovers(t, dir)
}

func TestReplaceDir(t *testing.T) {
	t.Run("into place", func(t *testing.T) {
		dir := t.TempDir()
		testkit.WriteFile(t, dir, "new/f", "new")
		require.NoError(t, replaceDir(filepath.Join(dir, "new"), filepath.Join(dir, "to")))
		assert.Equal(t, "new", readString(t, filepath.Join(dir, "to/f")))
		assertNoLeftovers(t, dir)
	})
	t.Run("replacing", func(t *testing.T) {
		dir := t.TempDir()
		testkit.WriteFile(t, dir, "new/f", "new")
		testkit.WriteFile(t, dir, "to/f", "old")
		testkit.WriteFile(t, dir, "to.old/f", "a crashed install's") // is cleared first
		require.NoError(t, replaceDir(filepath.Join(dir, "new"), filepath.Join(dir, "to")))
		assert.Equal(t, "new", readString(t, filepath.Join(dir, "to/f")))
		_, err := os.Stat(filepath.Join(dir, "new"))
		assert.ErrorIs(t, err, os.ErrNotExist)
		_, err = os.Stat(filepath.Join(dir, "to.old"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("failing keeps the old", func(t *testing.T) {
		dir := t.TempDir()
		testkit.WriteFile(t, dir, "to/f", "old")
		require.Error(t, replaceDir(filepath.Join(dir, "missing"), filepath.Join(dir, "to")))
		assert.Equal(t, "old", readString(t, filepath.Join(dir, "to/f")))
		assertNoLeftovers(t, dir)
	})
}
