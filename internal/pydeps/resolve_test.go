package pydeps

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reqs(t *testing.T, lines ...string) []Requirement {
	t.Helper()
	var out []Requirement
	for _, l := range lines {
		r, err := ParseRequirement(l)
		require.NoError(t, err)
		out = append(out, r)
	}
	return out
}

func testResolveDebian(t *testing.T, asJSON bool) {
	if testing.Short() {
		t.Skip("slow: resolves, downloads and unpacks five wheels, and imports them with python3 (1.3 s); the full suite runs it")
	}
	ix := newTestIndex(t, asJSON)
	ix.serveDebian(t)
	cache := t.TempDir()
	var progress bytes.Buffer
	o := &Options{IndexURL: ix.url(), CacheDir: cache, Progress: &progress}
	want := reqs(t, "openpyxl>=3", "pypdf", "PyYAML>=5,<7", "defusedxml; python_version >= '3.8'", "never-needed; sys_platform == 'win32'")
	site, err := Resolve(context.Background(), want, o)
	require.NoError(t, err)
	var names []string
	for _, w := range site.Wheels {
		names = append(names, w.Name+" "+w.Version)
		assert.Len(t, w.SHA256, 64, "wheel %+v: SHA256", w)
		assert.True(t, strings.HasSuffix(w.File, "-py3-none-any.whl"), "wheel %+v: file", w)
		if w.Name == "openpyxl" {
			assert.Contains(t, w.Requires, "et_xmlfile", "openpyxl requires")
		}
		if w.Name == "pypdf" {
			assert.Empty(t, w.Requires, "pypdf requires: its markers exclude 3.11 or name extras")
		}
	}
	require.Equal(t, "defusedxml 0.7.1, et-xmlfile 1.0.1, openpyxl 3.0.9, pypdf 3.4.1, PyYAML 6.0", strings.Join(names, ", "), "wheels")
	assert.True(t, strings.HasPrefix(site.Dir, filepath.Join(cache, "sites")+string(filepath.Separator)), "site dir %s", site.Dir)
	for _, f := range []string{"openpyxl/__init__.py", "et_xmlfile/__init__.py", "pypdf/__init__.py", "yaml/__init__.py", "defusedxml/ElementTree.py", "openpyxl-3.0.9.dist-info/METADATA"} {
		_, err := os.Stat(filepath.Join(site.Dir, f))
		assert.NoError(t, err, "site lacks %s", f)
	}
	assert.Equal(t, 5, strings.Count(progress.String(), "downloading "), "downloads in progress %q", progress.String())
	for _, w := range site.Wheels {
		_, err := os.Stat(filepath.Join(cache, "wheels", w.SHA256+".whl"))
		assert.NoError(t, err)
	}

	// Again: the cache answers, the index is not asked.
	hits := ix.hits.Load()
	again, err := Resolve(context.Background(), want, o)
	require.NoError(t, err)
	require.Equal(t, hits, ix.hits.Load(), "second resolve: index hits")
	require.Equal(t, site.Dir, again.Dir, "second resolve: dir")
	require.Len(t, again.Wheels, len(site.Wheels), "second resolve: wheels")
	// Refresh asks the index again but downloads nothing.
	progress.Reset()
	o.Refresh = true
	_, err = Resolve(context.Background(), want, o)
	require.NoError(t, err)
	require.NotEqual(t, hits, ix.hits.Load(), "refresh: want the index asked again")
	require.NotContains(t, progress.String(), "downloading", "refresh: want nothing downloaded")

	// The unpacked tree imports under a real CPython, without Debian's
	// own copies on the path.
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal("python3 is needed (REQUIRE_TOOLCHAINS is set)")
		}
		return
	}
	out, err := exec.Command(py, "-S", "-c", `import sys; sys.path.insert(0, sys.argv[1])
import openpyxl, pypdf, yaml, defusedxml.ElementTree
assert openpyxl.__file__.startswith(sys.argv[1]), openpyxl.__file__
wb = openpyxl.Workbook(); wb.active["A1"] = 42
print(yaml.safe_load("a: [1, 2]"), wb.active["A1"].value)`, site.Dir).CombinedOutput()
	require.NoError(t, err, "python3:\n%s", out)
	require.Equal(t, "{'a': [1, 2]} 42", strings.TrimSpace(string(out)), "python3")
}

