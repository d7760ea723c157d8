package pydeps

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtins is what skillrun's WASI CPython has built in (as
// interp.PythonPackages lists it; pydeps does not import interp).
var builtins = []Provided{
	{Name: "Pillow", Import: "PIL", Version: "9.4.0"},
	{Name: "lxml", Import: "lxml", Version: "4.9.2"},
}

// metaWheel builds a wheel whose METADATA has the given Requires-Dist
// lines and one module.
func metaWheel(t *testing.T, file string, requires ...string) []byte {
	t.Helper()
	wn, _ := parseWheelName(file)
	meta := "Metadata-Version: 2.1\nName: " + wn.name + "\nVersion: " + wn.version + "\n"
	for _, r := range requires {
		meta += "Requires-Dist: " + r + "\n"
	}
	return makeWheel(t, file, map[string]string{
		wn.name + "-" + wn.version + ".dist-info/METADATA": meta,
		Normalize(wn.name) + "_mod/__init__.py":            "",
	})
}

// refuse makes the test index record and refuse any request for a
// project's page.
func refuse(ix *testIndex, name string) *atomic.Int64 {
	var n atomic.Int64
	ix.override[name] = func(w http.ResponseWriter) {
		n.Add(1)
		http.Error(w, "no "+name+" here", http.StatusNotFound)
	}
	return &n
}

// TestResolveProvidedDependency: a wheel that requires lxml (as
// python-docx does) resolves with no lxml wheel anywhere: the index is
// never asked for lxml, the site holds no lxml, and Site.Provided names
// the built-in one. A dependency whose specifier excludes the built-in
// version warns, naming the wheel that asked; a remembered resolution
// warns again without asking the index; another built-in version
// resolves anew.
func TestResolveProvidedDependency(t *testing.T) {
	ix := newTestIndex(t, false)
	ix.add("python_docx-1.1.0-py3-none-any.whl", metaWheel(t, "python_docx-1.1.0-py3-none-any.whl", "lxml>=3.1.0", "oldxml"))
	ix.add("oldxml-1.0-py3-none-any.whl", metaWheel(t, "oldxml-1.0-py3-none-any.whl", "lxml<4", "Pillow>=10; sys_platform == 'win32'"))
	lxmlAsked, pillowAsked := refuse(ix, "lxml"), refuse(ix, "pillow")
	cache := t.TempDir()
	var progress bytes.Buffer
	o := &Options{IndexURL: ix.url(), CacheDir: cache, Progress: &progress, Provided: builtins}
	want := reqs(t, "python-docx")
	want[0].Source = "scripts/report.py:1 (PEP 723)"

	site, err := Resolve(context.Background(), want, o)
	require.NoError(t, err)
	var names []string
	for _, w := range site.Wheels {
		names = append(names, w.Name+" "+w.Version)
	}
	assert.Equal(t, []string{"oldxml 1.0", "python_docx 1.1.0"}, names)
	assert.Equal(t, []Provided{{Name: "lxml", Import: "lxml", Version: "4.9.2"}}, site.Provided, "Pillow's marker excludes WASI: not used")
	assert.Zero(t, lxmlAsked.Load(), "the index was asked for lxml")
	assert.Zero(t, pillowAsked.Load(), "the index was asked for Pillow")
	assert.NoDirExists(t, filepath.Join(site.Dir, "lxml"))
	assert.DirExists(t, filepath.Join(site.Dir, "python-docx_mod"))
	warning := "skillrun: oldxml 1.0 asks for lxml<4; the sandbox's Python provides lxml 4.9.2 (built in), which is used\n"
	assert.Contains(t, progress.String(), warning)
	assert.Equal(t, 1, strings.Count(progress.String(), "skillrun: "), "only the excluding specifier warns: %s", progress.String())
	assert.NotContains(t, progress.String(), "lxml-")

	// Remembered: the index is not asked, the warning is given again.
	hits := ix.hits.Load()
	progress.Reset()
	again, err := Resolve(context.Background(), want, o)
	require.NoError(t, err)
	assert.Equal(t, hits, ix.hits.Load(), "a remembered resolution asked the index")
	assert.Equal(t, site.Dir, again.Dir)
	assert.Equal(t, site.Provided, again.Provided)
	assert.Equal(t, warning, progress.String())

	// Another built-in version: the remembered resolution does not
	// answer, and the new version satisfies lxml<4.
	progress.Reset()
	o.Provided = []Provided{{Name: "lxml", Import: "lxml", Version: "3.8.0"}}
	third, err := Resolve(context.Background(), want, o)
	require.NoError(t, err)
	assert.Greater(t, ix.hits.Load(), hits, "the remembered resolution answered for other built-in versions")
	assert.Equal(t, []Provided{{Name: "lxml", Import: "lxml", Version: "3.8.0"}}, third.Provided)
	assert.NotContains(t, progress.String(), "skillrun: ")

	// Without the built-in list (as before), lxml is looked for and
	// missing: the test can fail.
	_, err = Resolve(context.Background(), want, &Options{IndexURL: ix.url(), CacheDir: cache})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lxml")
	assert.Positive(t, lxmlAsked.Load())
}

