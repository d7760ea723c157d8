package bench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Bootstrap settings of [Compare]: enough resamples that the interval's
// ends move by less than a percentage point from one seed to another,
// few enough that a thousand tasks compare in well under a second.
const (
	bootstrapResamples = 10_000
	confidenceLevel    = 0.95
)

// CompareOptions tune [Compare]. The zero value is usable: seed 0 and no
// skill names beyond what the results themselves say.
type CompareOptions struct {
	// Seed seeds the bootstrap, so that a comparison printed twice, or
	// by two people, gives the same intervals.
	Seed uint64
	// SkillsLoaded are, by set name, the names of the skills the set's
	// run loaded (RunConfig.SkillsLoaded, see [ReadRunConfig]).
	// results.json records a set's skills only as its plugin-sets
	// entries (paths, repositories, each maybe a folder of skills),
	// while trials record skills by name; without these names a set's
	// entries stand for the skills, named by their last path element.
	SkillsLoaded map[string][]string
}

// A Comparison is sets of one or more runs side by side: each set's
// totals, and each other set against a baseline, paired by task. It is
// plain data, safe for concurrent reads; its writers ([Comparison.WriteTable],
// [Comparison.WriteTSV], [Comparison.WriteHTML]) only read it, and its
// JSON form is the machine-readable report.
type Comparison struct {
	Baseline string `json:"baseline"`
	// Seed and Resamples are the bootstrap's; Level is the intervals'
	// confidence level.
	Seed      uint64  `json:"seed"`
	Resamples int     `json:"resamples"`
	Level     float64 `json:"confidence_level"`
	// Tasks are every task of any set, sorted.
	Tasks []string    `json:"tasks"`
	Sets  []*SetStats `json:"sets"`
	// Paired has one entry for each set but the baseline, in Sets' order.
	Paired []*PairedStats `json:"paired"`
}

// SetStats are one set's numbers.
type SetStats struct {
	Name  string `json:"name"`
	RunID string `json:"run_id"`
	Model string `json:"model_name"`
	// Totals are summed again from the set's trials, so that totals
	// edited by hand in results.json do not reach the report.
	Totals Totals `json:"totals"`
	// NUnpriced counts trials whose model had no price: Totals.CostUSD
	// leaves them out.
	NUnpriced int      `json:"n_unpriced"`
	Skills    SkillUse `json:"skills"`
	// Tasks are the set's per-task counts, by task id.
	Tasks map[string]TaskCell `json:"tasks"`
}

// A TaskCell counts one task's attempts in one set.
type TaskCell struct {
	Attempts int `json:"attempts"`
	Resolved int `json:"resolved"`
	// Errored counts the unresolved attempts that ended in an error
	// (FailureMode.IsError); they count as unresolved in Rate.
	Errored int `json:"errored"`
	// Rate is Resolved / Attempts.
	Rate float64 `json:"success_rate"`
}

// SkillUse says whether a set's skills were used at all: a set whose
// agent never activated its skills measures the prompt, not the skills.
type SkillUse struct {
	// Declared are the set's plugin_set.skills entries.
	Declared []string `json:"declared"`
	// Loaded are the names of the skills those entries stand for.
	Loaded []string `json:"loaded"`
	// Used are the skills any trial activated.
	Used []string `json:"used"`
	// NTrialsUsing counts the trials that activated a skill; Fraction
	// is that over all the set's trials.
	NTrialsUsing int     `json:"n_trials_using"`
	Fraction     float64 `json:"fraction"`
	Activated    bool    `json:"activated"`
	// NeverUsed are the loaded skills no trial activated.
	NeverUsed []string `json:"never_used"`
}

