package skilltest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// runner is one scripts.Runner for the package's tests, with the shell
// interpreter (built from this tree if needed) in the user cache dir.
var runner = sync.OnceValues(func() (*scripts.Runner, error) {
	dir, err := interp.DefaultDir()
	if err != nil {
		return nil, err
	}
	if _, err := interp.Ensure(context.Background(), dir, interp.Shell, nil); err != nil {
		return nil, err
	}
	return scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.InstalledInterpreters(dir)})
})

// newSkill writes a skill without skill.toml (its scripts declare: read
// the skill, read and write the workspace) with files, and loads it.
func newSkill(t *testing.T, name string, files map[string]string) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files["SKILL.md"] = "---\nname: " + name + "\ndescription: Counts the lines of text files in the workspace, like wc -l.\n---\nRun `sh scripts/lines.sh FILE`.\n"
	for n, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	s, err := skills.Load(dir, nil)
	require.NoError(t, err)
	return s
}

// runAll loads and runs every case of s.
func runAll(t *testing.T, s *skills.Skill, r *Runner) map[string]*Result {
	t.Helper()
	rt, err := runner()
	require.NoError(t, err)
	r.Scripts = rt
	cases, err := Load(s)
	require.NoError(t, err)
	out := map[string]*Result{}
	for _, res := range r.Run(context.Background(), cases, nil) {
		out[res.Case.Name] = res
	}
	return out
}

const linesScript = "for f in \"$@\"; do n=$(wc -l < \"$f\"); echo \"$n $f\"; done\n"

func TestScriptCases(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		// Passes: exact stdout, the grant it needs.
		"tests/pass.txtar": "script = \"scripts/lines.sh\"\nargs = [\"a.txt\"]\n[grant]\nread = [\"workspace\"]\n" +
			"-- workspace/a.txt --\n1\n2\n-- stdout --\n2 a.txt\n",
		// Fails: the wrong output, shown as a diff.
		"tests/wrong.toml": "script = \"scripts/lines.sh\"\nargs = [\"a.txt\"]\n[grant]\nread = [\"workspace\"]\n[files]\n\"a.txt\" = \"1\\n\"\n[expect]\nstdout = \"5 a.txt\\n\"\n",
		// A command line in the shell, writing the file it is expected to.
		"tests/command.toml": "command = \"sh /skills/lines/scripts/lines.sh a.txt > out.txt\"\n[grant]\nall = true\n[files]\n\"a.txt\" = \"x\\n\"\n[expect.files]\n\"out.txt\" = \"1 a.txt\\n\"\n",
		// Fails: it writes a file no expectation names.
		"tests/stray.toml": "command = \"echo hi > stray.txt; rm gone.txt\"\n[grant]\nall = true\n[files]\n\"gone.txt\" = \"x\"\n[expect]\ndeleted = [\"gone.txt\"]\n",
		// Passes: the same write, ignored.
		"tests/ignored.toml": "command = \"mkdir -p cache && echo hi > cache/x\"\n[grant]\nall = true\n[expect]\nignore = [\"cache\"]\n",
		// Exit status and stderr checks.
		"tests/status.toml": "command = \"echo oops >&2; exit 3\"\n[grant]\nall = true\n[expect]\nexit = 3\nstderr_matches = '^oo'\nstderr_contains = [\"oops\"]\n",
		// No grant at all: denied before it runs, as `skillrun run` does.
		"tests/denied.toml": "script = \"scripts/lines.sh\"\nargs = [\"a.txt\"]\n[expect]\nexit = 126\nstderr_contains = [\"not granted\", \"--allow-read=skill,workspace\"]\n",
	})
	got := runAll(t, s, &Runner{Parallel: 4})
	for _, name := range []string{"pass", "command", "ignored", "status", "denied"} {
		require.Contains(t, got, name)
		assert.True(t, got[name].Passed, "%s: %v", name, got[name].Failures)
	}
	require.False(t, got["wrong"].Passed)
	assert.Contains(t, got["wrong"].Failures[0], "stdout differs:")
	assert.Contains(t, got["wrong"].Failures[0], "-5 a.txt")
	assert.Contains(t, got["wrong"].Failures[0], "+1 a.txt")
	require.False(t, got["stray"].Passed)
	assert.Equal(t, []string{"stray.txt was created, and no expectation names it (list it under [expect.files], deleted or ignore)"}, got["stray"].Failures)
}

