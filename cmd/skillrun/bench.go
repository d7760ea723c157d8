package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/admission"
	"github.com/skillrun/skillrun/internal/bench"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/scripts"
)

// defaultSetsFile is where ADE-bench keeps its plugin sets.
const defaultSetsFile = "experiment_sets/plugin-sets.yaml"

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run benchmark trials that compare plugin sets across tasks",
		Long: `Bench runs every selected plugin set (skills, MCP servers, allowed tools;
ADE-bench's experiment_sets/plugin-sets.yaml) over the same tasks (Harbor's
task folders), each trial in skillrun's sandbox: the agent's tools, the
skills' scripts and the task's verifier (tests/test.sh) all run there.`,
	}
	cmd.AddCommand(newBenchRunCmd(), newBenchCompareCmd())
	cmd.AddCommand(newBenchMergeCmd())
	return cmd
}

type benchRunFlags struct {
	sets      []string
	setsFile  string
	provider  string
	model     string
	baseURL   string
	agent     string
	attempts  int
	parallel  int
	shard     string
	resume    string
	out       string
	prices    string
	repos     string
	json      bool
	maxTurns  int
	native    []string
	runLimits runLimitFlags
}

func newBenchRunCmd() *cobra.Command {
	var f benchRunFlags
	cmd := &cobra.Command{
		Use:   "run TASK... [flags]",
		Short: "Run trials: every task under every selected plugin set",
		Long: `Run runs the tasks (task folders, or folders holding them) under each
selected plugin set, --attempts times each. The trials are interleaved
(attempt, then task, then set) so that drift hits every set alike, and run
--parallel at a time, each with a fresh copy of the task's workspace.

Plugin sets come from --sets (default ` + defaultSetsFile + `); without
--plugin-set every set marked default: true runs. Agents: oracle runs each
task's solution/solve.sh (every task must pass under it); any other name is
a session agent (default general) driven by --provider: scripted replays
each task's plan.toml offline, anthropic and openai call the model.

Results go to --out (default experiments)/<run>__<set>/, ADE-bench's layout:
run_config.yaml, results.json and <task>/<attempt>/result.json, each written
atomically. A run that was interrupted is finished with --resume RUN (its
finished trials are kept); --shard I/N runs every N-th trial of the matrix.

Exit status: 0 the run finished (whatever the trials' verdicts), 2 usage
error, 125 results could not be written, 130 interrupted.`,
		Example: `  skillrun bench run examples/bench/tasks --sets examples/bench/plugin-sets.yaml --agent oracle
  skillrun bench run examples/bench/tasks --sets examples/bench/plugin-sets.yaml --provider scripted --attempts 3
  skillrun bench run examples/bench/tasks --sets examples/bench/plugin-sets.yaml --provider scripted --resume 2026-11-26__18-00-00`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.sets, "plugin-set", nil, "plugin set `NAMES` to run, space- or comma-separated as ADE-bench takes them (repeatable; default: every default set)")
	fl.StringVar(&f.setsFile, "sets", defaultSetsFile, "the plugin-sets `FILE` (ADE-bench's format)")
	fl.StringVar(&f.provider, "provider", "", "scripted, anthropic or openai (default scripted; none for --agent oracle)")
	fl.StringVar(&f.model, "model", "", "the `MODEL` (default: the provider's)")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's API base `URL`")
	fl.StringVar(&f.agent, "agent", "general", "the agent: oracle, or a session agent `NAME`")
	fl.StringArrayVar(&f.native, "native", nil, "run the source scripts of the skill `NAME` as confined host processes in every set that has it (the native tier; Linux with Landlock; repeatable)")
	fl.IntVar(&f.attempts, "attempts", 1, "attempts of each task under each set (pass@k needs k or more)")
	fl.IntVar(&f.parallel, "parallel", 1, "trials run at a time")
	fl.StringVar(&f.shard, "shard", "", "run only the slice `I/N` of the matrix (for many machines; merge the folders after)")
	fl.StringVar(&f.resume, "resume", "", "finish the run `RUN` (its id, the part of its folders' names before __), keeping its finished trials; start it if it never started")
	fl.StringVar(&f.out, "out", "experiments", "the `DIR` of the runs' results")
	fl.StringVar(&f.prices, "prices", "", "a JSON price `FILE` ({\"model\": {\"input\": USD per Mtok, \"output\": ...}}) over the built-in table")
	fl.StringVar(&f.repos, "repos", "", "the `DIR` of cloned skill repositories, as <host>/<owner>/<repo> (default <user cache>/skillrun/repos)")
	fl.IntVar(&f.maxTurns, "max-turns", agent.DefaultLimits.MaxTurns, "the most calls to the model per trial")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON")
	addRunLimitFlags(fl, &f.runLimits)
	fl.Lookup("max-runs").Usage += "; and at least --parallel"
	return cmd
}

