package pydeps

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// debianDists are the distributions the tests build wheels from, and the
// dist-packages folders that Debian's python3-* packages install them in.
var debianDists = map[string]string{
	"openpyxl":   "openpyxl",
	"et-xmlfile": "et_xmlfile",
	"pypdf":      "pypdf",
	"PyYAML":     "yaml",
	"defusedxml": "defusedxml",
}

// requireDebian skips the test when Debian's pure-Python packages are
// missing, or fails it when REQUIRE_TOOLCHAINS is set (CI installs them).
func requireDebian(t testing.TB) {
	t.Helper()
	for _, dir := range debianDists {
		if _, err := os.Stat(filepath.Join(DebianDistPackages, dir)); err != nil {
			msg := fmt.Sprintf("Debian's python3-%s is needed: %v", strings.ReplaceAll(dir, "_", "-"), err)
			if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
				t.Fatal(msg + " (REQUIRE_TOOLCHAINS is set)")
			}
			t.Skip(msg)
		}
	}
}

var (
	debOnce   sync.Once
	debWheels map[string][]byte // file name -> content
	debErr    error
)

// debianWheels builds the wheels once per test binary.
func debianWheels(t testing.TB) map[string][]byte {
	t.Helper()
	requireDebian(t)
	debOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pydeps-wheels-")
		if err != nil {
			debErr = err
			return
		}
		defer os.RemoveAll(dir)
		var names []string
		for d := range debianDists {
			names = append(names, d)
		}
		paths, err := DebianWheels(dir, names...)
		if err != nil {
			debErr = err
			return
		}
		debWheels = map[string][]byte{}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				debErr = err
				return
			}
			debWheels[filepath.Base(p)] = b
		}
	})
	require.NoError(t, debErr)
	return debWheels
}

// makeWheel builds a wheel in memory with the given members (and a
// METADATA unless one is given).
func makeWheel(t testing.TB, file string, members map[string]string) []byte {
	t.Helper()
	wn, ok := parseWheelName(file)
	require.True(t, ok, "bad wheel name %s", file)
	meta := wn.name + "-" + wn.version + ".dist-info/METADATA"
	if _, ok := members[meta]; !ok {
		members[meta] = fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", wn.name, wn.version)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, err := zw.Create(name)
		require.NoError(t, err)
		w.Write([]byte(body))
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// An indexFile is one file the test index lists.
type indexFile struct {
	name   string
	data   []byte
	sha256 string // as listed: the real hash unless a test lies
	yanked bool
}

// testIndex is a PEP 503 (HTML) or PEP 691 (JSON) simple index on
// loopback, counting its hits.
type testIndex struct {
	srv      *httptest.Server
	json     bool
	projects map[string][]indexFile // by normalized name
	// override serves a fixed status and body for a project page.
	override map[string]func(w http.ResponseWriter)
	hits     atomic.Int64
}

func newTestIndex(t testing.TB, asJSON bool) *testIndex {
	ix := &testIndex{json: asJSON, projects: map[string][]indexFile{}, override: map[string]func(http.ResponseWriter){}}
	ix.srv = httptest.NewServer(http.HandlerFunc(ix.serve))
	t.Cleanup(ix.srv.Close)
	return ix
}

func (ix *testIndex) url() string { return ix.srv.URL + "/simple" }

// add lists a file under its project.
func (ix *testIndex) add(file string, data []byte) *indexFile {
	wn, ok := parseWheelName(file)
	name := wn.name
	if !ok {
		name, _, _ = strings.Cut(file, "-")
	}
	sum := sha256.Sum256(data)
	key := Normalize(name)
	ix.projects[key] = append(ix.projects[key], indexFile{name: file, data: data, sha256: hex.EncodeToString(sum[:])})
	return &ix.projects[key][len(ix.projects[key])-1]
}

func (ix *testIndex) serve(w http.ResponseWriter, r *http.Request) {
	ix.hits.Add(1)
	if rest, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
		for _, files := range ix.projects {
			for _, f := range files {
				if f.name == rest {
					w.Write(f.data)
					return
				}
			}
		}
		http.NotFound(w, r)
		return
	}
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
	if o := ix.override[name]; o != nil {
		o(w)
		return
	}
	files, ok := ix.projects[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if ix.json && strings.Contains(r.Header.Get("Accept"), "application/vnd.pypi.simple.v1+json") {
		type jf struct {
			Filename string            `json:"filename"`
			URL      string            `json:"url"`
			Hashes   map[string]string `json:"hashes"`
			Yanked   any               `json:"yanked"`
		}
		page := struct {
			Meta  map[string]string `json:"meta"`
			Name  string            `json:"name"`
			Files []jf              `json:"files"`
		}{Meta: map[string]string{"api-version": "1.1"}, Name: name}
		for _, f := range files {
			var yanked any = false
			if f.yanked {
				yanked = "broken"
			}
			page.Files = append(page.Files, jf{f.name, "../../files/" + f.name, map[string]string{"sha256": f.sha256}, yanked})
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		json.NewEncoder(w).Encode(page)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><body><h1>Links for %s</h1>\n", html.EscapeString(name))
	for _, f := range files {
		y := ""
		if f.yanked {
			y = ` data-yanked=""`
		}
		fmt.Fprintf(w, "<a href=\"/files/%s#sha256=%s\"%s>%s</a><br/>\n", f.name, f.sha256, y, html.EscapeString(f.name))
	}
	fmt.Fprint(w, "</body></html>\n")
}

// serveDebian lists the Debian-built wheels on the index.
func (ix *testIndex) serveDebian(t testing.TB) {
	for name, data := range debianWheels(t) {
		ix.add(name, data)
	}
}
