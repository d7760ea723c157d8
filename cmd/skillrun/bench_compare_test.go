package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchRunR1 runs the example sets over the example tasks with the
// scripted provider into a new folder, as run id r1.
func benchRunR1(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "run", benchTasks, "--sets", benchSets, "--out", out, "--resume", "r1"},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	return out
}

func runCompare(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"bench", "compare"}, args...), strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// comparisonJSON is the part of `bench compare --json` the tests read.
type comparisonJSON struct {
	Baseline string `json:"baseline"`
	Sets     []struct {
		Name   string `json:"name"`
		Totals struct {
			NResolved int `json:"n_resolved"`
		} `json:"totals"`
		Skills struct {
			Activated bool     `json:"activated"`
			Loaded    []string `json:"loaded"`
			NeverUsed []string `json:"never_used"`
		} `json:"skills"`
	} `json:"sets"`
	Paired []struct {
		Treatment  string `json:"treatment"`
		NTasks     int    `json:"n_tasks"`
		Difference *struct {
			Estimate float64 `json:"estimate"`
			Low      float64 `json:"ci_low"`
			High     float64 `json:"ci_high"`
		} `json:"difference"`
		McNemar struct {
			NPairs int     `json:"n_pairs"`
			B      int     `json:"b"`
			C      int     `json:"c"`
			P      float64 `json:"p_value"`
		} `json:"mcnemar"`
	} `json:"paired"`
}

// TestBenchCompare: one run of the examples, compared every way.
func TestBenchCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	out := benchRunR1(t)
	t.Run("numbers", func(t *testing.T) { testCompareNumbers(t, out) })
	t.Run("formats", func(t *testing.T) { testCompareFormats(t, out) })
	t.Run("refuses", func(t *testing.T) { testCompareRefuses(t, out) })
}

// testCompareNumbers: the example skills resolve the three report tasks
// the baseline cannot: +0.5 with an interval, McNemar b=0 c=3, p=0.25,
// and the skills were activated; the same from a run id, set folders or
// the folder holding them, the same for the same seed.
func testCompareNumbers(t *testing.T, out string) {
	code, stdout, stderr := runCompare(t, "r1", "--out", out, "--json")
	require.Equal(t, 0, code, stderr)
	var c comparisonJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &c), stdout)
	assert.Equal(t, "no-plugins", c.Baseline)
	require.Len(t, c.Sets, 2)
	assert.Equal(t, 3, c.Sets[0].Totals.NResolved)
	assert.Equal(t, 6, c.Sets[1].Totals.NResolved)
	require.Len(t, c.Paired, 1)
	p := c.Paired[0]
	assert.Equal(t, "example-skills", p.Treatment)
	assert.Equal(t, 6, p.NTasks)
	require.NotNil(t, p.Difference)
	assert.InDelta(t, 0.5, p.Difference.Estimate, 1e-12)
	assert.Greater(t, p.Difference.Low, 0.0, "every task the baseline resolves, the skills resolve too")
	assert.Less(t, p.Difference.Low, 0.5)
	assert.Greater(t, p.Difference.High, 0.5)
	assert.LessOrEqual(t, p.Difference.High, 1.0)
	assert.Equal(t, 6, p.McNemar.NPairs)
	assert.Equal(t, 0, p.McNemar.B)
	assert.Equal(t, 3, p.McNemar.C)
	assert.InDelta(t, 0.25, p.McNemar.P, 1e-12)
	skills := c.Sets[1].Skills
	assert.True(t, skills.Activated)
	assert.Equal(t, []string{"js-csv-report", "py-csv-report", "todo-py"}, skills.Loaded, "the names from run_config.yaml")
	assert.Empty(t, skills.NeverUsed)

	// What a shell makes of `bench compare OUT/r1*`: the result folders,
	// not the run's lock (sets listed in the order named, so only the
	// comparison is the same).
	glob, err := filepath.Glob(filepath.Join(out, "r1*"))
	require.NoError(t, err)
	code, globbed, stderr := runCompare(t, append(glob, "--baseline", "no-plugins", "--json")...)
	require.Equal(t, 0, code, stderr)
	var g comparisonJSON
	require.NoError(t, json.Unmarshal([]byte(globbed), &g), globbed)
	assert.Equal(t, c.Paired, g.Paired, "the same comparison from a shell's r1*")

	for _, args := range [][]string{
		{filepath.Join(out, "r1__no-plugins"), filepath.Join(out, "r1__example-skills")},
		{out},
		{"r1", "--out", out, "--seed", "1"},
	} {
		code, again, stderr := runCompare(t, append(args, "--json")...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, stdout, again, "%v", args)
	}
	code, other, _ := runCompare(t, "r1", "--out", out, "--json", "--seed", "2")
	require.Equal(t, 0, code)
	assert.Contains(t, other, `"seed": 2`)

	// The other set as baseline: the difference changes sign.
	code, stdout, stderr = runCompare(t, "r1", "--out", out, "--json", "--baseline", "example-skills")
	require.Equal(t, 0, code, stderr)
	c = comparisonJSON{}
	require.NoError(t, json.Unmarshal([]byte(stdout), &c))
	assert.InDelta(t, -0.5, c.Paired[0].Difference.Estimate, 1e-12)
	assert.Equal(t, 3, c.Paired[0].McNemar.B)
}