// TestBadCases: a case file that cannot run fails alone, naming the file,
// the line and what to write instead; the other cases still run.
func TestBadCases(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh":           linesScript,
		"tests/good.toml":            "command = \"true\"\n[grant]\nall = true\n",
		"tests/unknown.toml":         "script = \"scripts/lines.sh\"\n\n[expect]\nstdot = \"x\"\n",
		"tests/two.toml":             "script = \"scripts/lines.sh\"\ncommand = \"true\"\n",
		"tests/none.toml":            "args = [\"x\"]\n",
		"tests/outside.toml":         "command = \"true\"\n[expect.files]\n\"../escape.txt\" = \"x\"\n",
		"tests/abs.toml":             "command = \"true\"\nworkspace = \"/etc\"\n",
		"tests/regexp.toml":          "command = \"true\"\n[expect]\nstdout_matches = \"(\"\n",
		"tests/syntax.toml":          "command = \"true\n",
		"tests/files.txtar":          "command = \"true\"\n-- bogus --\nx\n",
		"tests/missing-script.toml":  "script = \"scripts/nope.py\"\n[grant]\nall = true\n",
		"tests/missing-fixture.toml": "command = \"true\"\nworkspace = \"tests/fixtures/none\"\n",
		"tests/widen.toml":           "command = \"true\"\n[grant]\nread = [\"skill\"]\n",
		"tests/huge.toml":            "command = \"true\"\n# " + strings.Repeat("x", maxCaseFile) + "\n",
	})
	got := runAll(t, s, &Runner{})
	assert.True(t, got["good"].Passed, "%v", got["good"].Failures)
	for name, want := range map[string]string{
		"unknown":         `unknown.toml:4: unknown key "expect.stdot"; did you mean "stdout"?`,
		"two":             "give one of script, command, [trigger] and plan, not script and command",
		"none":            "the case runs nothing",
		"outside":         `expected file "../escape.txt" leads outside its folder`,
		"abs":             `workspace: "/etc" is absolute`,
		"regexp":          "stdout_matches: error parsing regexp",
		"syntax":          "syntax.toml:1: invalid TOML",
		"files":           `unknown file "bogus"`,
		"missing-script":  "nope.py",
		"missing-fixture": `workspace "tests/fixtures/none"`,
		"widen":           "[grant]",
		"huge":            "larger than the limit of 4 MiB",
	} {
		require.Contains(t, got, name)
		assert.False(t, got[name].Passed, name)
		assert.Contains(t, strings.Join(got[name].Failures, "\n"), want, name)
	}
}

// TestCaseTimeoutAndFlood: a case that hangs ends at its timeout (124),
// and a flood of output ends at the run's output limit (125), not kept
// whole.
func TestCaseTimeoutAndFlood(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		"tests/hang.toml":  "command = \"while true; do :; done\"\ntimeout = \"1s\"\n[grant]\nall = true\n[expect]\nexit = 124\n",
		"tests/flood.toml": "command = \"yes 0123456789abcdef | head -c 40000000\"\n[grant]\nall = true\n",
	})
	got := runAll(t, s, &Runner{Parallel: 2})
	assert.True(t, got["hang"].Passed, "%v", got["hang"].Failures)
	// The run's output limit (the shell's 16 MiB) ends it: 125, said, and
	// no more than that kept.
	flood := got["flood"]
	assert.False(t, flood.Passed)
	assert.Equal(t, exitSandbox, flood.ExitCode)
	assert.Contains(t, strings.Join(flood.Failures, "\n"), "output limit")
	assert.LessOrEqual(t, len(flood.Stdout), maxCapture+100)
}

// TestFixtureIsolation: cases that write into the same fixture each get
// their own copy; the skill's fixture folder never changes.
func TestFixtureIsolation(t *testing.T) {
	files := map[string]string{"scripts/lines.sh": linesScript, "tests/fixtures/ws/data.txt": "start\n"}
	for i := range 8 {
		files["tests/w"+string(rune('0'+i))+".toml"] = "command = \"cat data.txt; echo more >> data.txt\"\nworkspace = \"tests/fixtures/ws\"\n[grant]\nall = true\n[expect]\nstdout = \"start\\n\"\n[expect.files]\n\"data.txt\" = \"start\\nmore\\n\"\n"
	}
	s := newSkill(t, "lines", files)
	got := runAll(t, s, &Runner{Parallel: 4})
	require.Len(t, got, 8)
	for name, res := range got {
		assert.True(t, res.Passed, "%s: %v", name, res.Failures)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(s.Location), "tests", "fixtures", "ws", "data.txt"))
	require.NoError(t, err)
	assert.Equal(t, "start\n", string(b))
}

// TestFixtureSymlinkEscape: a fixture folder that is a symlink out of the
// skill is refused (os.Root), not copied.
func TestFixtureSymlinkEscape(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		"tests/link.toml":  "command = \"ls\"\nworkspace = \"tests/out\"\n[grant]\nall = true\n",
	})
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(filepath.Dir(s.Location), "tests", "out")))
	got := runAll(t, s, &Runner{})
	require.False(t, got["link"].Passed)
	assert.Contains(t, strings.Join(got["link"].Failures, "\n"), `workspace "tests/out"`)
	assert.NotContains(t, got["link"].Stdout, "secret")
}