// PairedStats are one treatment set against the baseline, over the
// tasks both ran.
type PairedStats struct {
	Treatment string `json:"treatment"`
	Baseline  string `json:"baseline"`
	// NTasks counts the tasks in both sets.
	NTasks int `json:"n_tasks"`
	// Difference is the mean over paired tasks of the treatment's
	// success rate minus the baseline's, with a bootstrap interval over
	// tasks; nil when no task is in both sets.
	Difference *Interval  `json:"difference"`
	McNemar    McNemar    `json:"mcnemar"`
	Tasks      []TaskPair `json:"tasks"`
	// OnlyBaseline and OnlyTreatment are tasks in one set but not the
	// other, left out of the statistics.
	OnlyBaseline  []string `json:"only_in_baseline"`
	OnlyTreatment []string `json:"only_in_treatment"`
}

// An Interval is an estimate with its confidence interval.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"ci_low"`
	High     float64 `json:"ci_high"`
}

// McNemar is the exact McNemar test over trials paired by task and
// attempt: of the pairs where exactly one set resolved the task, is one
// set's share more than chance would give?
type McNemar struct {
	// NPairs counts the task × attempt pairs both sets have.
	NPairs int `json:"n_pairs"`
	// B counts pairs the baseline resolved and the treatment did not;
	// C the reverse.
	B int `json:"b"`
	C int `json:"c"`
	// P is the two-sided exact binomial p-value; 1 when B+C is 0.
	P float64 `json:"p_value"`
}

// A TaskPair is one task in both sets.
type TaskPair struct {
	TaskID    string   `json:"task_id"`
	Baseline  TaskCell `json:"baseline"`
	Treatment TaskCell `json:"treatment"`
	// Difference is Treatment.Rate − Baseline.Rate.
	Difference float64 `json:"difference"`
}

// ReadRunConfig reads a set folder's run_config.yaml. A comparison takes
// from it what results.json does not hold: the names of the skills the
// set's run loaded ([CompareOptions.SkillsLoaded]) and the order of the
// run's sets.
func ReadRunConfig(dir string) (RunConfig, error) {
	return readRunConfig(filepath.Join(dir, runConfigFile))
}

// Compare compares sets, each a set's results.json, against the set
// named baseline; "" means the first set named no-plugins or baseline,
// else the first set. Two sets of one name are refused: they are the
// shards of a run, to merge first, or one set of two runs, which a
// report by name could not tell apart.
func Compare(sets []*Results, baseline string, o CompareOptions) (*Comparison, error) {
	if len(sets) == 0 {
		return nil, errors.New("compare: no sets")
	}
	names := make([]string, len(sets))
	for i, r := range sets {
		if r.PluginSet == nil || r.PluginSet.Name == "" {
			return nil, fmt.Errorf("compare: the results of run %q have no plugin_set name", r.Run.RunID)
		}
		names[i] = r.PluginSet.Name
		if j := slices.Index(names[:i], names[i]); j >= 0 {
			return nil, fmt.Errorf("compare: two sets named %q (runs %q and %q): merge the shards of a run first (skillrun bench merge), and compare one run's sets at a time",
				names[i], sets[j].Run.RunID, r.Run.RunID)
		}
	}
	base, err := pickBaseline(names, baseline)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Baseline: names[base], Seed: o.Seed, Resamples: bootstrapResamples, Level: confidenceLevel,
		Tasks: []string{}, Paired: []*PairedStats{}}
	attempts := make([]map[taskAttempt]bool, len(sets))
	all := map[string]bool{}
	for i, r := range sets {
		s, byAttempt, err := setStats(r, o.SkillsLoaded[names[i]])
		if err != nil {
			return nil, err
		}
		c.Sets = append(c.Sets, s)
		attempts[i] = byAttempt
		for id := range s.Tasks {
			all[id] = true
		}
	}
	for id := range all {
		c.Tasks = append(c.Tasks, id)
	}
	slices.Sort(c.Tasks)
	for i := range sets {
		if i != base {
			c.Paired = append(c.Paired, pair(c.Sets[base], c.Sets[i], attempts[base], attempts[i], o.Seed))
		}
	}
	return c, nil
}