func runBench(cmd *cobra.Command, f *benchRunFlags, args []string) error {
	stderr := cmd.ErrOrStderr()
	cfg, err := benchConfig(f, args, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	opts := &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr}
	if f.runLimits.maxRuns == 0 {
		// Each of --parallel trials runs one script at a time: room for
		// them all, within the memory bound still.
		opts.MaxRuns = max(admission.DefaultRuns(), f.parallel)
	}
	rt, err := f.runLimits.newRunner(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()
	cfg.Runner = rt
	view := newBenchProgress(stderr, isTerminal(stderr))
	cfg.Progress = view.show
	sum, err := bench.Run(ctx, cfg)
	view.end()
	if sum == nil {
		if err == nil {
			err = errors.New("bench: no summary")
		}
		return usageErr("%v", err)
	}
	if f.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(benchSummaryJSON(sum)); jerr != nil {
			return jerr
		}
	} else {
		printBenchSummary(cmd.OutOrStdout(), sum)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitInterrupted, err: fmt.Errorf("bench: interrupted; finish it with --resume %s", sum.RunID)}
	}
	return &exitError{code: exitSandbox, err: fmt.Errorf("bench: %w; finish it with --resume %s", err, sum.RunID)}
}

// benchConfig is the run the flags describe: the tasks, the selected
// plugin sets, the prices, the provider and the agent.
func benchConfig(f *benchRunFlags, args []string, stderr io.Writer) (*bench.Config, error) {
	if f.attempts < 1 || f.parallel < 1 || f.maxTurns < 1 {
		return nil, usageErr("--attempts, --parallel and --max-turns must be at least 1")
	}
	var shard bench.Shard
	if f.shard != "" {
		s, err := bench.ParseShard(f.shard)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		shard = s
	}
	tasks, err := loadBenchTasks(args)
	if err != nil {
		return nil, err
	}
	selected, err := selectBenchSets(f, stderr)
	if err != nil {
		return nil, err
	}
	cfg := &bench.Config{
		Tasks: tasks, Sets: selected, SetsFile: f.setsFile, ReposDir: f.repos, Agent: f.agent,
		Attempts: f.attempts, Parallel: f.parallel, Shard: shard, Out: f.out, RunID: f.resume, Resume: f.resume != "",
		Limits: agent.Limits{MaxTurns: f.maxTurns}, Prices: bench.DefaultPrices, Native: f.native,
	}
	if len(f.native) > 0 {
		if err := native.Check(); err != nil {
			return nil, &exitError{code: exitSandbox, err: err}
		}
	}
	if cfg.ReposDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cfg.ReposDir = filepath.Join(d, "skillrun", "repos")
		}
	}
	if f.prices != "" {
		b, err := os.ReadFile(f.prices)
		if err != nil {
			return nil, usageErr("--prices: %v", err)
		}
		if cfg.Prices, err = bench.ParsePrices(b, f.prices); err != nil {
			return nil, usageErr("--prices: %v", err)
		}
	}
	if err := benchProvider(f, cfg, tasks); err != nil {
		return nil, err
	}
	if f.agent != bench.OracleAgent {
		def, err := sessionAgent(&sessionFlags{agentName: f.agent}, nil, stderr)
		if err != nil {
			return nil, err
		}
		cfg.AgentDef = def
	}
	return cfg, nil
}

// selectBenchSets are the plugin sets --sets names, of the --sets-file; what
// their allowed-tools lists leave unclear is said on stderr.
func selectBenchSets(f *benchRunFlags, stderr io.Writer) ([]*bench.PluginSet, error) {
	sets, err := bench.LoadPluginSets(f.setsFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr("--sets %s: no such file (ADE-bench keeps plugin sets in %s)", f.setsFile, defaultSetsFile)
		}
		return nil, usageErr("%v", err)
	}
	// ADE-bench takes the names space-separated in one value; each value
	// may also hold several, separated by spaces or commas.
	var names []string
	for _, v := range f.sets {
		names = append(names, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })...)
	}
	selected, err := sets.Select(names, f.agent)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	for _, s := range selected {
		_, notes := bench.ToolFilter(s.AllowedTools)
		for _, n := range notes {
			fmt.Fprintf(stderr, "skillrun: plugin set %s: %s\n", s.Name, n)
		}
	}
	return selected, nil
}

// loadBenchTasks loads each argument as a task folder, or every task
// folder in it (a folder holding instruction.md is a task).
func loadBenchTasks(args []string) ([]*bench.Task, error) {
	var out []*bench.Task
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, "instruction.md")); err == nil {
			t, err := bench.LoadTask(a)
			if err != nil {
				return nil, usageErr("%v", err)
			}
			out = append(out, t)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, usageErr("task %s: %v", a, safefile.Cause(err))
		}
		found := 0
		for _, e := range entries {
			dir := filepath.Join(a, e.Name())
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "instruction.md")); err != nil {
				continue
			}
			t, err := bench.LoadTask(dir)
			if err != nil {
				return nil, usageErr("%v", err)
			}
			out = append(out, t)
			found++
		}
		if found == 0 {
			return nil, usageErr("%s: no task (a task folder holds instruction.md, task.toml and tests/test.sh)", a)
		}
	}
	return out, nil
}

