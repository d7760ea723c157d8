package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// Config is one `skillrun bench run`: every selected set over the same
// task × attempt matrix.
type Config struct {
	Tasks []*Task
	// Sets are the selected plugin sets, from SetsFile.
	Sets     []*PluginSet
	SetsFile string
	// ReposDir is where already-cloned skill repositories are looked for
	// (see ResolveSkills).
	ReposDir string
	// Agent is OracleAgent or the name of the session's agent; AgentDef
	// is its definition (nil: the builtin general agent).
	Agent    string
	AgentDef *agent.Definition
	// Provider makes a trial's provider (a scripted plan is stateful, so
	// each trial gets its own). ProviderName and Model are recorded.
	Provider     func(*Task) (agent.Provider, error)
	ProviderName string
	Model        string
	Limits       agent.Limits
	// Retry is how a trial's session retries a failed model call (the
	// zero value is the agent package's default retry policy).
	Retry    agent.RetryPolicy
	Attempts int
	Parallel int
	Shard    Shard
	// Out is the experiments folder; the run writes
	// Out/<RunID>__<set>/ for each set.
	Out   string
	RunID string
	// Resume finishes the run RunID: trials with a result are kept,
	// the others run.
	Resume bool
	Runner *scripts.Runner
	// Native names the skills whose source scripts run as confined host
	// processes (the native tier, scripts.NativeTier) in every set that
	// has them: the operator's trust, never a plugin set's.
	Native []string
	Prices Prices
	// Progress, if set, hears of every trial that ends.
	Progress func(Progress)
}

// A Shard is the slice I of N of a run's matrix; the zero Shard is the
// whole matrix.
type Shard struct{ I, N int }

// String is "I/N".
func (s Shard) String() string {
	if s.N == 0 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// ParseShard reads "I/N" with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || sh.N < 1 || sh.I < 0 || sh.I >= sh.N ||
		fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, fmt.Errorf("--shard %q: I/N with 0 ≤ I < N, such as 0/4", s)
	}
	return sh, nil
}

// Progress is the state of a run after a trial ended.
type Progress struct {
	Done, Total    int
	Resolved       int
	Errored        int
	Elapsed        time.Duration
	Last           *TrialResult
	PerSetResolved map[string]int
	Skipped        int // trials kept from before (a resume)
}

// Summary is what a run did, per set.
type Summary struct {
	RunID string
	Sets  []*Results
	// Dirs are the sets' folders, in Sets' order.
	Dirs []string
}

type runner struct {
	cfg  *Config
	arms []*arm
}

