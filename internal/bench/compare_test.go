package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcome is one trial of a hand-made set: r resolved, u unresolved, e
// errored (unresolved with an error failure mode).
type outcome byte

// handSet builds a set's results by hand: tasks maps a task id to its
// attempts' outcomes, as a string of 'r', 'u' and 'e'.
func handSet(name string, skills []string, tasks map[string]string, used ...string) *Results {
	var list []*TrialResult
	for id, runs := range tasks {
		for i, o := range runs {
			tr := &TrialResult{Schema: SchemaVersion, TaskID: id, Attempt: i + 1, FailureMode: FailureNone,
				PluginSetName: name, PluginSetSkills: skills, SkillsUsed: []string{}, RuntimeMS: 100}
			switch outcome(o) {
			case 'r':
				tr.IsResolved = true
			case 'e':
				tr.FailureMode = FailureAgentTimeout
			}
			if len(used) > 0 && tr.IsResolved {
				tr.SkillsUsed = used
			}
			list = append(list, tr)
		}
	}
	sortTrials(list)
	return &Results{Schema: SchemaVersion, Run: RunMetadata{RunID: "run-" + name, ModelName: "m"},
		PluginSet: &PluginSet{Name: name, Skills: skills}, Trials: list, Totals: Total(list)}
}

// exactMcNemar is the definition, in big rationals.
func exactMcNemar(b, c int) float64 {
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	sum := new(big.Int)
	for i := 0; i <= k; i++ {
		sum.Add(sum, new(big.Int).Binomial(int64(n), int64(i)))
	}
	p := new(big.Rat).SetFrac(sum.Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := p.Float64()
	return min(1, f)
}

func TestMcNemar(t *testing.T) {
	known := []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1}, {0, 6, 0.03125}, {6, 0, 0.03125}, {1, 9, 0.021484375}, {0, 3, 0.25}, {4, 4, 1}, {3, 4, 1},
		{0, 1, 1}, {2, 8, 0.109375},
	}
	for _, k := range known {
		assert.InDelta(t, k.p, mcnemarP(k.b, k.c), 1e-9, "b=%d c=%d", k.b, k.c)
	}
	for b := range 40 {
		for c := range 40 {
			assert.InDelta(t, exactMcNemar(b, c), mcnemarP(b, c), 1e-15, "b=%d c=%d", b, c)
		}
	}
	// Past the exact limit, the log-space form: it agrees with the
	// definition, and it neither overflows nor underflows to nonsense.
	for _, bc := range [][2]int{{400, 601}, {500, 501}, {480, 600}, {300, 800}} {
		n, k := bc[0]+bc[1], min(bc[0], bc[1])
		require.Greater(t, n, mcnemarExactMax)
		want := exactMcNemar(bc[0], bc[1])
		assert.InEpsilon(t, want, mcnemarP(bc[0], bc[1]), 1e-9, "b=%d c=%d", bc[0], bc[1])
		assert.InEpsilon(t, want, min(1, math.Exp(logMcNemarP(n, k))), 1e-9)
	}
	assert.Equal(t, 1.0, mcnemarP(5000, 5000))
	p := mcnemarP(100, 100_000)
	assert.True(t, p >= 0 && p < 1e-300, "%g", p)
}

