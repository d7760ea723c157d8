package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
)

// The packages' own test suites, run inside the sandbox on the build's
// copies of them (build-pypackages.sh installs them beside python.wasm,
// under tests/): lxml's test modules through their test_suite()
// functions, Pillow's Tests with Debian's pytest (its pure-Python files,
// copied from python3-pytest, which CI installs). Every failure must be
// one that a native run of the same suite on Debian's python3-lxml and
// python3-pil has too, or one of the explained ones below: a limit of
// WebAssembly or of the sandbox, never a wrong result. `make test` runs all of lxml's and a
// part of Pillow's; `make test-packages` (SKILLRUN_PACKAGE_SUITES=full)
// runs all of Pillow's.

// explained maps a piece of a failure's test id or reason to why it
// fails in the sandbox and not natively.
type explained struct{ match, why string }

var suiteExplained = []explained{
	{"can't start new thread", "WASI preview 1 has no threads"},
	{"no sockets", "Python scripts have no network in the sandbox"},
	{"test_http_io", "Python scripts have no network in the sandbox"},
	{"no attribute 'getuid'", "WASI has no users"},
}

// suiteRun runs the Python script runner (in testdata/packages) with
// the folder tests/<suite> of the installed interpreter copied into the
// workspace at into ("" for its top), after prepare (nil: nothing) has
// added to the workspace, in the sandbox and natively (Debian's
// python3.11 and packages, in a copy of the same workspace); it returns
// both stdouts.
func suiteRun(t *testing.T, suite, into, runner string, prepare func(ws string), args ...string) (string, string) {
	t.Helper()
	requirePackages(t)
	dir, err := interp.DefaultDir()
	require.NoError(t, err)
	in, err := interp.Find(dir, interp.Python)
	require.NoError(t, err)
	ws := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(ws, into), os.DirFS(filepath.Join(in.Dir, "tests", suite))))
	if prepare != nil {
		prepare(ws)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "packages", runner))
	require.NoError(t, err)
	files := map[string]string{"scripts/" + runner: string(src)}
	s := sourceSkill(t, "read = [\"workspace\"]\nwrite = [\"workspace\"]\nmemory = \"2GiB\"\ntimeout = \"30m\"\noutput = \"64MiB\"",
		"scripts/"+runner, files)
	sr := &ScriptRun{Args: args}
	sr.Services.Workspace = ws
	run := runSource(t, s, "main", interp.Python, sr)
	require.NoError(t, run.err, "stderr: %s", run.stderr)
	t.Logf("%s: exit %d", suite, run.res.ExitCode)

	native := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(native, into), os.DirFS(filepath.Join(in.Dir, "tests", suite))))
	if prepare != nil {
		prepare(native)
	}
	// A suite with failures exits 1: its output says which.
	out, _, _ := runNative(t, "/usr/bin/python3.11", 30*time.Minute, native, filepath.Join(filepath.Dir(s.Location), "scripts", runner), args...)
	return run.stdout, out
}

// failures returns the failure lines of a runner's output (prefixes
// "FAILED " or "ERROR "), by test id: the text before sep.
func failures(out, sep string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") {
			id, _, _ := strings.Cut(l, sep)
			m[id] = l
		}
	}
	return m
}

// unexplained returns the sandbox's failure lines that the native run
// does not have and that no suiteExplained entry (or extra) covers, and
// logs how many each explanation covers.
func unexplained(t *testing.T, wasm, native map[string]string, extra ...explained) []string {
	var out []string
	counts := map[string]int{}
	for id, l := range wasm {
		if _, ok := native[id]; ok {
			counts["fails natively too"]++
			continue
		}
		ok := false
		for _, e := range append(extra, suiteExplained...) {
			if !ok && strings.Contains(l, e.match) {
				ok = true
				counts[e.why]++
			}
		}
		if !ok {
			out = append(out, l)
		}
	}
	for why, n := range counts {
		t.Logf("%4d failures: %s", n, why)
	}
	return out
}

