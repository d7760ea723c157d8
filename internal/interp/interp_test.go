package interp

import (
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wasmMagic is the start of every WebAssembly binary. Nothing here runs
// the fake modules; the magic only makes them look like the real thing.
const wasmMagic = "\x00asm\x01\x00\x00\x00"

// fakePython lays out a CPython for WASI in d (python.wasm and a standard
// library of one module), the layout of both a prebuilt and an install.
func fakePython(t *testing.T, d string) string {
	t.Helper()
	testkit.WriteFile(t, d, "python.wasm", wasmMagic+"python")
	testkit.WriteFile(t, d, "lib/python3.11/os.py", "# os\n")
	return d
}

func readString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

func TestLanguage(t *testing.T) {
	tests := []struct {
		file, want string
		ok         bool
	}{
		{"report.py", Python, true},
		{"scripts/report.py", Python, true},
		{"REPORT.PY", Python, true},
		{"report.js", JS, true},
		{"report.mjs", JS, true},
		{"report.cjs", JS, true},
		{"scripts/Report.JS", JS, true},
		{"report.ts", JSTS, true},
		{"report.sh", Shell, true},
		{"report.pyc", "", false},
		{"report.py.txt", "", false},
		{"py", "", false},
		{"scripts.py/report", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, ok := Language(tt.file)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.ok, ok)
		})
	}
}

func TestDefaultDir(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the XDG_CACHE_HOME and HOME rules are os.UserCacheDir's on Linux")
	}
	t.Run("XDG_CACHE_HOME", func(t *testing.T) {
		t.Setenv("XDG_CACHE_HOME", "/x/cache")
		t.Setenv("HOME", "/x/home")
		d, err := DefaultDir()
		require.NoError(t, err)
		assert.Equal(t, "/x/cache/skillrun/interpreters", d)
	})
	t.Run("HOME", func(t *testing.T) {
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "/x/home")
		d, err := DefaultDir()
		require.NoError(t, err)
		assert.Equal(t, "/x/home/.cache/skillrun/interpreters", d)
	})
	t.Run("neither", func(t *testing.T) {
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "")
		_, err := DefaultDir()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no user cache directory for interpreters")
	})
	t.Run("relative XDG_CACHE_HOME", func(t *testing.T) {
		t.Setenv("XDG_CACHE_HOME", "cache")
		_, err := DefaultDir()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no user cache directory for interpreters")
	})
}

func TestFindNotInstalled(t *testing.T) {
	tests := []struct {
		name     string
		language string
		setup    func(t *testing.T, dir string)
		want     string // in the error, besides the install hint
	}{
		{"empty dir python", Python, func(*testing.T, string) {}, "no python.wasm"},
		{"empty dir js", JS, func(*testing.T, string) {}, "no js.wasm"},
		{"no python.wasm", Python, func(t *testing.T, dir string) {
			testkit.WriteFile(t, dir, "python-3.11/lib/python3.11/os.py", "")
		}, "no python.wasm"},
		{"no lib", Python, func(t *testing.T, dir string) {
			testkit.WriteFile(t, dir, "python-3.11/python.wasm", wasmMagic)
		}, "no os.py"},
		{"lib of another version", Python, func(t *testing.T, dir string) {
			testkit.WriteFile(t, dir, "python-3.11/python.wasm", wasmMagic)
			testkit.WriteFile(t, dir, "python-3.11/lib/python3.12/os.py", "")
		}, "no os.py"},
		{"python-3.11 is a file", Python, func(t *testing.T, dir string) {
			testkit.WriteFile(t, dir, "python-3.11", "")
		}, "not a directory"},
		{"dangling python.wasm link", Python, func(t *testing.T, dir string) {
			fakePython(t, filepath.Join(dir, "python-3.11"))
			p := filepath.Join(dir, "python-3.11", "python.wasm")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "gone.wasm"), p))
		}, "no python.wasm"},
		{"js.wasm elsewhere", JS, func(t *testing.T, dir string) {
			testkit.WriteFile(t, dir, "js/VERSION", "source 0123\n")
			testkit.WriteFile(t, dir, "js.wasm", wasmMagic)
		}, "no js.wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			in, err := Find(dir, tt.language)
			require.ErrorIs(t, err, ErrNotInstalled)
			assert.Nil(t, in)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), dir, "the error names the folder it looked in")
			assert.Contains(t, err.Error(), "skillrun interpreters install "+tt.language)
		})
	}
	t.Run("dir does not exist", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "nope")
		_, err := Find(dir, Python)
		require.ErrorIs(t, err, ErrNotInstalled)
		_, err = os.Stat(dir)
		assert.ErrorIs(t, err, os.ErrNotExist, "Find creates nothing")
	})
}

