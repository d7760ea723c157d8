package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
)

// TestInterpreterBundle takes the real shell and JavaScript interpreters
// from a machine that built them to one that has none, as a user without
// toolchains would: `interpreters bundle`, served by a loopback HTTP
// server, `interpreters install --from URL` into an empty cache, then a
// shell script that also runs node. A bundle with one byte of sh.wasm
// changed, a truncated download and a missing digest install nothing.
func TestInterpreterBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	skipUnderRace(t)
	built, err := interp.DefaultDir()
	require.NoError(t, err)
	for _, lang := range []string{interp.Shell, interp.JS} {
		_, err := interp.Ensure(context.Background(), built, lang, nil)
		require.NoError(t, err)
	}

	file := filepath.Join(t.TempDir(), "skillrun-interpreters.tar.gz")
	var stdout, stderr bytes.Buffer
	code := run([]string{"interpreters", "bundle", "-o", file, "--dir", built, "sh", "js"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	digest := strings.TrimSpace(stdout.String())
	require.Len(t, digest, 64)
	bundle, err := os.ReadFile(file)
	require.NoError(t, err)
	tampered := alterBundleFile(t, bundle, "sh/sh.wasm")

	mux := http.NewServeMux()
	serve := func(path string, body []byte) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) })
	}
	serve("/good.tar.gz", bundle)
	serve("/tampered.tar.gz", tampered)
	mux.HandleFunc("/truncated.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "999999999")
		_, _ = w.Write(bundle[:len(bundle)/3])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	// A machine with nothing installed: its own user cache folder.
	install := func(args ...string) (int, string, string) {
		t.Helper()
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"interpreters", "install"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	installed := func() []string {
		dir, err := interp.DefaultDir()
		require.NoError(t, err)
		var langs []string
		for _, in := range interp.List(dir) {
			langs = append(langs, in.Language)
		}
		return langs
	}

	for name, c := range map[string]struct {
		args []string
		code int
		want string
	}{
		"tampered":  {[]string{"--from", srv.URL + "/tampered.tar.gz", "--sha256", digest}, 1, "bundle file sh/sh.wasm has SHA-256"},
		"truncated": {[]string{"--from", srv.URL + "/truncated.tar.gz", "--sha256", digest}, 1, "the connection ended after"},
		"no digest": {[]string{"--from", srv.URL + "/good.tar.gz"}, 1, "pass the digest published with the bundle (--sha256)"},
		"no bundle": {[]string{"--sha256", digest}, 2, "--sha256 verifies a bundle"},
		"not http":  {[]string{"--from", "ftp://127.0.0.1/x.tar.gz", "--sha256", digest}, 1, "no such file"},
		"unknown":   {[]string{"cobol", "--from", file, "--sha256", digest}, 2, `no interpreter "cobol"`},
	} {
		code, _, stderr := install(c.args...)
		assert.Equal(t, c.code, code, "%s: %s", name, stderr)
		assert.Contains(t, stderr, c.want, name)
		assert.Empty(t, installed(), "%s: nothing installed", name)
	}

	code, out, errOut := install("--from", srv.URL+"/good.tar.gz", "--sha256", digest)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "installed sh (")
	assert.Contains(t, out, "installed js (")
	assert.Equal(t, []string{interp.JS, interp.Shell}, installed())

	// The compile cache is keyed by the modules' content: this machine's
	// has them already, as a second run on the new machine would.
	home, err := os.UserCacheDir()
	require.NoError(t, err)
	require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(built)), "skillrun", "wazero"), filepath.Join(home, "skillrun", "wazero")))
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"interpreters", "compile"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	ws := t.TempDir()
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"shell", "--workspace", ws, "-A", "-c", `printf 'b\na\n' | sort | tr a-z A-Z; node -e 'console.log([1, 2, 3].map(x => x * 2).join(","))'`},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Equal(t, "A\nB\n2,4,6\n", stdout.String())
	assert.NotContains(t, stderr.String(), "building", "the installed interpreters are used, not rebuilt")
}

// alterBundleFile returns bundle with one byte of the file name changed,
// its manifest untouched.
func alterBundleFile(t *testing.T, bundle []byte, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(bundle))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	found := false
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		if h.Name == name {
			body[len(body)/2] ^= 0xff
			found = true
		}
		require.NoError(t, tw.WriteHeader(h))
		_, err = tw.Write(body)
		require.NoError(t, err)
	}
	require.True(t, found, "no %s in the bundle", name)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return out.Bytes()
}