func TestResolveHTMLIndex(t *testing.T) { testResolveDebian(t, false) }
func TestResolveJSONIndex(t *testing.T) { testResolveDebian(t, true) }

func TestResolveFindLinksOnly(t *testing.T) {
	requireDebian(t)
	dir := t.TempDir()
	_, err := DebianWheels(dir, "defusedxml", "et-xmlfile")
	require.NoError(t, err)
	site, err := Resolve(context.Background(), reqs(t, "defusedxml", "et_xmlfile"), &Options{IndexURL: NoIndex, FindLinks: dir, CacheDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, site.Wheels, 2, "wheels")
	_, err = Resolve(context.Background(), reqs(t, "pypdf"), &Options{IndexURL: NoIndex, FindLinks: dir, CacheDir: t.TempDir()})
	require.ErrorContains(t, err, "pypdf: not found in find-links "+dir)
}

// TestResolveErrors checks that each failure names the package and the
// reason.
func TestResolveErrors(t *testing.T) {
	pure := func(t *testing.T, file string) []byte {
		wn, _ := parseWheelName(file)
		return makeWheel(t, file, map[string]string{wn.name + "/__init__.py": ""})
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, ix *testIndex)
		req   string
		want  string
	}{
		{"hash mismatch", func(t *testing.T, ix *testIndex) {
			f := ix.add("pyyaml-6.0.2-py3-none-any.whl", pure(t, "pyyaml-6.0.2-py3-none-any.whl"))
			f.sha256 = strings.Repeat("ab", 32)
		}, "PyYAML", "pyyaml 6.0.2: sha256 mismatch: index says " + strings.Repeat("ab", 32) + ", got "},
		{"escaping member", func(t *testing.T, ix *testIndex) {
			ix.add("foo-1.0-py3-none-any.whl", makeWheel(t, "foo-1.0-py3-none-any.whl", map[string]string{"../evil.py": "x"}))
		}, "foo", "foo-1.0-py3-none-any.whl: member ../evil.py escapes the archive"},
		{"absolute member", func(t *testing.T, ix *testIndex) {
			ix.add("foo-1.0-py3-none-any.whl", makeWheel(t, "foo-1.0-py3-none-any.whl", map[string]string{"/etc/evil.py": "x"}))
		}, "foo", "foo-1.0-py3-none-any.whl: member /etc/evil.py is an absolute path"},
		{"symlink member", func(t *testing.T, ix *testIndex) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			h := &zip.FileHeader{Name: "foo/link.py"}
			h.SetMode(fs.ModeSymlink | 0o777)
			lw, _ := zw.CreateHeader(h)
			lw.Write([]byte("/etc/passwd"))
			mw, _ := zw.Create("foo-1.0.dist-info/METADATA")
			mw.Write([]byte("Name: foo\nVersion: 1.0\n"))
			zw.Close()
			ix.add("foo-1.0-py3-none-any.whl", buf.Bytes())
		}, "foo", "foo-1.0-py3-none-any.whl: member foo/link.py is a symlink"},
		{"compiled member", func(t *testing.T, ix *testIndex) {
			ix.add("foo-1.0-py3-none-any.whl", makeWheel(t, "foo-1.0-py3-none-any.whl", map[string]string{"foo/_speed.so": "\x7fELF"}))
		}, "foo", "foo-1.0-py3-none-any.whl: member foo/_speed.so is a compiled extension"},
		{"compiled only", func(t *testing.T, ix *testIndex) {
			ix.add("numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", []byte("PK"))
			ix.add("numpy-2.1.0-cp311-cp311-win_amd64.whl", []byte("PK"))
			ix.add("numpy-2.0.0-cp311-cp311-win_amd64.whl", []byte("PK"))
		}, "numpy", "numpy: no pure-Python wheel (the index has only compiled wheels: numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl, numpy-2.1.0-cp311-cp311-win_amd64.whl; skillrun runs Python in WebAssembly, where compiled extensions cannot load)"},
		{"sdist only", func(t *testing.T, ix *testIndex) {
			ix.add("foo-1.0.tar.gz", []byte("x"))
		}, "foo", "foo: no pure-Python wheel (the index has only source distributions: foo-1.0.tar.gz; skillrun does not build packages from source)"},
		{"unsatisfiable", func(t *testing.T, ix *testIndex) {
			ix.add("requests-2.31.0-py3-none-any.whl", pure(t, "requests-2.31.0-py3-none-any.whl"))
			ix.add("requests-2.32.3-py3-none-any.whl", pure(t, "requests-2.32.3-py3-none-any.whl"))
		}, "requests>=99", "no version of requests satisfies >=99 (available: 2.31.0, 2.32.3)"},
		{"yanked", func(t *testing.T, ix *testIndex) {
			f := ix.add("foo-1.0-py3-none-any.whl", pure(t, "foo-1.0-py3-none-any.whl"))
			f.yanked = true
		}, "foo", "foo 1.0: yanked from"},
		{"not found", func(t *testing.T, ix *testIndex) {}, "nothere", "nothere: not found on http://"},
		{"server error", func(t *testing.T, ix *testIndex) {
			ix.override["foo"] = func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusInternalServerError) }
		}, "foo", "/simple/foo/: 500 Internal Server Error"},
		{"garbage html", func(t *testing.T, ix *testIndex) {
			ix.override["foo"] = func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<html><<<>>> not an index <b>at all"))
			}
		}, "foo", "/simple/foo/ lists no files (is http://"},
		{"wrong content", func(t *testing.T, ix *testIndex) {
			ix.override["foo"] = func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write([]byte{0, 1, 2})
			}
		}, "foo", "not a simple index page: content type \"application/octet-stream\""},
		{"dependency missing", func(t *testing.T, ix *testIndex) {
			ix.add("foo-1.0-py3-none-any.whl", makeWheel(t, "foo-1.0-py3-none-any.whl", map[string]string{
				"foo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: foo\nVersion: 1.0\nRequires-Dist: bar>=2\n",
			}))
			ix.add("bar-1.0-py3-none-any.whl", pure(t, "bar-1.0-py3-none-any.whl"))
		}, "foo", "no version of bar satisfies >=2 (available: 1.0) (required by foo 1.0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ix := newTestIndex(t, false)
			tc.setup(t, ix)
			_, err := Resolve(context.Background(), reqs(t, tc.req), &Options{IndexURL: ix.url(), CacheDir: t.TempDir()})
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestResolveChoice checks version choice: newest fitting, pre-releases
// only when asked, yanked only when pinned, constraints from dependencies
// re-choosing an earlier pick, extras.
func TestResolveChoice(t *testing.T) {
	ix := newTestIndex(t, true)
	w := func(file, requires string) {
		wn, _ := parseWheelName(file)
		meta := "Metadata-Version: 2.1\nName: " + wn.name + "\nVersion: " + wn.version + "\n"
		for r := range strings.SplitSeq(requires, "|") {
			if r != "" {
				meta += "Requires-Dist: " + r + "\n"
			}
		}
		ix.add(file, makeWheel(t, file, map[string]string{
			wn.name + "-" + wn.version + ".dist-info/METADATA":               meta,
			wn.name + "_" + strings.ReplaceAll(wn.version, ".", "_") + ".py": "",
		}))
	}
	w("lib-1.0-py3-none-any.whl", "")
	w("lib-2.0-py3-none-any.whl", "")
	w("lib-3.0b1-py3-none-any.whl", "")
	w("lib-2.5-py2.py3-none-any.whl", "")
	ix.projects["lib"][3].yanked = true
	w("lib-2.6-cp311-cp311-manylinux_x86_64.whl", "")
	w("app-1.0-py3-none-any.whl", "lib<2; python_version >= '3'|extra-dep; extra == 'fancy'|win-dep; sys_platform == 'win32'|unknown-dep; nonsense_var == 'x'")
	w("extra_dep-0.1-py3-none-any.whl", "")
	resolve := func(lines ...string) string {
		t.Helper()
		site, err := Resolve(context.Background(), reqs(t, lines...), &Options{IndexURL: ix.url(), CacheDir: t.TempDir()})
		require.NoError(t, err)
		var out []string
		for _, w := range site.Wheels {
			out = append(out, w.Name+"=="+w.Version)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ reqs, want string }{
		{"lib", "lib==2.0"},
		{"lib>=3.0a1", "lib==3.0b1"},
		{"lib==2.5", "lib==2.5"},
		{"lib,app", "app==1.0 lib==1.0"},
		{"lib~=1.0", "lib==1.0"},
		{"lib!=2.*", "lib==1.0"},
		{"app[fancy]", "app==1.0 extra_dep==0.1 lib==1.0"},
	} {
		assert.Equal(t, tc.want, resolve(strings.Split(tc.reqs, ",")...), tc.reqs)
	}
}
