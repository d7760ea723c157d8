package interp

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wasmHeader is the smallest file checkWasm takes for a module. The
// bundle tests are about the format and its verification; the real
// interpreters go through it in cmd/skillrun's TestInterpreterBundle.
const wasmHeader = "\x00asm\x01\x00\x00\x00"

// fakeInterpreters makes an interpreters folder with the files Find
// needs for python, js and sh, each VERSION saying version.
func fakeInterpreters(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"python-3.11/python.wasm":                     wasmHeader + "python",
		"python-3.11/lib/python3.11/os.py":            "# os\n",
		"python-3.11/lib/python3.11/json/__init__.py": "# json\n",
		"python-3.11/VERSION":                         version,
		"python-3.11/tests/Pillow/big.bin":            "suites stay out of bundles",
		"js/js.wasm":                                  wasmHeader + "js",
		"js/VERSION":                                  version,
		"sh/sh.wasm":                                  wasmHeader + "sh",
		"sh/VERSION":                                  version,
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return dir
}

// writeBundle bundles languages of dir and returns the bytes and digest.
func writeBundle(t *testing.T, dir string, languages ...string) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	digest, err := WriteBundle(&b, dir, languages)
	require.NoError(t, err)
	return b.Bytes(), digest
}

// tarEntry is one entry of a hand-made bundle.
type tarEntry struct {
	name, body, link string
	typ              byte
}

// entriesOf reads a bundle back into entries, to alter and rewrite.
func entriesOf(t *testing.T, bundle []byte) []tarEntry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(bundle))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var out []tarEntry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		out = append(out, tarEntry{name: h.Name, body: string(b), link: h.Linkname, typ: h.Typeflag})
	}
}

func makeTar(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.link}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		require.NoError(t, tw.WriteHeader(h))
		_, err := io.WriteString(tw, e.body)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// digestOf is the digest of a bundle whose manifest is m.
func digestOf(m string) string {
	s := sha256.Sum256([]byte(m))
	return hex.EncodeToString(s[:])
}