// testCompareFormats: the table, the TSV and the HTML page.
func testCompareFormats(t *testing.T, out string) {
	code, stdout, stderr := runCompare(t, "r1", "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "no-plugins (baseline)")
	assert.Regexp(t, `example-skills\s+6\s+\+0\.50\s+\[\+0\.\d\d, \+\d\.\d\d\]\s+0/3\s+0\.2500\s+3/6 trials \(50\.0%\)`, stdout)

	code, stdout, stderr = runCompare(t, "r1", "--out", out, "--tsv")
	require.Equal(t, 0, code, stderr)
	sets, paired, ok := strings.Cut(stdout, "\n\n")
	require.True(t, ok, stdout)
	assert.Len(t, strings.Split(strings.TrimSpace(sets), "\n"), 3)
	assert.Len(t, strings.Split(strings.TrimSpace(paired), "\n"), 2)
	assert.True(t, strings.HasPrefix(paired, "treatment\tbaseline\t"))
	assert.Contains(t, paired, "\nexample-skills\tno-plugins\t6\t0.5\t")

	page := filepath.Join(t.TempDir(), "report", "compare.html")
	code, stdout, stderr = runCompare(t, "r1", "--out", out, "--html", page, "--json")
	require.Equal(t, 0, code, stderr)
	assert.True(t, json.Valid([]byte(stdout)), "stdout stays JSON")
	assert.Contains(t, stderr, "wrote "+page)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), `<svg class="metric"`)
	assert.NotContains(t, string(b), "http://")
	assert.NotContains(t, string(b), "https://")
	fi, err := os.Stat(page)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}

// testCompareRefuses: every mistake exits 2, saying what to do, and
// nothing is written through a symlink.
func testCompareRefuses(t *testing.T, out string) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	link := filepath.Join(dir, "page.html")
	require.NoError(t, os.Symlink(victim, link))
	unfinished := filepath.Join(dir, "runs", "r2__a")
	require.NoError(t, os.MkdirAll(unfinished, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(unfinished, "run_config.yaml"), []byte("schema: x\n"), 0o644))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown baseline", []string{"r1", "--out", out, "--baseline", "nope"}, `baseline "nope" is not one of the sets: "no-plugins", "example-skills"`},
		{"same set twice", []string{"r1", "r1", "--out", out}, `two sets named "no-plugins"`},
		{"no such run", []string{"r9", "--out", out}, "no run r9 in " + out},
		{"no such folder", []string{filepath.Join(dir, "none")}, "no such folder"},
		{"empty folder", []string{t.TempDir()}, "no results.json"},
		{"unfinished run", []string{"r2", "--out", filepath.Join(dir, "runs")}, "its run has not ended"},
		{"json and tsv", []string{"r1", "--out", out, "--json", "--tsv"}, "choose one"},
		{"html symlink", []string{"r1", "--out", out, "--html", link}, "is a symlink"},
		{"html folder", []string{"r1", "--out", out, "--html", dir}, "not a file"},
		{"no args", nil, "requires at least 1 arg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCompare(t, c.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, c.want)
			assert.Empty(t, stdout)
		})
	}
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(b))
}