// TestResolveProvidedPinned: requirements pinning versions the
// interpreter does not have still resolve, with no package source at
// all, and warn naming the requirement, where it came from and the
// built-in version. A find-links folder's copy of a built-in package is
// not used; a marker that does not apply still drops the requirement.
func TestResolveProvidedPinned(t *testing.T) {
	var progress bytes.Buffer
	rs := reqs(t, "Pillow==10.0.0", "lxml>=4", "pillow[xmp]", "lxml<4; sys_platform == 'win32'")
	rs[0].Source = "requirements.txt:1"
	rs[1].Source = "requirements.txt:2"
	rs[2].Source = "scripts/x.py:2 (PEP 723)"
	site, err := Resolve(context.Background(), rs, &Options{IndexURL: NoIndex, CacheDir: t.TempDir(), Progress: &progress, Provided: builtins})
	require.NoError(t, err)
	assert.Empty(t, site.Wheels)
	assert.Equal(t, []Provided{builtins[1], builtins[0]}, site.Provided, "sorted by name")
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	assert.Equal(t, []string{
		"skillrun: requirements.txt:1 asks for Pillow==10.0.0; the sandbox's Python provides Pillow 9.4.0 (built in), which is used",
		"skillrun: scripts/x.py:2 (PEP 723) asks for pillow[xmp]; the sandbox's Python provides Pillow 9.4.0 (built in), which is used, and the dependencies of its extras (xmp) are not fetched: declare them if the scripts need them",
	}, lines)

	// A find-links folder offering them: nothing is copied.
	dir := t.TempDir()
	for _, f := range []string{"lxml-5.0-py3-none-any.whl", "pillow-10.0.0-py3-none-any.whl"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), metaWheel(t, f), 0o644))
	}
	progress.Reset()
	site, err = Resolve(context.Background(), reqs(t, "lxml", "Pillow==10.0.0"), &Options{IndexURL: NoIndex, FindLinks: dir, CacheDir: t.TempDir(), Progress: &progress, Provided: builtins})
	require.NoError(t, err)
	assert.Empty(t, site.Wheels)
	assert.NotContains(t, progress.String(), "copying")
	assert.Contains(t, progress.String(), "skillrun: a requirement asks for Pillow==10.0.0; the sandbox's Python provides Pillow 9.4.0 (built in), which is used")

	// Anything else still needs a source.
	_, err = Resolve(context.Background(), reqs(t, "Pillow", "pypdf"), &Options{IndexURL: NoIndex, CacheDir: t.TempDir(), Provided: builtins})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pypdf: no package source")
}