func TestFindUnknownLanguage(t *testing.T) {
	_, err := Find(t.TempDir(), "ruby")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), `"ruby"`)
	assert.Contains(t, err.Error(), "python, js, js-ts and sh")
}

func TestFindPython(t *testing.T) {
	dir := t.TempDir()
	d := fakePython(t, filepath.Join(dir, "python-3.11"))
	testkit.WriteFile(t, d, "VERSION", "3.11.2-6+deb12u8+skillrun2\n")

	in, err := Find(dir, Python)
	require.NoError(t, err)
	stdlib := filepath.Join(d, "lib", "python3.11")
	assert.Equal(t, &Interpreter{
		Language: Python,
		Version:  "3.11.2-6+deb12u8+skillrun2",
		Dir:      d,
		Module:   filepath.Join(d, "python.wasm"),
		Mounts:   []Mount{{HostDir: stdlib, GuestPath: "/usr/local/lib/python3.11"}},
		Env:      []string{"PYTHONHOME=/usr/local", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUTF8=1", "PYTHONNOUSERSITE=1", "_PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata_skillrun"},
		Snapshot: pythonSnapshot,
	}, in)
	assert.Equal(t, string(sitecustomize), readString(t, filepath.Join(stdlib, "sitecustomize.py")),
		"Find puts skillrun's sitecustomize.py beside the standard library")
	assert.NotEmpty(t, sitecustomize)
	assert.Equal(t, string(sysconfigData), readString(t, filepath.Join(stdlib, sysconfigDataName+".py")),
		"Find puts the sysconfig data sysconfig imports beside the standard library")
}

func TestFindJS(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, dir, "js/js.wasm", wasmMagic)
	testkit.WriteFile(t, dir, "js/VERSION", "source c8771bb28b7c0003\n")

	in, err := Find(dir, JS)
	require.NoError(t, err)
	assert.Equal(t, &Interpreter{
		Language: JS,
		Version:  "source c8771bb28b7c0003",
		Dir:      filepath.Join(dir, "js"),
		Module:   filepath.Join(dir, "js", "js.wasm"),
		Snapshot: goSnapshot,
	}, in)
}

// VERSION is informational (list prints it; EnsureJS compares it to the
// source hash): whatever it holds, Find finds the interpreter.
func TestFindVersion(t *testing.T) {
	tests := []struct {
		name    string
		version *string // nil: no VERSION file
		want    string
	}{
		{"missing", nil, "unknown"},
		{"plain", ptr("3.11.2"), "3.11.2"},
		{"spaces and newline", ptr("  3.11.2 \n"), "3.11.2"},
		{"empty", ptr(""), "unknown"},
		{"blank", ptr(" \n\n"), "unknown"},
		{"garbage", ptr("not a version at all"), "not a version at all"},
		{"several lines", ptr("3.11.2\nbuilt by hand\n"), "3.11.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			d := fakePython(t, filepath.Join(dir, "python-3.11"))
			if tt.version != nil {
				testkit.WriteFile(t, d, "VERSION", *tt.version)
			}
			in, err := Find(dir, Python)
			require.NoError(t, err)
			assert.Equal(t, tt.want, in.Version)
		})
	}
}

func ptr(s string) *string { return &s }

// The interpreters folder is the operator's own cache, so Find trusts
// what is in it: a python.wasm that is a symbolic link to a file
// elsewhere is followed (the host reads the module; the guest never sees
// the path). The standard library is mounted through os.Root by the
// runtime, so a link in it cannot take the guest out of it at run time.
func TestFindFollowsModuleSymlink(t *testing.T) {
	dir := t.TempDir()
	d := fakePython(t, filepath.Join(dir, "python-3.11"))
	elsewhere := testkit.WriteFile(t, t.TempDir(), "build/python.wasm", wasmMagic+"elsewhere")
	module := filepath.Join(d, "python.wasm")
	require.NoError(t, os.Remove(module))
	require.NoError(t, os.Symlink(elsewhere, module))

	in, err := Find(dir, Python)
	require.NoError(t, err)
	assert.Equal(t, module, in.Module, "the module path is the link in the interpreters folder")
	assert.Equal(t, wasmMagic+"elsewhere", readString(t, in.Module))
}