// TestCompareBootstrap: the interval holds the observed difference, is
// the same for the same seed, differs for another, and narrows as the
// same pattern is seen over more tasks.
func TestCompareBootstrap(t *testing.T) {
	mk := func(copies int) []*Results {
		base, treat := map[string]string{}, map[string]string{}
		pattern := []struct{ b, t string }{{"u", "r"}, {"u", "r"}, {"r", "r"}, {"r", "u"}, {"u", "u"}, {"rr", "rr"}, {"ru", "rr"}, {"uu", "ru"}}
		for i := range copies {
			for j, p := range pattern {
				id := fmt.Sprintf("t%02d-%d", i, j)
				base[id] = p.b
				treat[id] = p.t
			}
		}
		return []*Results{handSet("no-plugins", nil, base), handSet("skills", []string{"s"}, treat)}
	}
	c, err := Compare(mk(1), "", CompareOptions{Seed: 7})
	require.NoError(t, err)
	p := c.Paired[0]
	require.NotNil(t, p.Difference)
	d := p.Difference
	want := (1 + 1 + 0 - 1 + 0 + 0 + 0.5 + 0.5) / 8
	assert.InDelta(t, want, d.Estimate, 1e-12)
	assert.LessOrEqual(t, d.Low, d.Estimate)
	assert.GreaterOrEqual(t, d.High, d.Estimate)
	assert.Less(t, d.Low, d.High)
	assert.Equal(t, 10_000, c.Resamples)

	again, err := Compare(mk(1), "", CompareOptions{Seed: 7})
	require.NoError(t, err)
	assert.Equal(t, *d, *again.Paired[0].Difference, "the same seed, the same interval")
	// The seed is the resamples' (on values fine-grained enough that two
	// seeds' quantiles cannot coincide).
	var xs []float64
	for i := range 37 {
		xs = append(xs, float64(i*i%17)/17)
	}
	assert.Equal(t, bootstrapMean(xs, 7, 1000, 0.95), bootstrapMean(xs, 7, 1000, 0.95))
	assert.NotEqual(t, bootstrapMean(xs, 7, 1000, 0.95), bootstrapMean(xs, 8, 1000, 0.95))

	wide := d.High - d.Low
	more, err := Compare(mk(8), "", CompareOptions{Seed: 7})
	require.NoError(t, err)
	md := more.Paired[0].Difference
	assert.InDelta(t, want, md.Estimate, 1e-12)
	assert.Less(t, md.High-md.Low, wide*0.6, "8× the tasks: about 1/√8 the width")
	assert.LessOrEqual(t, md.Low, md.Estimate)
	assert.GreaterOrEqual(t, md.High, md.Estimate)

	// McNemar over task × attempt pairs: the baseline alone resolved t3;
	// the treatment alone t0, t1, t6's second attempt and t7's first.
	m := p.McNemar
	assert.Equal(t, 11, m.NPairs)
	assert.Equal(t, 1, m.B)
	assert.Equal(t, 4, m.C)
	assert.InDelta(t, exactMcNemar(1, 4), m.P, 1e-15)
}