// TestResolveCompiledNotProvided: a compiled package the interpreter
// lacks fails naming it, the compiled packages it has (with versions) and
// the native tier, whether asked for directly, by a wheel, or found to
// hold native code.
func TestResolveCompiledNotProvided(t *testing.T) {
	ix := newTestIndex(t, true)
	ix.add("numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", []byte("PK"))
	ix.add("numpy-2.1.0-cp311-cp311-win_amd64.whl", []byte("PK"))
	ix.add("tables-1.0-py3-none-any.whl", metaWheel(t, "tables-1.0-py3-none-any.whl", "numpy>=1.20"))
	ix.add("speedy-1.0-py3-none-any.whl", makeWheel(t, "speedy-1.0-py3-none-any.whl", map[string]string{"speedy/_c.so": "\x7fELF"}))
	hint := "the compiled packages built into skillrun's Python are Pillow 9.4.0 and lxml 4.9.2; numpy is not one of them; a skill you trust that needs numpy can run in the native tier (skillrun run --native, or native = true in the skill's policy)"
	for _, tc := range []struct{ req, want string }{
		{"numpy", "numpy: no pure-Python wheel (the index has only compiled wheels: numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl, numpy-2.1.0-cp311-cp311-win_amd64.whl; skillrun runs Python in WebAssembly, where compiled extensions cannot load); " + hint},
		{"tables", hint + ", as the host's python3 with the packages installed there (required by tables 1.0)"},
		{"speedy", "speedy-1.0-py3-none-any.whl: member speedy/_c.so is a compiled extension (skillrun runs Python in WebAssembly, where compiled extensions cannot load); the compiled packages built into skillrun's Python are Pillow 9.4.0 and lxml 4.9.2; speedy is not one of them; a skill you trust that needs speedy can run in the native tier"},
	} {
		_, err := Resolve(context.Background(), reqs(t, tc.req, "Pillow"), &Options{IndexURL: ix.url(), CacheDir: t.TempDir(), Provided: builtins})
		require.Error(t, err, tc.req)
		assert.Contains(t, err.Error(), tc.want)
	}
	// Not a compiled package: no such hint.
	_, err := Resolve(context.Background(), reqs(t, "nothere"), &Options{IndexURL: ix.url(), CacheDir: t.TempDir(), Provided: builtins})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "native")
}

// TestUseProvided: an import that only a built-in package provides, and
// that the table of known imports does not list, becomes a requirement
// of it instead of an unknown import; Scan already maps PIL and lxml.
func TestUseProvided(t *testing.T) {
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"SKILL.md":        "---\nname: x\n---\n",
		"scripts/img.py":  "import json\nfrom PIL import Image\nimport lxml.etree\nimport regexish\nimport squatty\n",
		"scripts/more.py": "import regexish\n",
	})
	need, err := Scan(skill)
	require.NoError(t, err)
	sources := map[string]string{}
	for _, r := range need.Requirements {
		sources[r.Name] = r.Source
	}
	assert.Equal(t, map[string]string{"Pillow": "scripts/img.py:2 imports PIL", "lxml": "scripts/img.py:3 imports lxml"}, sources)
	assert.Equal(t, []Import{{Module: "regexish", Where: "scripts/img.py:4"}, {Module: "squatty", Where: "scripts/img.py:5"}}, need.Unknown)

	need.UseProvided(append(builtins, Provided{Name: "regexish-dist", Import: "regexish", Version: "1.0"}))
	assert.Equal(t, []Import{{Module: "squatty", Where: "scripts/img.py:5"}}, need.Unknown)
	require.Len(t, need.Requirements, 3)
	assert.Equal(t, Requirement{Name: "regexish-dist", Source: "scripts/img.py:4 imports regexish"}, need.Requirements[2])
}

// TestLockKeyProvided: the built-in versions are part of a resolution's
// key.
func TestLockKeyProvided(t *testing.T) {
	rs := reqs(t, "python-docx")
	key := func(p []Provided) string {
		k, err := lockKey(rs, &Options{IndexURL: "https://example.org/simple", Provided: p})
		require.NoError(t, err)
		return k
	}
	none, base := key(nil), key(builtins)
	assert.NotEqual(t, none, base)
	assert.NotEqual(t, base, key([]Provided{builtins[0], {Name: "lxml", Import: "lxml", Version: "5.2.1"}}))
	assert.Equal(t, base, key([]Provided{builtins[1], builtins[0]}), "order does not matter")
}