func TestFindSitecustomize(t *testing.T) {
	setup := func(t *testing.T) (dir, site string) {
		dir = t.TempDir()
		fakePython(t, filepath.Join(dir, "python-3.11"))
		return dir, filepath.Join(dir, "python-3.11", "lib", "python3.11", "sitecustomize.py")
	}
	t.Run("stale is rewritten", func(t *testing.T) {
		dir, site := setup(t)
		testkit.WriteFile(t, filepath.Dir(site), "sitecustomize.py", "# an older skillrun's\n")
		_, err := Find(dir, Python)
		require.NoError(t, err)
		assert.Equal(t, string(sitecustomize), readString(t, site))
		info, err := os.Stat(site)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	})
	t.Run("same is left alone", func(t *testing.T) {
		dir, site := setup(t)
		_, err := Find(dir, Python)
		require.NoError(t, err)
		before, err := os.Stat(site)
		require.NoError(t, err)
		_, err = Find(dir, Python)
		require.NoError(t, err)
		after, err := os.Stat(site)
		require.NoError(t, err)
		// A rewrite renames a new file into place: another file.
		assert.True(t, os.SameFile(before, after), "sitecustomize.py was rewritten although it was up to date")
	})
	t.Run("a link is replaced, not written through", func(t *testing.T) {
		dir, site := setup(t)
		outside := testkit.WriteFile(t, t.TempDir(), "mine.py", "# the operator's file\n")
		require.NoError(t, os.Symlink(outside, site))
		_, err := Find(dir, Python)
		require.NoError(t, err)
		assert.Equal(t, "# the operator's file\n", readString(t, outside))
		info, err := os.Lstat(site)
		require.NoError(t, err)
		assert.True(t, info.Mode().IsRegular())
		assert.Equal(t, string(sitecustomize), readString(t, site))
	})
	t.Run("sitecustomize.py cannot be written", func(t *testing.T) {
		// A non-empty folder in its place: no rename or write can replace
		// it, even as root (a read-only folder would not stop root).
		dir, site := setup(t)
		require.NoError(t, os.RemoveAll(site))
		testkit.WriteFile(t, site, "keep", "x")
		_, err := Find(dir, Python)
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrNotInstalled)
		assert.Contains(t, err.Error(), "python interpreter in")
	})
}

// The package says its functions are safe for concurrent use: Finds
// racing to refresh sitecustomize.py all succeed and leave one good file.
func TestFindConcurrent(t *testing.T) {
	dir := t.TempDir()
	d := fakePython(t, filepath.Join(dir, "python-3.11"))
	stdlib := filepath.Join(d, "lib", "python3.11")
	testkit.WriteFile(t, stdlib, "sitecustomize.py", "# stale\n")

	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() { _, errs[i] = Find(dir, Python) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, string(sitecustomize), readString(t, filepath.Join(stdlib, "sitecustomize.py")))
	ents, err := os.ReadDir(stdlib)
	require.NoError(t, err)
	for _, e := range ents {
		assert.False(t, strings.HasPrefix(e.Name(), ".tmp-"), "left behind: %s", e.Name())
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	assert.Empty(t, List(dir))

	fakePython(t, filepath.Join(dir, "python-3.11"))
	got := List(dir)
	require.Len(t, got, 1)
	assert.Equal(t, Python, got[0].Language)

	testkit.WriteFile(t, dir, "js/js.wasm", wasmMagic)
	got = List(dir)
	require.Len(t, got, 2)
	assert.Equal(t, JS, got[0].Language, "sorted by language")
	assert.Equal(t, Python, got[1].Language)
}

func TestInstallHint(t *testing.T) {
	assert.Equal(t, "install it with `skillrun interpreters install python`", InstallHint(Python))
}

// TestNeedsESBuild: ES modules and scripts with syntax goja lacks (for
// await, async generators) run under the esbuild guest; plain CommonJS,
// and the words in strings or names, do not.
func TestNeedsESBuild(t *testing.T) {
	for code, want := range map[string]bool{
		"import fs from 'fs';\n":                              true,
		"const x = 1;\nexport default x;\n":                   true,
		"for await (const l of rl) console.log(l);\n":         true,
		"async function* gen() { yield 1; }\n":                true,
		"const o = { async *items() { yield 1; } };\n":        true,
		"const fs = require('fs');\nconsole.log(1);\n":        false,
		"const awaitable = 1; // for await later\nfoo();\n":   false,
		"async function f() { await g(); }\n":                 false,
		"const s = 'import x from y';\nmodule.exports = s;\n": false,
	} {
		assert.Equal(t, want, NeedsESBuild([]byte(code)), "%q", code)
	}
}