// TestUpdate: --update rewrites exact expectations from the run, keeping
// the rest of the file (comments included), in TOML and txtar cases.
func TestUpdate(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		"tests/t.toml": "# keep this comment\ncommand = \"printf 'a\\\\nb\\\\n'; printf x > out.txt\"\n[grant]\nall = true # and this\n\n[expect]\nstdout = \"old\"\nexit = 0\n" +
			"[expect.files]\n\"out.txt\" = '''\nold\n'''\n",
		"tests/t.txtar": "# a txtar case\ncommand = \"echo new; echo err >&2\"\n[grant]\nall = true\n-- stdout --\nold\n-- stderr --\nold\n",
	})
	got := runAll(t, s, &Runner{Update: true})
	for name, res := range got {
		assert.True(t, res.Passed, "%s: %v", name, res.Failures)
		assert.NotEmpty(t, res.Updated, name)
	}
	dir := filepath.Join(filepath.Dir(s.Location), "tests")
	b, err := os.ReadFile(filepath.Join(dir, "t.toml"))
	require.NoError(t, err)
	assert.Equal(t, "# keep this comment\ncommand = \"printf 'a\\\\nb\\\\n'; printf x > out.txt\"\n[grant]\nall = true # and this\n\n[expect]\nstdout = '''\na\nb\n'''\nexit = 0\n"+
		"[expect.files]\n\"out.txt\" = \"x\"\n", string(b))
	b, err = os.ReadFile(filepath.Join(dir, "t.txtar"))
	require.NoError(t, err)
	assert.Equal(t, "# a txtar case\ncommand = \"echo new; echo err >&2\"\n[grant]\nall = true\n-- stdout --\nnew\n-- stderr --\nerr\n", string(b))

	// Run again without --update: the rewritten cases pass.
	got = runAll(t, s, &Runner{})
	for name, res := range got {
		assert.True(t, res.Passed, "%s: %v", name, res.Failures)
	}
}

func TestTriggerCases(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		"tests/ok.toml":    "[trigger]\nshould = [\"count the lines of my text files\"]\nshould_not = [\"translate French poetry\"]\n",
		"tests/bad.toml":   "[trigger]\nshould = [\"translate French poetry\"]\nshould_not = [\"lines of text files\"]\ntop = 1\n",
	})
	other := newSkill(t, "translate", map[string]string{})
	rt, err := runner()
	require.NoError(t, err)
	cases, err := Load(s)
	require.NoError(t, err)
	results := (&Runner{Scripts: rt, Catalog: []*skills.Skill{s, other}}).Run(context.Background(), cases, nil)
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Case.Name] = r
	}
	assert.True(t, byName["ok"].Passed, "%v", byName["ok"].Failures)
	require.False(t, byName["bad"].Passed)
	assert.Contains(t, byName["bad"].Failures[0], `"translate French poetry" does not find lines in the top 1`)
	assert.Contains(t, byName["bad"].Failures[1], `"lines of text files" finds lines at rank 1`)
}

// TestReports: the text, JSON and JUnit reports say the same thing, and
// -run (Match) selects cases.
func TestReports(t *testing.T) {
	s := newSkill(t, "lines", map[string]string{
		"scripts/lines.sh": linesScript,
		"tests/a.toml":     "command = \"echo a\"\n[grant]\nall = true\n[expect]\nstdout = \"a\\n\"\n",
		"tests/b.toml":     "command = \"echo b\"\n[grant]\nall = true\n[expect]\nstdout = \"not b\\n\"\n",
		"tests/c.toml":     "command = \"echo c\"\n[grant]\nall = true\n",
	})
	rt, err := runner()
	require.NoError(t, err)
	cases, err := Load(s)
	require.NoError(t, err)
	var text bytes.Buffer
	results := (&Runner{Scripts: rt, Match: regexp.MustCompile(`/(a|b)$`)}).Run(context.Background(), cases, func(r *Result) { PrintResult(&text, r, false) })
	sum := Summarize(results, 0)
	assert.Equal(t, Summary{Passed: 1, Failed: 1, Skipped: 1}, sum)
	PrintSummary(&text, sum)
	assert.Regexp(t, `(?s)\Aok   lines/a \(\d+\.\d\ds\)\nFAIL lines/b \(\d+\.\d\ds\)\n    stdout differs:\n.*FAIL: 1 of 2 cases failed`, text.String())

	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, results, sum))
	var doc struct {
		Passed bool `json:"passed"`
		Cases  []struct {
			ID       string   `json:"id"`
			Passed   bool     `json:"passed"`
			Failures []string `json:"failures"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.False(t, doc.Passed)
	require.Len(t, doc.Cases, 2)
	assert.Equal(t, "lines/b", doc.Cases[1].ID)
	assert.False(t, doc.Cases[1].Passed)

	var ju bytes.Buffer
	require.NoError(t, WriteJUnit(&ju, results, sum))
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(ju.Bytes(), &suites))
	assert.Equal(t, 2, suites.Tests)
	assert.Equal(t, 1, suites.Failures)
	require.Len(t, suites.Suites, 1)
	assert.Equal(t, "lines", suites.Suites[0].Name)
	require.Len(t, suites.Suites[0].Cases, 2)
	require.NotNil(t, suites.Suites[0].Cases[1].Failure)
	assert.Equal(t, "stdout differs:", suites.Suites[0].Cases[1].Failure.Message)
}