// Run runs the matrix. A trial that crashes or times out is recorded with
// its failure mode; only a cancelled context (the operator's interrupt)
// or a harness failure to write results ends the run early, leaving
// every finished trial on disk for --resume.
func Run(ctx context.Context, cfg *Config) (*Summary, error) {
	if cfg.Attempts < 1 {
		cfg.Attempts = 1
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.Shard.N == 0 {
		cfg.Shard = Shard{0, 1}
	}
	if cfg.RunID == "" {
		cfg.RunID = time.Now().UTC().Format("2006-01-02__15-04-05")
	}
	if len(cfg.Tasks) == 0 || len(cfg.Sets) == 0 {
		return nil, errors.New("bench: no tasks or no plugin sets")
	}
	if err := uniqueTasks(cfg.Tasks); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	if cfg.Agent == OracleAgent {
		for _, t := range cfg.Tasks {
			if t.Solution == "" {
				return nil, fmt.Errorf("task %s has no solution/solve.sh: the oracle agent cannot run it", t.ID)
			}
		}
	}
	for _, s := range cfg.Sets {
		a, err := r.arm(s)
		if err != nil {
			return nil, err
		}
		r.arms = append(r.arms, a)
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	// A hidden name: `bench compare RUN*` typed in a shell must match the
	// result folders only.
	unlock, err := lockRun(filepath.Join(cfg.Out, "."+cfg.RunID+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	rc := r.runConfig()
	var todo []trial
	done := map[*arm][]*TrialResult{}
	for _, a := range r.arms {
		if err := r.prepareDir(a, rc); err != nil {
			return nil, err
		}
	}
	for i, t := range r.matrix() {
		if i%cfg.Shard.N != cfg.Shard.I {
			continue
		}
		if cfg.Resume {
			res, err := readTrialResult(filepath.Join(t.arm.dir, t.rel(), resultFile))
			if err == nil {
				if err := checkTrial(res, t); err != nil {
					return nil, fmt.Errorf("--resume %s: %w", t.arm.dir, err)
				}
				done[t.arm] = append(done[t.arm], res)
				continue
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("--resume %s: refusing to resume: %w", t.arm.dir, err)
			}
		}
		todo = append(todo, t)
	}
	skipped := 0
	for _, l := range done {
		skipped += len(l)
	}
	err = r.runAll(ctx, todo, skipped, done)
	sum := &Summary{RunID: cfg.RunID}
	for _, a := range r.arms {
		res := newResults(rc, a, done[a])
		if werr := writeJSON(filepath.Join(a.dir, resultsFile), res); werr != nil && err == nil {
			err = werr
		}
		sum.Sets = append(sum.Sets, res)
		sum.Dirs = append(sum.Dirs, a.dir)
	}
	return sum, err
}

// matrix is every trial of the run in its fixed order: attempts outermost,
// then tasks, then sets, so that consecutive trials alternate sets and any
// drift (a provider slowing down, a machine warming up) hits every set
// alike; a shard takes every N-th.
func (r *runner) matrix() []trial {
	var out []trial
	for at := 1; at <= r.cfg.Attempts; at++ {
		for _, t := range r.cfg.Tasks {
			for _, a := range r.arms {
				out = append(out, trial{arm: a, task: t, attempt: at})
			}
		}
	}
	return out
}

func (r *runner) runAll(ctx context.Context, todo []trial, skipped int, done map[*arm][]*TrialResult) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	var mu sync.Mutex
	p := Progress{Total: len(todo) + skipped, Done: skipped, Skipped: skipped, PerSetResolved: map[string]int{}}
	for a, l := range done {
		for _, res := range l {
			if res.IsResolved {
				p.Resolved++
				p.PerSetResolved[a.set.Name]++
			} else if res.FailureMode.IsError() {
				p.Errored++
			}
		}
	}
	jobs := make(chan trial)
	var wg sync.WaitGroup
	for range min(r.cfg.Parallel, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				res, err := r.runTrial(ctx, t)
				if err == nil {
					err = writeTrialResult(filepath.Join(t.arm.dir, t.rel(), resultFile), res)
				}
				if err != nil {
					cancel(err)
					continue
				}
				mu.Lock()
				done[t.arm] = append(done[t.arm], res)
				p.Done++
				if res.IsResolved {
					p.Resolved++
					p.PerSetResolved[t.arm.set.Name]++
				} else if res.FailureMode.IsError() {
					p.Errored++
				}
				p.Elapsed, p.Last = time.Since(start), res
				if r.cfg.Progress != nil {
					r.cfg.Progress(p)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, t := range todo {
		select {
		case jobs <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	for _, l := range done {
		sortTrials(l)
	}
	return context.Cause(ctx)
}

// arm loads a set's skills and makes its filter and folder.
func (r *runner) arm(s *PluginSet) (*arm, error) {
	cat, err := resolveCatalog(s, r.cfg.SetsFile, r.cfg.ReposDir)
	if err != nil {
		return nil, err
	}
	if cat == nil {
		cat = toolset.Of(nil)
	}
	list := cat.Skills()
	allow, _ := ToolFilter(s.AllowedTools)
	a := &arm{set: s, catalog: cat, skills: list, allow: allow, grants: map[string]capabilities.Set{},
		natives: map[*skills.Skill]*scripts.NativeTier{},
		dir:     filepath.Join(r.cfg.Out, r.cfg.RunID+"__"+s.Name)}
	for _, sk := range list {
		res, err := scripts.Resolve(sk, "", &capabilities.Resolver{All: true})
		if err != nil {
			return nil, fmt.Errorf("plugin set %s: skill %s: %w", s.Name, sk.Name, err)
		}
		g := res.Granted
		g.Net = nil // trials run offline: a skill's declared hosts are not reached
		a.grants[sk.Name] = g
		if slices.Contains(r.cfg.Native, sk.Name) {
			a.natives[sk] = &scripts.NativeTier{}
		}
	}
	return a, nil
}

func uniqueTasks(tasks []*Task) error {
	seen := map[string]string{}
	for _, t := range tasks {
		if other, dup := seen[t.ID]; dup {
			return fmt.Errorf("two tasks named %s: %s and %s", t.ID, other, t.Dir)
		}
		seen[t.ID] = t.Dir
	}
	return nil
}

// skillNames are the names of a set's loaded skills.
func skillNames(list []*skills.Skill) []string {
	out := []string{}
	for _, s := range list {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// copyTree copies the folder src into dst through an os.Root: a symlink
// in it (a task's fixture, a shard's trial folder) fails the copy
// instead of copying what it points at.
func copyTree(dst, src string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := os.CopyFS(dst, root.FS()); err != nil {
		return fmt.Errorf("%s: %w", src, safefile.Cause(err))
	}
	return nil
}

// taskIDs are the run's tasks, in order.
func taskIDs(tasks []*Task) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.ID)
	}
	return out
}
