package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/testkit"
)

// wheelIndex serves the wheels in dir as a PEP 503 simple index on
// loopback and counts the requests.
func wheelIndex(t *testing.T, dir string) (url string, hits *atomic.Int64) {
	t.Helper()
	hits = &atomic.Int64{}
	files, err := filepath.Glob(filepath.Join(dir, "*.whl"))
	if err != nil {
		t.Fatal(err)
	}
	byProject := map[string][]string{}
	for _, f := range files {
		name, _, _ := strings.Cut(filepath.Base(f), "-")
		byProject[pydeps.Normalize(name)] = append(byProject[pydeps.Normalize(name)], f)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case strings.HasPrefix(r.URL.Path, "/simple/"):
			project := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
			list, ok := byProject[project]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<!DOCTYPE html><html><body>\n")
			for _, f := range list {
				b, err := os.ReadFile(f)
				if err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				sum := sha256.Sum256(b)
				fmt.Fprintf(w, "<a href=\"/files/%s#sha256=%s\">%s</a>\n", filepath.Base(f), hex.EncodeToString(sum[:]), filepath.Base(f))
			}
			fmt.Fprintf(w, "</body></html>\n")
		case strings.HasPrefix(r.URL.Path, "/files/"):
			http.ServeFile(w, r, filepath.Join(dir, filepath.Base(r.URL.Path)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/simple", hits
}

// debianWheels builds the test wheels from Debian's pure-Python packages
// (.ci/run installs them), failing under REQUIRE_TOOLCHAINS when absent.
func debianWheels(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := pydeps.DebianWheels(dir, "openpyxl", "et-xmlfile", "pypdf", "PyYAML", "defusedxml"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("Debian's python3-openpyxl, python3-et-xmlfile, python3-pypdf, python3-yaml and python3-defusedxml are required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		t.Skipf("no Debian pure-Python packages to build wheels from: %v", err)
	}
	return dir
}

// TestDepsRun: `skillrun deps` fetches what a published skill's script
// imports (openpyxl, pypdf, PyYAML; openpyxl pulls et-xmlfile) from a
// package index, verified, and `skillrun run` then reads and writes an
// .xlsx and a .pdf with them in the sandbox. Without deps the script
// fails saying which command fetches the package.
func TestDepsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	needPython(t)
	wheels := debianWheels(t)
	index, hits := wheelIndex(t, wheels)
	root := t.TempDir()
	skill := filepath.Join(root, "office")
	ws := filepath.Join(root, "ws")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md": "---\nname: office\ndescription: Makes a spreadsheet and a PDF.\n---\nRun `python scripts/make.py`.\n",
		skill + "/scripts/make.py": `import yaml
from openpyxl import Workbook, load_workbook
import pypdf

spec = yaml.safe_load(open("spec.yaml"))
wb = Workbook()
ws = wb.active
ws.append(["name", "n"])
for k, v in spec["rows"].items():
    ws.append([k, v])
wb.save("out.xlsx")
back = load_workbook("out.xlsx").active
print("xlsx", [[c.value for c in row] for row in back.iter_rows(min_row=2)])
w = pypdf.PdfWriter()
for _ in range(spec["pages"]):
    w.add_blank_page(width=72, height=72)
with open("out.pdf", "wb") as f:
    w.write(f)
print("pdf", len(pypdf.PdfReader("out.pdf").pages), "pages")
`,
		ws + "/spec.yaml": "rows: {a: 1, b: 2}\npages: 3\n",
	})
	runCmd := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	// Before deps: the import fails, naming the command that fetches it.
	code, _, errOut := runCmd("run", skill+":scripts/make.py", "--workspace", ws, "-A")
	if code == 0 || !strings.Contains(errOut, "No module named 'yaml'") || !strings.Contains(errOut, "skillrun deps") {
		t.Fatalf("run before deps: exit %d, stderr %s", code, errOut)
	}
	code, out, errOut := runCmd("deps", skill, "--index-url", index, "--refresh")
	if code != 0 {
		t.Fatalf("deps: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"openpyxl 3.", "et-xmlfile ", "pypdf 3.", "PyYAML 6."} {
		if !strings.Contains(strings.ReplaceAll(out, "et_xmlfile", "et-xmlfile"), want) {
			t.Errorf("deps output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCmd("run", skill+":scripts/make.py", "--workspace", ws, "-A")
	if code != 0 {
		t.Fatalf("run after deps: exit %d\n%s%s", code, out, errOut)
	}
	if want := "xlsx [['a', 1], ['b', 2]]\npdf 3 pages\n"; out != want {
		t.Errorf("run after deps: stdout %q, want %q", out, want)
	}
	for _, f := range []string{"out.xlsx", "out.pdf"} {
		if fi, err := os.Stat(filepath.Join(ws, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// Again: nothing is fetched, the pin and the cache answer.
	before := hits.Load()
	if code, out, errOut = runCmd("deps", skill, "--index-url", index); code != 0 {
		t.Fatalf("deps again: exit %d\n%s%s", code, out, errOut)
	}
	if hits.Load() != before {
		t.Errorf("deps again asked the index %d times; want the cached resolution", hits.Load()-before)
	}
}

// TestDepsBadInput: a PEP 723 block that is not TOML, and a package the
// index does not have, fail with exit 1 naming what is wrong.
func TestDepsBadInput(t *testing.T) {
	wheels := debianWheels(t)
	index, _ := wheelIndex(t, wheels)
	root := t.TempDir()
	testkit.WriteTree(t, "", map[string]string{
		root + "/bad/SKILL.md":           "---\nname: bad\ndescription: Bad metadata.\n---\nx\n",
		root + "/bad/scripts/x.py":       "# /// script\n# dependencies = [\"pyyaml\"\n# ///\nimport yaml\n",
		root + "/nopkg/SKILL.md":         "---\nname: nopkg\ndescription: Needs a package the index lacks.\n---\nx\n",
		root + "/nopkg/requirements.txt": "no-such-package>=1\n",
	})
	var out, errOut bytes.Buffer
	if code := run([]string{"deps", root + "/bad", "--index-url", index}, strings.NewReader(""), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "scripts/x.py:") {
		t.Errorf("invalid PEP 723 block: exit %d, stderr %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"deps", root + "/nopkg", "--index-url", index}, strings.NewReader(""), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "no-such-package") {
		t.Errorf("missing package: exit %d, stderr %s", code, errOut.String())
	}
}

// writeWheel writes a minimal pure-Python wheel (a METADATA and the
// given members) into dir.
func writeWheel(t *testing.T, dir, name, version string, members map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	members[name+"-"+version+".dist-info/METADATA"] = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"
	for _, m := range slices.Sorted(maps.Keys(members)) {
		w, err := zw.Create(m)
		require.NoError(t, err)
		_, err = w.Write([]byte(members[m]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+"-"+version+"-py3-none-any.whl"), buf.Bytes(), 0o644))
}

// TestDepsUnknownImportNotGuessed: a script that declares nothing
// imports a module skillrun does not know. The loopback index has a
// package of that very name (anyone may publish one: a squatter). deps
// used to pin it as a guess; now it pins nothing, asks the index
// nothing, and names the import, where it is, and --package. Naming the
// package pins it; naming one that does not provide the import does not.
func TestDepsUnknownImportNotGuessed(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // pins and wheels
	wheels := t.TempDir()
	writeWheel(t, wheels, "squatty", "1.0", map[string]string{"squatty/__init__.py": "print('owned')\n"})
	writeWheel(t, wheels, "unrelated", "2.0", map[string]string{"unrelated.py": "X = 1\n"})
	index, hits := wheelIndex(t, wheels)
	skill := filepath.Join(t.TempDir(), "sq")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":       "---\nname: sq\ndescription: Imports a module nobody declared.\n---\nx\n",
		skill + "/scripts/run.py": "import json\nimport squatty\n",
	})
	deps := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"deps", skill, "--index-url", index}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	noPin := func() {
		t.Helper()
		_, err := pydeps.LoadPin("", skill)
		assert.ErrorIs(t, err, fs.ErrNotExist, "a pin was saved")
	}

	code, out, errOut := deps()
	assert.Equal(t, 1, code, "stdout %s\nstderr %s", out, errOut)
	assert.NotContains(t, out, "squatty 1.0")
	assert.Contains(t, errOut, "squatty (imported at scripts/run.py:2)")
	assert.Contains(t, errOut, "--package NAME")
	assert.Zero(t, hits.Load(), "the index was asked")
	noPin()

	// A package that does not provide the import: still refused.
	code, out, errOut = deps("--package", "unrelated")
	assert.Equal(t, 1, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, errOut, "squatty (imported at scripts/run.py:2)")
	noPin()

	// The operator names the package: it is pinned.
	code, out, errOut = deps("--package", "squatty")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "squatty 1.0")
	pin, err := pydeps.LoadPin("", skill)
	require.NoError(t, err)
	assert.Contains(t, pin.Requirements, "squatty (--package)")

	code, _, errOut = deps("--package", "not a requirement!")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "--package")
}