// TestLxmlSuite: lxml 4.9.2's test modules, 1,000 and more tests.
func TestLxmlSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs lxml's own test suite (35 s); the full suite runs it")
	}
	skipUnderRace(t)
	nativePackages(t, "lxml.etree")
	modules := []string{"test_etree", "test_elementtree", "test_xpathevaluator", "test_xslt", "test_objectify",
		"test_htmlparser", "test_io", "test_unicode", "test_dtd", "test_xmlschema", "test_relaxng", "test_schematron",
		"test_isoschematron", "test_nsclasses", "test_classlookup", "test_pyclasslookup", "test_sax", "test_builder",
		"test_elementpath", "test_errors", "test_incremental_xmlfile", "test_external_document", "test_threading",
		"test_http_io"}
	out, nativeOut := suiteRun(t, "lxml", "", "lxml_suite.py", nil, modules...)
	total := regexp.MustCompile(`(?m)^total run (\d+) failures (\d+) errors (\d+) skipped (\d+)$`)
	m := total.FindStringSubmatch(out)
	require.NotNil(t, m, "no total line in:\n%s", out)
	run, _ := strconv.Atoi(m[1])
	wasm, native := failures(out, ": "), failures(nativeOut, ": ")
	t.Logf("lxml suite in the sandbox: %s; natively: %s", m[0], total.FindString(nativeOut))
	assert.GreaterOrEqual(t, run, 1000, "lxml's suite ran too few tests:\n%s", out)
	assert.Empty(t, unexplained(t, wasm, native), "failures in the sandbox only, unexplained")
}

// pillowFast is the part of Pillow's Tests that `make test` runs: the
// image core and the codecs built in.
var pillowFast = []string{
	"Tests/test_image.py", "Tests/test_imagedraw.py", "Tests/test_file_png.py",
	"Tests/test_file_jpeg.py", "Tests/test_file_gif.py", "Tests/test_decompression_bomb.py",
}

// TestPillowSuite: Pillow 9.4.0's Tests under pytest.
func TestPillowSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs Pillow's own test suite (35 s); the full suite runs it")
	}
	skipUnderRace(t)
	nativePackages(t, "PIL.Image", "pytest")
	targets := pillowFast
	if os.Getenv("SKILLRUN_PACKAGE_SUITES") == "full" {
		targets = []string{"Tests"}
	}
	out, nativeOut := pillowSuite(t, targets)
	summary := regexp.MustCompile(`(?m)^=* ?(?:(\d+) failed, )?(\d+) passed(.*) in [0-9.]+s`)
	m := summary.FindStringSubmatch(out)
	require.NotNil(t, m, "no pytest summary in:\n%s", out)
	passed, _ := strconv.Atoi(m[2])
	wasm, native := failures(out, " - "), failures(nativeOut, " - ")
	t.Logf("Pillow suite (%s) in the sandbox: %s; natively: %s", strings.Join(targets, " "),
		strings.Trim(m[0], "= "), strings.Trim(summary.FindString(nativeOut), "= "))
	assert.GreaterOrEqual(t, passed, 250, "Pillow's suite passed too few tests:\n%s", out)
	assert.Empty(t, unexplained(t, wasm, native, pillowExplained...), "failures in the sandbox only, unexplained")
}

// pillowExplained are Pillow's tests that fail in the sandbox for a
// reason of the build or the sandbox.
var pillowExplained = []explained{
	{"_imagingcms", "lcms2 (colour management, ImageCms) is not built"},
	{"_imagingft", "FreeType (ImageFont.truetype) is not built"},
	{"decoder libtiff not available", "libtiff is not built; Pillow's own TIFF code reads uncompressed and packbits TIFFs"},
	{"No module named 'resource'", "WASI has no resource module (the test measures memory leaks)"},
}

// pillowSuite copies the pure-Python files of Debian's pytest next to
// Pillow's Tests and runs them.
func pillowSuite(t *testing.T, targets []string) (string, string) {
	t.Helper()
	return suiteRun(t, "pillow", "Tests", "pillow_suite.py", func(ws string) {
		for _, p := range []string{"_pytest", "pytest", "pluggy", "iniconfig", "attr", "py.py", "packaging"} {
			from := filepath.Join("/usr/lib/python3/dist-packages", p)
			fi, err := os.Stat(from)
			require.NoError(t, err, "Debian's python3-pytest (CI installs it)")
			if fi.IsDir() {
				require.NoError(t, os.CopyFS(filepath.Join(ws, "_lib", p), os.DirFS(from)))
			} else {
				data, err := os.ReadFile(from)
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Join(ws, "_lib"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(ws, "_lib", p), data, 0o644))
			}
		}
	}, targets...)
}