// benchProvider sets the run's provider from the flags: none for the
// oracle, each task's plan for scripted, an HTTP provider otherwise.
func benchProvider(f *benchRunFlags, cfg *bench.Config, tasks []*bench.Task) error {
	if f.agent == bench.OracleAgent {
		if f.provider != "" || f.model != "" {
			return usageErr("--agent oracle runs each task's solution/solve.sh; it takes no --provider or --model")
		}
		cfg.ProviderName, cfg.Model = "none", "oracle"
		cfg.Provider = func(*bench.Task) (agent.Provider, error) { return nil, errors.New("the oracle has no provider") }
		return nil
	}
	name := f.provider
	if name == "" {
		name = "scripted"
	}
	cfg.ProviderName, cfg.Model = name, f.model
	switch name {
	case "scripted":
		plans := map[string]*agent.Plan{}
		for _, t := range tasks {
			if t.Plan == "" {
				return usageErr("task %s has no plan.toml for --provider scripted", t.ID)
			}
			p, err := agent.LoadPlan(t.Plan)
			if err != nil {
				return usageErr("task %s: %v", t.ID, err)
			}
			plans[t.Dir] = p
		}
		if cfg.Model == "" {
			cfg.Model = "scripted"
		}
		cfg.Provider = func(t *bench.Task) (agent.Provider, error) { return agent.NewScripted(plans[t.Dir]), nil }
		return nil
	case "anthropic", "openai":
		o := providers.FromEnv(providers.Options{BaseURL: f.baseURL, Model: f.model}, name)
		var p agent.Provider
		var err error
		if name == "anthropic" {
			p, err = providers.NewAnthropic(o)
		} else {
			p, err = providers.NewOpenAI(o)
		}
		if err != nil {
			return usageErr("%v", err)
		}
		if cfg.Model == "" {
			cfg.Model = o.Model
		}
		cfg.Provider = func(*bench.Task) (agent.Provider, error) { return p, nil }
		return nil
	}
	return usageErr("--provider %q: not a provider (scripted, anthropic or openai)", name)
}

// benchProgress shows a run's progress: a bar with pass counts and an
// ETA redrawn in a terminal, one line per trial elsewhere.
type benchProgress struct {
	w   io.Writer
	tty bool
	any bool
}

func newBenchProgress(w io.Writer, tty bool) *benchProgress { return &benchProgress{w: w, tty: tty} }

func (v *benchProgress) show(p bench.Progress) {
	v.any = true
	last := p.Last
	verdict := "unresolved"
	switch {
	case last.IsResolved:
		verdict = "resolved"
	case last.FailureMode != bench.FailureNone:
		verdict = string(last.FailureMode)
	}
	if !v.tty {
		fmt.Fprintf(v.w, "[%d/%d] %s attempt %d, set %s: %s (%.1fs)\n", p.Done, p.Total, last.TaskID, last.Attempt,
			last.PluginSetName, verdict, float64(last.RuntimeMS)/1000)
		return
	}
	const width = 30
	filled := width * p.Done / max(p.Total, 1)
	eta := "?"
	if ran := p.Done - p.Skipped; ran > 0 {
		left := time.Duration(float64(p.Elapsed) / float64(ran) * float64(p.Total-p.Done))
		eta = left.Round(time.Second).String()
	}
	fmt.Fprintf(v.w, "\r\x1b[K[%s%s] %d/%d  resolved %d  errored %d  ETA %s", strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), p.Done, p.Total, p.Resolved, p.Errored, eta)
}

func (v *benchProgress) end() {
	if v.tty && v.any {
		fmt.Fprintln(v.w)
	}
}

func printBenchSummary(w io.Writer, sum *bench.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SET\tRESOLVED\tUNRESOLVED\tERRORED\tACCURACY\tPASS@K\tFOLDER")
	for i, r := range sum.Sets {
		var ks []string
		for _, k := range sortedPassAtK(r.PassAtK) {
			ks = append(ks, fmt.Sprintf("@%s %.2f", k, r.PassAtK[k]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%s\t%s\n", r.PluginSet.Name, r.NResolved, r.NUnresolved, r.NErrored,
			r.Accuracy, strings.Join(ks, " "), sum.Dirs[i])
	}
	_ = tw.Flush()
}

func sortedPassAtK(m map[string]float64) []string {
	ks := slices.Collect(maps.Keys(m))
	slices.SortFunc(ks, func(a, b string) int { // numeric order: 2, 4, 5, 8, 10
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return ks
}

func benchSummaryJSON(sum *bench.Summary) any {
	type set struct {
		Name   string       `json:"plugin_set"`
		Folder string       `json:"folder"`
		Totals bench.Totals `json:"totals"`
	}
	out := struct {
		RunID string `json:"run_id"`
		Sets  []set  `json:"sets"`
	}{RunID: sum.RunID}
	for i, r := range sum.Sets {
		out.Sets = append(out.Sets, set{Name: r.PluginSet.Name, Folder: sum.Dirs[i], Totals: r.Totals})
	}
	return out
}
