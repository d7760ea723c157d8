package scripts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
)

// The compiled packages built into python.wasm (build-pypackages.sh:
// Pillow with libjpeg-turbo and zlib, lxml with libxml2 and libxslt) are
// checked against Debian's own python3-pil and python3-lxml: the same
// script, run in the sandbox and natively, must print the same and write
// byte-identical files. CI installs both Debian packages.

// nativePackages is /usr/bin/python3.11 if it can import every module
// named; without them the test skips, or fails when REQUIRE_TOOLCHAINS
// is set.
func nativePackages(t *testing.T, modules ...string) string {
	t.Helper()
	const python = "/usr/bin/python3.11"
	out, err := exec.Command(python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err != nil {
		msg := "native " + python + " with " + strings.Join(modules, ", ") + ": " + strings.TrimSpace(string(out)) + ": " + err.Error()
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s (REQUIRE_TOOLCHAINS=1: install Debian's python3-pil and python3-lxml)", msg)
		}
		t.Skip(msg)
	}
	return python
}

// requirePackages fails (or skips) when the installed python.wasm was
// built before the compiled packages.
func requirePackages(t *testing.T) {
	t.Helper()
	interpreters(t, interp.Python)
	dir, err := interp.DefaultDir()
	require.NoError(t, err)
	in, err := interp.Find(dir, interp.Python)
	require.NoError(t, err)
	for _, want := range interp.PythonPackages {
		found := false
		for _, p := range in.Packages {
			found = found || (p.Name == want.Name && p.Version == want.Version)
		}
		if !found {
			msg := "the installed python.wasm (" + in.Version + ") has no " + want.Name + " " + want.Version + "; run `make python`"
			if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// treeHashes maps every file under dir to its sha256.
func treeHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	}))
	return out
}

// sameAsNative runs testdata/packages/NAME in the sandbox and natively,
// each in an empty workspace, and requires the same exit status, stdout
// and files.
func sameAsNative(t *testing.T, name string, modules ...string) {
	python := nativePackages(t, modules...)
	requirePackages(t)
	src, err := os.ReadFile(filepath.Join("testdata", "packages", name))
	require.NoError(t, err)

	s := sourceSkill(t, `read = ["workspace"]`+"\n"+`write = ["workspace"]`, "scripts/"+name, map[string]string{"scripts/" + name: string(src)})
	wsWasm := t.TempDir()
	sr := &ScriptRun{}
	sr.Services.Workspace = wsWasm
	run := runSource(t, s, "main", interp.Python, sr)
	require.NoError(t, run.err)
	require.Zero(t, run.res.ExitCode, "stderr: %s", run.stderr)

	wsNative := t.TempDir()
	stdout, stderr, err := runNative(t, python, time.Minute, wsNative, filepath.Join(filepath.Dir(s.Location), "scripts", name))
	require.NoError(t, err, "native: %s", stderr)

	assert.Equal(t, stdout, run.stdout, "stdout differs from the native run")
	assert.Equal(t, treeHashes(t, wsNative), treeHashes(t, wsWasm), "the files written differ from the native run's")
}

// runNative runs script with python in dir, in the environment the
// community cases' expected output was made in, for at most timeout.
func runNative(t *testing.T, python string, timeout time.Duration, dir, script string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestPillowSameAsNative: drawing, the PNG, JPEG, GIF, BMP and TIFF
// codecs, resampling, filters and statistics print the same and write
// byte-identical files (libjpeg-turbo's C path is bit-exact with its
// SIMD one).
func TestPillowSameAsNative(t *testing.T) {
	sameAsNative(t, "pillow_ops.py", "PIL.Image")
}

// TestLxmlSameAsNative: parsing, XPath, serialising, XSLT, HTML,
// objectify, canonical XML and validation print the same and write the
// same file.
func TestLxmlSameAsNative(t *testing.T) {
	sameAsNative(t, "lxml_ops.py", "lxml.etree")
}

// TestMmapSameAsNative: skillrun's read-only mmap module (WASI has no
// mmap) reads, searches and seeks like the real one, and Pillow's PDF
// writer, which imports it, works.
func TestMmapSameAsNative(t *testing.T) {
	sameAsNative(t, "mmap_ops.py", "PIL.Image")
}