func pickBaseline(names []string, want string) (int, error) {
	if want == "" {
		if i := slices.IndexFunc(names, func(n string) bool { return n == "no-plugins" || n == "baseline" }); i >= 0 {
			return i, nil
		}
		return 0, nil
	}
	if i := slices.Index(names, want); i >= 0 {
		return i, nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return 0, fmt.Errorf("compare: baseline %q is not one of the sets: %s", want, strings.Join(quoted, ", "))
}

type taskAttempt struct {
	task    string
	attempt int
}

// setStats sums a set and indexes its trials by task and attempt,
// refusing a trial given twice (results concatenated by hand).
func setStats(r *Results, loaded []string) (*SetStats, map[taskAttempt]bool, error) {
	s := &SetStats{Name: r.PluginSet.Name, RunID: r.Run.RunID, Model: r.Run.ModelName, Totals: Total(r.Trials),
		Tasks: map[string]TaskCell{}}
	byAttempt := map[taskAttempt]bool{}
	for _, t := range r.Trials {
		k := taskAttempt{t.TaskID, t.Attempt}
		if _, dup := byAttempt[k]; dup {
			return nil, nil, fmt.Errorf("compare: set %q has task %s attempt %d twice", s.Name, t.TaskID, t.Attempt)
		}
		byAttempt[k] = t.IsResolved
		cell := s.Tasks[t.TaskID]
		cell.Attempts++
		if t.IsResolved {
			cell.Resolved++
		} else if t.FailureMode.IsError() {
			cell.Errored++
		}
		cell.Rate = float64(cell.Resolved) / float64(cell.Attempts)
		s.Tasks[t.TaskID] = cell
		if t.CostUSD == nil {
			s.NUnpriced++
		}
	}
	s.Skills = skillUse(r, loaded)
	return s, byAttempt, nil
}

func skillUse(r *Results, loaded []string) SkillUse {
	u := SkillUse{Declared: slices.Clone(r.PluginSet.Skills), Used: []string{}, NeverUsed: []string{}}
	if u.Declared == nil {
		u.Declared = []string{}
	}
	if loaded != nil {
		u.Loaded = slices.Clone(loaded)
	} else {
		u.Loaded = []string{}
		for _, e := range u.Declared {
			u.Loaded = append(u.Loaded, entryName(e))
		}
	}
	slices.Sort(u.Loaded)
	u.Loaded = slices.Compact(u.Loaded)
	for _, t := range r.Trials {
		if len(t.SkillsUsed) > 0 {
			u.NTrialsUsing++
		}
		u.Used = append(u.Used, t.SkillsUsed...)
	}
	slices.Sort(u.Used)
	u.Used = slices.Compact(u.Used)
	for _, n := range u.Loaded {
		if !slices.Contains(u.Used, n) {
			u.NeverUsed = append(u.NeverUsed, n)
		}
	}
	u.Activated = u.NTrialsUsing > 0
	if len(r.Trials) > 0 {
		u.Fraction = float64(u.NTrialsUsing) / float64(len(r.Trials))
	}
	return u
}

// entryName is the skill name a plugin-sets entry most likely stands
// for: its last path element, without .git or .zip ("../py-csv-report",
// "owner/repo.git", "https://host/owner/repo").
func entryName(e string) string {
	e = strings.TrimRight(filepath.ToSlash(e), "/")
	if _, after, ok := strings.Cut(e, ":"); ok && strings.HasPrefix(e, "git@") {
		e = after
	}
	e = path.Base(e)
	return strings.TrimSuffix(strings.TrimSuffix(e, ".git"), ".zip")
}

// pair compares a treatment with the baseline over the tasks both ran.
func pair(base, treat *SetStats, baseAt, treatAt map[taskAttempt]bool, seed uint64) *PairedStats {
	p := &PairedStats{Treatment: treat.Name, Baseline: base.Name, Tasks: []TaskPair{},
		OnlyBaseline: []string{}, OnlyTreatment: []string{}}
	for id, b := range base.Tasks {
		t, ok := treat.Tasks[id]
		if !ok {
			p.OnlyBaseline = append(p.OnlyBaseline, id)
			continue
		}
		p.Tasks = append(p.Tasks, TaskPair{TaskID: id, Baseline: b, Treatment: t, Difference: t.Rate - b.Rate})
	}
	for id := range treat.Tasks {
		if _, ok := base.Tasks[id]; !ok {
			p.OnlyTreatment = append(p.OnlyTreatment, id)
		}
	}
	slices.Sort(p.OnlyBaseline)
	slices.Sort(p.OnlyTreatment)
	slices.SortFunc(p.Tasks, func(a, b TaskPair) int { return strings.Compare(a.TaskID, b.TaskID) })
	p.NTasks = len(p.Tasks)
	if p.NTasks > 0 {
		diffs := make([]float64, len(p.Tasks))
		for i, t := range p.Tasks {
			diffs[i] = t.Difference
		}
		iv := bootstrapMean(diffs, seed, bootstrapResamples, confidenceLevel)
		p.Difference = &iv
	}
	for k, b := range baseAt {
		t, ok := treatAt[k]
		if !ok {
			continue
		}
		p.McNemar.NPairs++
		switch {
		case b && !t:
			p.McNemar.B++
		case t && !b:
			p.McNemar.C++
		}
	}
	p.McNemar.P = mcnemarP(p.McNemar.B, p.McNemar.C)
	return p
}

// bootstrapMean is the mean of xs with a percentile bootstrap interval:
// resample xs with replacement, take each resample's mean, and read the
// interval off their quantiles. Resampling tasks (not trials) keeps a
// task's attempts together, so that the interval reflects how much the
// result depends on which tasks were chosen. A fresh generator per call
// makes a treatment's interval independent of the other sets compared.
func bootstrapMean(xs []float64, seed uint64, resamples int, level float64) Interval {
	n := len(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	means := make([]float64, resamples)
	for i := range means {
		var s float64
		for range n {
			s += xs[rng.IntN(n)]
		}
		means[i] = s / float64(n)
	}
	slices.Sort(means)
	alpha := (1 - level) / 2
	return Interval{Estimate: sum / float64(n), Low: quantile(means, alpha), High: quantile(means, 1-alpha)}
}

// quantile is the q-quantile of sorted xs, interpolated linearly between
// order statistics (R's type 7, NumPy's default).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

// mcnemarExactMax is the largest b+c whose p-value is computed exactly
// with big integers; above it the sum of binomials would take long, and
// the log-space form is as accurate as a float64 can hold.
const mcnemarExactMax = 1000

// mcnemarP is the exact McNemar test's two-sided p-value for b and c
// discordant pairs: under the null each discordant pair is a fair coin,
// so p = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i) / 2^(b+c)).
func mcnemarP(b, c int) float64 {
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	if n <= mcnemarExactMax {
		sum, term := new(big.Int), big.NewInt(1) // term = C(n, i)
		for i := 0; i <= k; i++ {
			sum.Add(sum, term)
			term.Mul(term, big.NewInt(int64(n-i)))
			term.Quo(term, big.NewInt(int64(i+1)))
		}
		p := new(big.Rat).SetFrac(sum.Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
		f, _ := p.Float64()
		return min(1, f)
	}
	return min(1, math.Exp(logMcNemarP(n, k)))
}

// logMcNemarP is log(2·Σ_{i≤k} C(n,i)/2^n) for k ≤ n/2, summed from the
// largest term down: Σ = C(n,k)·Σ_j r_j with r_0 = 1 and each next ratio
// C(n,i−1)/C(n,i) = i/(n−i+1) ≤ 1, so nothing overflows or cancels.
func logMcNemarP(n, k int) float64 {
	sum, r := 1.0, 1.0
	for i := k; i >= 1; i-- {
		r *= float64(i) / float64(n-i+1)
		sum += r
		if r < sum*1e-18 {
			break
		}
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }
	logC := lg(n+1) - lg(k+1) - lg(n-k+1)
	return math.Ln2 + logC + math.Log(sum) - float64(n)*math.Ln2
}