// TestCompareSets: totals per set, errored trials counted as unresolved
// and reported, tasks in one set only left out and listed, the skills a
// set never used listed.
func TestCompareSets(t *testing.T) {
	base := handSet("baseline", nil, map[string]string{"a": "rr", "b": "ue", "c": "uu", "only-base": "r"})
	treat := handSet("with-skills", []string{"../skills/alpha", "owner/beta.git"},
		map[string]string{"a": "rr", "b": "re", "c": "ru", "only-treat": "u"}, "alpha")
	c, err := Compare([]*Results{treat, base}, "", CompareOptions{Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, "baseline", c.Baseline, "a set named baseline is the default baseline")
	assert.Equal(t, []string{"a", "b", "c", "only-base", "only-treat"}, c.Tasks)
	require.Len(t, c.Sets, 2)
	require.Len(t, c.Paired, 1)
	bs := c.Sets[1]
	assert.Equal(t, 7, bs.Totals.NTrials)
	assert.Equal(t, 3, bs.Totals.NResolved)
	assert.Equal(t, 1, bs.Totals.NErrored)
	assert.Equal(t, TaskCell{Attempts: 2, Resolved: 0, Errored: 1, Rate: 0}, bs.Tasks["b"])

	p := c.Paired[0]
	assert.Equal(t, "with-skills", p.Treatment)
	assert.Equal(t, 3, p.NTasks)
	assert.Equal(t, []string{"only-base"}, p.OnlyBaseline)
	assert.Equal(t, []string{"only-treat"}, p.OnlyTreatment)
	require.NotNil(t, p.Difference)
	assert.InDelta(t, (0+0.5+0.5)/3, p.Difference.Estimate, 1e-12)
	assert.Equal(t, 6, p.McNemar.NPairs, "only the tasks both ran")
	assert.Equal(t, 0, p.McNemar.B)
	assert.Equal(t, 2, p.McNemar.C)
	assert.Equal(t, TaskCell{Attempts: 2, Resolved: 1, Errored: 1, Rate: 0.5}, p.Tasks[1].Treatment)

	u := c.Sets[0].Skills
	assert.True(t, u.Activated)
	assert.Equal(t, []string{"alpha", "beta"}, u.Loaded, "without the run's names, the entries' last elements")
	assert.Equal(t, []string{"alpha"}, u.Used)
	assert.Equal(t, []string{"beta"}, u.NeverUsed)
	assert.Equal(t, 4, u.NTrialsUsing)
	assert.InDelta(t, 4.0/7, u.Fraction, 1e-12)
	assert.False(t, c.Sets[1].Skills.Activated)

	// The run's own names, when given, stand for the entries.
	c, err = Compare([]*Results{treat, base}, "", CompareOptions{SkillsLoaded: map[string][]string{"with-skills": {"alpha", "gamma", "delta"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"delta", "gamma"}, c.Sets[0].Skills.NeverUsed)

	// A set whose skills were never activated says so.
	idle := handSet("idle", []string{"x"}, map[string]string{"a": "r"})
	c, err = Compare([]*Results{base, idle}, "", CompareOptions{})
	require.NoError(t, err)
	assert.False(t, c.Sets[1].Skills.Activated)
	assert.Equal(t, []string{"x"}, c.Sets[1].Skills.NeverUsed)

	// No task in common: no difference, McNemar p = 1.
	c, err = Compare([]*Results{base, handSet("other", nil, map[string]string{"z": "r"})}, "", CompareOptions{})
	require.NoError(t, err)
	assert.Nil(t, c.Paired[0].Difference)
	assert.Equal(t, 1.0, c.Paired[0].McNemar.P)
	assert.Zero(t, c.Paired[0].NTasks)
}

// TestCompareBaseline: the default baseline, --baseline, and the
// refusals, each saying what to do.
func TestCompareBaseline(t *testing.T) {
	a := handSet("a", nil, map[string]string{"t": "r"})
	b := handSet("b", nil, map[string]string{"t": "u"})
	np := handSet("no-plugins", nil, map[string]string{"t": "u"})
	for _, c := range []struct {
		sets []*Results
		name string
		want string
	}{
		{[]*Results{a, b}, "", "a"},
		{[]*Results{a, np, b}, "", "no-plugins"},
		{[]*Results{a, np, b}, "b", "b"},
	} {
		got, err := Compare(c.sets, c.name, CompareOptions{})
		require.NoError(t, err)
		assert.Equal(t, c.want, got.Baseline)
		assert.Len(t, got.Paired, len(c.sets)-1)
		for _, p := range got.Paired {
			assert.NotEqual(t, c.want, p.Treatment)
		}
	}
	_, err := Compare([]*Results{a, b}, "nope", CompareOptions{})
	require.ErrorContains(t, err, `baseline "nope" is not one of the sets: "a", "b"`)

	shard := handSet("a", nil, map[string]string{"u": "r"})
	_, err = Compare([]*Results{a, b, shard}, "", CompareOptions{})
	require.ErrorContains(t, err, `two sets named "a"`)
	require.ErrorContains(t, err, "merge")

	_, err = Compare(nil, "", CompareOptions{})
	require.Error(t, err)
	_, err = Compare([]*Results{{Schema: SchemaVersion}}, "", CompareOptions{})
	require.ErrorContains(t, err, "no plugin_set name")
	twice := handSet("twice", nil, map[string]string{"t": "r"})
	twice.Trials = append(twice.Trials, twice.Trials[0])
	_, err = Compare([]*Results{a, twice}, "", CompareOptions{})
	require.ErrorContains(t, err, "task t attempt 1 twice")
}

// TestCompareExampleRun: the example sets over the example tasks, run
// offline: the skills resolve the three report tasks the baseline
// cannot, and every skill the set loaded names a skill a trial used.
func TestCompareExampleRun(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	cfg := scriptedConfig(t, loadTasks(t, exampleTasks), t.TempDir())
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	loaded := map[string][]string{}
	for i, dir := range sum.Dirs {
		rc, err := ReadRunConfig(dir)
		require.NoError(t, err)
		loaded[sum.Sets[i].PluginSet.Name] = rc.SkillsLoaded
	}
	c, err := Compare(sum.Sets, "", CompareOptions{Seed: 1, SkillsLoaded: loaded})
	require.NoError(t, err)
	assert.Equal(t, "no-plugins", c.Baseline)
	p := c.Paired[0]
	assert.InDelta(t, 0.5, p.Difference.Estimate, 1e-12)
	assert.Equal(t, McNemar{NPairs: 6, B: 0, C: 3, P: 0.25}, p.McNemar)
	u := c.Sets[1].Skills
	assert.True(t, u.Activated)
	assert.Equal(t, []string{"js-csv-report", "py-csv-report", "todo-py"}, u.Loaded)
	assert.Empty(t, u.NeverUsed, "%+v", u)
}

func ExampleCompare() {
	base := handSet("no-plugins", nil, map[string]string{"a": "r", "b": "u", "c": "u", "d": "e"})
	skills := handSet("skills", []string{"../report"}, map[string]string{"a": "r", "b": "r", "c": "r", "d": "u"}, "report")
	c, err := Compare([]*Results{base, skills}, "", CompareOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = c.WriteTable(os.Stdout)
	// Output:
	// SET                    TRIALS  RESOLVED  UNRESOLVED  ERRORED  ACCURACY  EXCL. ERRORS  PASS@K  MEAN TIME  MAX TIME  TOKENS IN  TOKENS OUT  COST
	// no-plugins (baseline)  4       1         3           1        25.0%     33.3%         -       100ms      100ms     0          0           n/a
	// skills                 4       3         1           0        75.0%     75.0%         -       100ms      100ms     0          0           n/a
	//
	// VS no-plugins  TASKS  DIFFERENCE  95% CI          MCNEMAR B/C  P       SKILLS ACTIVATED    NEVER USED
	// skills         4      +0.50       [+0.00, +1.00]  0/2          0.5000  3/4 trials (75.0%)  -
	// difference: mean over tasks of the success rate minus the baseline's; CI: bootstrap over tasks, 10000 resamples, seed 1
}

// reportFixture is a comparison with a set name written to attack each
// output: markup for the page, a tab and a newline for the TSV, an
// escape sequence for the terminal.
func reportFixture(t *testing.T) *Comparison {
	t.Helper()
	cost := 0.01
	base := handSet("no-plugins", nil, map[string]string{"a": "ru", "b": "uu", "c": "ee"})
	evil := handSet("<script>alert(1)</script>\t\x1b[2J\nx", []string{"s"}, map[string]string{"a": "rr", "b": "ru", "d": "rr"}, "s")
	plain := handSet("plain", nil, map[string]string{"a": "rr", "b": "uu", "c": "ur"})
	for _, r := range plain.Trials {
		r.CostUSD, r.InputTokens, r.OutputTokens = &cost, 1000, 200
	}
	plain.Totals = Total(plain.Trials)
	c, err := Compare([]*Results{base, evil, plain}, "", CompareOptions{Seed: 1})
	require.NoError(t, err)
	return c
}

// TestCompareWriteHTML: a chart per metric, each with a bar per set; the grid;
// every name escaped; nothing the page would fetch.
func TestCompareWriteHTML(t *testing.T) {
	c := reportFixture(t)
	var b strings.Builder
	require.NoError(t, c.WriteHTML(&b))
	page := b.String()
	metrics := []string{"Accuracy", "Accuracy excluding errored trials", "pass@2", "Mean runtime", "Tokens (input + output)", "Cost (USD)"}
	charts := strings.Split(page, `<svg class="metric"`)[1:]
	require.Len(t, charts, len(metrics))
	for i, ch := range charts {
		ch = ch[:strings.Index(ch, "</svg>")]
		assert.Equal(t, len(c.Sets), strings.Count(ch, "<rect"), "chart %s: a bar per set", metrics[i])
	}
	for _, m := range metrics {
		assert.Contains(t, page, "<figcaption>"+strings.ReplaceAll(m, "+", "&#43;")+"</figcaption>")
	}
	assert.Equal(t, 1, strings.Count(page, `<svg class="forest"`), "the differences with their intervals")
	assert.NotContains(t, page, "<script>")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.NotContains(t, page, "\x1b")
	assert.NotContains(t, page, "http://")
	assert.NotContains(t, page, "https://")
	assert.Contains(t, page, `<td class="some">1/2</td>`)
	assert.Contains(t, page, `<td class="none">0/2 (2 err)</td>`)
	assert.Contains(t, page, `<td class="missing">`)
	assert.Contains(t, page, `content="default-src 'none'; style-src 'unsafe-inline'"`, "a CSP that allows nothing from outside")
}

// TestCompareWriteTSV: one header and a line per set, a blank line, one header
// and a line per treatment, every line as many fields as its header.
func TestCompareWriteTSV(t *testing.T) {
	c := reportFixture(t)
	var b strings.Builder
	require.NoError(t, c.WriteTSV(&b))
	sets, paired, ok := strings.Cut(b.String(), "\n\n")
	require.True(t, ok, b.String())
	for _, part := range []struct {
		text string
		rows int
	}{{sets, 3}, {paired, 2}} {
		lines := strings.Split(strings.TrimSuffix(part.text, "\n"), "\n")
		require.Len(t, lines, 1+part.rows, part.text)
		n := strings.Count(lines[0], "\t")
		for _, l := range lines[1:] {
			assert.Equal(t, n, strings.Count(l, "\t"), "%q", l)
		}
	}
	assert.Contains(t, sets, "pass_at_2\t")
	assert.Contains(t, sets, "\nno-plugins\trun-no-plugins\tm\ttrue\t6\t1\t5\t2\t")
	assert.Regexp(t, `\nplain\t.*\t6000\t1200\t0\t0\.06\d*\t0(\n|$)`, sets, "plain's tokens and cost, none unpriced")
	assert.NotContains(t, b.String(), "\x1b")
}

// TestCompareWriteTable: escape sequences in names are shown, not obeyed.
func TestCompareWriteTable(t *testing.T) {
	c := reportFixture(t)
	var b strings.Builder
	require.NoError(t, c.WriteTable(&b))
	out := b.String()
	assert.NotContains(t, out, "\x1b")
	assert.Contains(t, out, `<script>alert(1)</script>\t\x1b[2J\nx`)
	assert.Contains(t, out, "tasks only in no-plugins, left out: c")
	assert.Contains(t, out, "tasks not in no-plugins, left out: d")
}

// TestCompareJSON: the JSON form's keys are snake_case, as results.json's.
func TestCompareJSON(t *testing.T) {
	b, err := json.Marshal(reportFixture(t))
	require.NoError(t, err)
	for _, k := range []string{`"baseline":"no-plugins"`, `"accuracy_excluding_errors":`, `"pass_at_k":{"2":`, `"p_value":`,
		`"only_in_baseline":["c"]`, `"ci_low":`, `"never_used":[]`, `"success_rate":`} {
		assert.Contains(t, string(b), k)
	}
}