func TestBundleRoundTrip(t *testing.T) {
	src := fakeInterpreters(t, "v1")
	bundle, digest := writeBundle(t, src, JS, Python, Shell)

	entries := entriesOf(t, bundle)
	require.Equal(t, BundleManifest, entries[0].name, "the manifest comes first, so an install verifies as it streams")
	assert.Equal(t, digestOf(entries[0].body), digest)
	assert.NotContains(t, entries[0].body, "tests/", "the packages' suites stay out")
	assert.Contains(t, entries[0].body, "  python-3.11/lib/python3.11/os.py\n")

	dst := t.TempDir()
	ins, err := InstallBundle(dst, bytes.NewReader(bundle), &BundleOptions{Digest: digest})
	require.NoError(t, err)
	var langs []string
	for _, in := range ins {
		langs = append(langs, in.Language)
		assert.Equal(t, "v1", in.Version)
	}
	assert.Equal(t, []string{JS, Python, Shell}, langs)
	b, err := os.ReadFile(filepath.Join(dst, "sh", "sh.wasm"))
	require.NoError(t, err)
	assert.Equal(t, wasmHeader+"sh", string(b))
	_, err = os.Stat(filepath.Join(dst, "python-3.11", "tests"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	left, _ := os.ReadDir(dst)
	for _, e := range left {
		assert.NotContains(t, e.Name(), "bundle", "the temporary folder is gone")
	}

	// Only what is asked for.
	only := t.TempDir()
	ins, err = InstallBundle(only, bytes.NewReader(bundle), &BundleOptions{Digest: digest, Languages: []string{Shell}})
	require.NoError(t, err)
	require.Len(t, ins, 1)
	_, err = Find(only, JS)
	assert.ErrorIs(t, err, ErrNotInstalled)

	_, err = InstallBundle(only, bytes.NewReader(bundle), &BundleOptions{Digest: digest, Languages: []string{JSTS}})
	assert.ErrorContains(t, err, "the bundle has no js-ts interpreter")
}

// TestBundleRefused: every way a bundle can be wrong is refused with a
// message naming what, and the interpreter installed before stays.
func TestBundleRefused(t *testing.T) {
	src := fakeInterpreters(t, "v2")
	bundle, digest := writeBundle(t, src, Shell)
	good := entriesOf(t, bundle)
	manifest := good[0].body

	// with returns good's entries with the file named name replaced by e
	// (or removed for a zero e), and others appended.
	with := func(name string, e tarEntry, extra ...tarEntry) []tarEntry {
		var out []tarEntry
		for _, g := range good {
			if g.name == name {
				if e.name != "" {
					out = append(out, e)
				}
				continue
			}
			out = append(out, g)
		}
		return append(out, extra...)
	}
	altered := wasmHeader + "sh, altered"
	reManifest := strings.Replace(manifest, digestOf(wasmHeader+"sh"), digestOf(altered), 1)

	cases := []struct {
		name   string
		bundle []byte
		digest string
		want   string
	}{
		{"other digest", bundle, digestOf("another release"), "it is another release's bundle or it was altered"},
		{"altered file", makeTar(t, with("sh/sh.wasm", tarEntry{name: "sh/sh.wasm", body: altered})), digest,
			"bundle file sh/sh.wasm has SHA-256 " + digestOf(altered)},
		{"altered file and manifest", makeTar(t, with(BundleManifest, tarEntry{name: BundleManifest, body: reManifest})), digest,
			"it is another release's bundle or it was altered"},
		{"truncated", bundle[:len(bundle)/2], digest, "the bundle ends early"},
		{"file missing", makeTar(t, with("sh/sh.wasm", tarEntry{})), digest, "the bundle lacks sh/sh.wasm"},
		{"file not in manifest", makeTar(t, with("", tarEntry{}, tarEntry{name: "sh/extra.wasm", body: "x"})), digest,
			"bundle file sh/extra.wasm is not in its MANIFEST.sha256"},
		{"symlink", makeTar(t, with("", tarEntry{}, tarEntry{name: "sh/passwd", typ: tar.TypeSymlink, link: "/etc/passwd"})), digest,
			"bundle entry sh/passwd is a symbolic link"},
		{"hard link", makeTar(t, with("", tarEntry{}, tarEntry{name: "sh/l", typ: tar.TypeLink, link: "sh/sh.wasm"})), digest,
			"bundle entry sh/l is a hard link"},
		{"dot-dot", makeTar(t, with("", tarEntry{}, tarEntry{name: "sh/../../evil", body: "x"})), digest,
			`"sh/../../evil" is not a clean relative path`},
		{"absolute", makeTar(t, with("", tarEntry{}, tarEntry{name: "/tmp/evil", body: "x"})), digest,
			`"/tmp/evil" is not a clean relative path`},
		{"file twice", makeTar(t, with("", tarEntry{}, tarEntry{name: "sh/sh.wasm", body: wasmHeader + "sh"})), digest,
			"bundle file sh/sh.wasm appears twice"},
		{"no manifest first", makeTar(t, good[1:]), digest, "its first file is \"sh/\", not MANIFEST.sha256"},
		{"not gzip", []byte("PK\x03\x04 a zip"), digest, "not an interpreter bundle (a gzip'd tar)"},
		{"bad digest flag", bundle, "abc", `bundle digest "abc" is not a SHA-256`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := t.TempDir()
			// An interpreter already installed, which a refused bundle
			// must leave as it was.
			prev := fakeInterpreters(t, "v1")
			require.NoError(t, os.Rename(filepath.Join(prev, "sh"), filepath.Join(dst, "sh")))

			_, err := InstallBundle(dst, bytes.NewReader(c.bundle), &BundleOptions{Digest: c.digest})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			in, err := Find(dst, Shell)
			require.NoError(t, err)
			assert.Equal(t, "v1", in.Version, "the interpreter installed before stays")
			left, _ := os.ReadDir(dst)
			assert.Len(t, left, 1, "nothing half-installed: %v", left)
			_, err = os.Stat(filepath.Join(filepath.Dir(dst), "evil"))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

func TestBundleNeedsDigest(t *testing.T) {
	bundle, _ := writeBundle(t, fakeInterpreters(t, "v1"), Shell)
	_, err := InstallBundle(t.TempDir(), bytes.NewReader(bundle), nil)
	assert.ErrorIs(t, err, ErrNoBundleDigest)

	// A release binary verifies against the digest it carries.
	old := bundleDigest
	t.Cleanup(func() { bundleDigest = old })
	bundleDigest = digestOf("another release")
	_, err = InstallBundle(t.TempDir(), bytes.NewReader(bundle), nil)
	assert.ErrorIs(t, err, errBundleDigest)
}

func TestParseManifest(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	cases := map[string]string{
		"":                                      "lists no files",
		"nonsense\n":                            "line 1: want \"SHA256  PATH\"",
		sum + " sh/sh.wasm\n":                   "line 1: want",
		strings.ToUpper(sum) + "  sh/sh.wasm\n": "line 1: want",
		sum + "  etc/passwd\n":                  "etc/passwd is not in an interpreter's folder",
		sum + "  sh/a\n" + sum + "  sh/a\n":     "line 2: sh/a is listed twice",
		sum + "  sh/a\\b\n":                     "has a backslash",
		sum + "  sh/" + strings.Repeat("d/", 40) + "f\n": "folders deep",
	}
	for in, want := range cases {
		_, err := parseManifest([]byte(in))
		if assert.Error(t, err, "%q", in) {
			assert.Contains(t, err.Error(), want, "%q", in)
		}
	}
	files, err := parseManifest([]byte(sum + "  sh/sh.wasm\n" + sum + "  python-3.11/lib/python3.11/os.py\n"))
	require.NoError(t, err)
	assert.Len(t, files, 2)
}

// TestBundleFetch installs from a loopback HTTP server: the bundle, a
// truncated download, redirects, errors and bounds.
func TestBundleFetch(t *testing.T) {
	bundle, digest := writeBundle(t, fakeInterpreters(t, "v1"), Shell)
	mux := http.NewServeMux()
	mux.HandleFunc("/bundle.tar.gz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(bundle) })
	mux.HandleFunc("/truncated.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		// Promise the whole bundle, send half, then drop the connection.
		w.Header().Set("Content-Length", fmt.Sprint(len(bundle)))
		_, _ = w.Write(bundle[:len(bundle)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscanf(r.URL.Path, "/redirect/%d", &n)
		if n == 0 {
			http.Redirect(w, r, "/bundle.tar.gz", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/downgrade", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com/bundle.tar.gz", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	opts := &BundleOptions{Digest: digest}

	dst := t.TempDir()
	ins, err := InstallBundleFrom(ctx, dst, srv.URL+"/bundle.tar.gz", opts)
	require.NoError(t, err)
	require.Len(t, ins, 1)
	_, err = InstallBundleFrom(ctx, t.TempDir(), srv.URL+"/redirect/3", opts)
	require.NoError(t, err, "a few redirects are followed")

	for path, want := range map[string]string{
		"/truncated.tar.gz": "the connection ended after",
		"/missing":          "404 Not Found",
		"/redirect/9":       "more than 5 redirects",
		"/downgrade":        "http is allowed only to a loopback address",
	} {
		dst := t.TempDir()
		_, err := InstallBundleFrom(ctx, dst, srv.URL+path, opts)
		if assert.Error(t, err, path) {
			assert.Contains(t, err.Error(), want, path)
		}
		left, _ := os.ReadDir(dst)
		assert.Empty(t, left, "%s: the download is removed", path)
	}
	for _, u := range []string{"http://example.com/b.tar.gz", "ftp://127.0.0.1/b"} {
		_, err := InstallBundleFrom(ctx, t.TempDir(), u, opts)
		assert.Error(t, err, u)
	}

	// The size bound, tried with a small one.
	err = fetch(ctx, srv.URL+"/bundle.tar.gz", io.Discard, int64(len(bundle)-1))
	assert.ErrorContains(t, err, fmt.Sprintf("is %d bytes (at most %d)", len(bundle), len(bundle)-1))
}
