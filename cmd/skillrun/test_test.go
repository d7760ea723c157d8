package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
)

// requireInterpreters makes sure the shell, JS and Python interpreters
// are installed (the first two built from this tree if needed), failing
// under REQUIRE_TOOLCHAINS and skipping otherwise when Python is not.
func requireInterpreters(t *testing.T) {
	t.Helper()
	dir, err := interp.DefaultDir()
	require.NoError(t, err)
	for _, lang := range []string{interp.JS, interp.JSTS, interp.Shell} {
		_, err := interp.Ensure(context.Background(), dir, lang, nil)
		require.NoError(t, err)
	}
	if _, err := interp.Find(dir, interp.Python); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		t.Skipf("%v; run `make python`", err)
	}
}

// TestExampleSkillTests: every example skill's own cases (tests/ in each
// skill) pass under `skillrun test`, run on a copy of examples/ whose
// modules are built from source; the report's text, JSON and JUnit forms
// agree.
func TestExampleSkillTests(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	if _, err := exec.LookPath("clang"); err != nil && os.Getenv("REQUIRE_TOOLCHAINS") == "" {
		t.Skip("clang for wasm32-wasi is not installed (the C examples)")
	}
	requireInterpreters(t)
	dir := filepath.Join(t.TempDir(), "examples")
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../examples")))
	var stdout, stderr bytes.Buffer
	for _, s := range []string{"csv-stats", "word-count", "todo-report", "extism-upper", "host-echo"} { // fetch-title builds only inside this module; its case is a denial before any run
		code := run([]string{"build", filepath.Join(dir, s)}, strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, 0, code, "build %s: %s", s, stderr.String())
	}
	cases, err := filepath.Glob("../../examples/*/tests/*.t*")
	require.NoError(t, err)
	n := 0
	for _, c := range cases {
		if !strings.HasSuffix(c, ".plan.toml") {
			n++
		}
	}
	require.GreaterOrEqual(t, n, 15)

	stdout.Reset()
	stderr.Reset()
	junit := filepath.Join(t.TempDir(), "report.xml")
	code := run([]string{"test", "--junit", junit, dir}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "ok   csv-stats/sales (")
	assert.Contains(t, stdout.String(), "ok   py-csv-report/report (")
	assert.Regexp(t, `ok: \d+ cases passed`, stdout.String())
	assert.Equal(t, n, strings.Count(stdout.String(), "\nok   ")+boolInt(strings.HasPrefix(stdout.String(), "ok   ")))
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	require.NoError(t, xml.Unmarshal(b, &suites))
	assert.Equal(t, n, suites.Tests)
	assert.Equal(t, 0, suites.Failures)

	// -run selects; --json is one document with nothing else on stdout.
	stdout.Reset()
	code = run([]string{"test", "--json", "-run", "word-count/", "--parallel", "1", dir}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var doc struct {
		Passed bool `json:"passed"`
		Cases  []struct {
			ID string `json:"id"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), stdout.String())
	assert.True(t, doc.Passed)
	require.Len(t, doc.Cases, 3)
	for _, c := range doc.Cases {
		assert.True(t, strings.HasPrefix(c.ID, "word-count/"), c.ID)
	}

	// A broken expectation fails the run (exit 1) with a diff, and the
	// other cases still pass.
	broken := filepath.Join(dir, "word-count", "tests", "file.txtar")
	b, err = os.ReadFile(broken)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(broken, bytes.Replace(b, []byte("notes.txt\n"), []byte("NOTES.txt\n"), 1), 0o644))
	stdout.Reset()
	code = run([]string{"test", "-run", "word-count", dir}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout.String(), "FAIL word-count/file (")
	assert.Contains(t, stdout.String(), "-       2       5      24 NOTES.txt")
	assert.Contains(t, stdout.String(), "ok   word-count/stdin (")
	assert.Contains(t, stdout.String(), "FAIL: 1 of 3 cases failed")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTestUsage: bad flags and paths are usage errors (exit 2), naming
// what is wrong.
func TestTestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "-run", "(", "../../examples/word-count"}, "-run: error parsing regexp"},
		{[]string{"test", "--parallel", "-1", "../../examples/word-count"}, "--parallel must be at least 1"},
		{[]string{"test", t.TempDir()}, "no skill there (no SKILL.md)"},
		{[]string{"test", "--nope"}, "unknown flag: --nope"},
		{[]string{"test", "--junit", t.TempDir(), "../../examples/release-notes"}, "--junit:"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr.String())
		assert.Contains(t, stderr.String(), c.want, c.args)
	}
}

// TestTestFolderWithoutSkill: a folder that holds no skill among others
// is reported like go test's "[no test files]" and the rest still run;
// only a command that names no skill at all is a usage error.
func TestTestFolderWithoutSkill(t *testing.T) {
	empty := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"test", empty, "../../examples/release-notes"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "?    "+empty+" [no skill]")
	assert.Contains(t, stdout.String(), "ok   release-notes/")
}

// TestTestJUnitSymlink: a --junit path that is a symlink (planted in a
// stranger's project, say to ~/.bashrc) is refused, and its target is
// left as it was.
func TestTestJUnitSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "bashrc")
	require.NoError(t, os.WriteFile(target, []byte("keep\n"), 0o644))
	link := filepath.Join(dir, "report.xml")
	require.NoError(t, os.Symlink(target, link))
	var stdout, stderr bytes.Buffer
	code := run([]string{"test", "--junit", link, "../../examples/release-notes"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 2, code, stderr.String())
	assert.Contains(t, stderr.String(), "--junit:")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(b))
}

// TestGoTestSpelling: -run as go test spells it reaches --run, and only
// for the test verb, before "--".
func TestGoTestSpelling(t *testing.T) {
	assert.Equal(t, []string{"test", "--run", "x", "-v"}, goTestSpelling([]string{"test", "-run", "x", "-v"}))
	assert.Equal(t, []string{"test", "--run=x"}, goTestSpelling([]string{"test", "-run=x"}))
	assert.Equal(t, []string{"run", "-run"}, goTestSpelling([]string{"run", "-run"}))
	assert.Equal(t, []string{"test", "--", "-run"}, goTestSpelling([]string{"test", "--", "-run"}))
}
