package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/scripts"
)

const (
	exampleSets  = "../../examples/bench/plugin-sets.yaml"
	exampleTasks = "../../examples/bench/tasks"
)

var sharedRunner = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.InstalledInterpreters("")})
})

func testRunner(t testing.TB) *scripts.Runner {
	t.Helper()
	r, err := sharedRunner()
	require.NoError(t, err)
	return r
}

// fewTasks are three example tasks, one that every set resolves and two
// that need a skill: enough for the properties of resume, shards and
// merge, at a third of the trials.
func fewTasks(t testing.TB) []*Task {
	t.Helper()
	var out []*Task
	for _, id := range []string{"row-count", "sales-report", "todo-list"} {
		task, err := LoadTask(filepath.Join(exampleTasks, id))
		require.NoError(t, err)
		out = append(out, task)
	}
	return out
}

func loadTasks(t testing.TB, dir string) []*Task {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []*Task
	for _, e := range entries {
		task, err := LoadTask(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out = append(out, task)
	}
	return out
}

// scriptedConfig is a run of the example sets over tasks, each trial's
// model replaying its task's plan.
func scriptedConfig(t testing.TB, tasks []*Task, out string, sets ...string) *Config {
	t.Helper()
	ps, err := LoadPluginSets(exampleSets)
	require.NoError(t, err)
	selected, err := ps.Select(sets, "general")
	require.NoError(t, err)
	plans := map[string]*agent.Plan{}
	for _, task := range tasks {
		if task.Plan != "" {
			p, err := agent.LoadPlan(task.Plan)
			require.NoError(t, err)
			plans[task.ID] = p
		}
	}
	return &Config{
		Tasks: tasks, Sets: selected, SetsFile: exampleSets, Agent: "general", ProviderName: "scripted", Model: "scripted",
		Provider: func(task *Task) (agent.Provider, error) { return agent.NewScripted(plans[task.ID]), nil },
		Out:      out, Runner: testRunner(t), Prices: DefaultPrices, RunID: "run1",
	}
}

var resultsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ResultsSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("results.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("results.schema.json")
})

// validateFile checks a results file against schema/results.schema.json.
func validateFile(t *testing.T, file string) {
	t.Helper()
	s, err := resultsSchema()
	require.NoError(t, err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	require.NoError(t, s.Validate(v), file)
}

// verdicts maps task/attempt to is_resolved, for comparing runs.
func verdicts(res *Results) map[string]bool {
	out := map[string]bool{}
	for _, r := range res.Trials {
		out[r.TaskID+"/"+string(rune('0'+r.Attempt))] = r.IsResolved
	}
	return out
}

// TestRunScriptedSets: two sets over the example tasks, offline. The
// tasks that need a report skill pass only where the set has it; the
// layout is ADE-bench's and every file matches the schema.
func TestRunScriptedSets(t *testing.T) {
	out := t.TempDir()
	cfg := scriptedConfig(t, loadTasks(t, exampleTasks), out)
	cfg.Parallel = 4
	var seen []Progress
	var mu sync.Mutex
	cfg.Progress = func(p Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Sets, 2)
	base, skills := sum.Sets[0], sum.Sets[1]
	assert.Equal(t, "no-plugins", base.PluginSet.Name)
	assert.Equal(t, []string{"region-totals", "row-count", "word-count"}, base.ResolvedIDs)
	assert.Equal(t, []string{"inventory-report", "sales-report", "todo-list"}, base.UnresolvedIDs)
	assert.Equal(t, 6, skills.NResolved)
	assert.Zero(t, base.NErrored+skills.NErrored)
	assert.InDelta(t, 0.5, base.Accuracy, 1e-9)
	require.Len(t, seen, 12)
	assert.Equal(t, 12, seen[len(seen)-1].Done)

	for i, dir := range sum.Dirs {
		assert.Equal(t, filepath.Join(out, "run1__"+sum.Sets[i].PluginSet.Name), dir)
		assert.FileExists(t, filepath.Join(dir, "run_config.yaml"))
		validateFile(t, filepath.Join(dir, "results.json"))
		for _, r := range sum.Sets[i].Trials {
			trialDir := filepath.Join(dir, r.TaskID, "1")
			validateFile(t, filepath.Join(trialDir, "result.json"))
			assert.FileExists(t, filepath.Join(dir, r.Transcript))
			assert.FileExists(t, filepath.Join(trialDir, "verifier", "reward.txt"))
		}
	}
	var report *TrialResult
	for _, r := range skills.Trials {
		if r.TaskID == "sales-report" {
			report = r
		}
	}
	require.NotNil(t, report)
	assert.Equal(t, []string{"py-csv-report"}, report.SkillsUsed)
	assert.Equal(t, []string{"py-csv-report__report", "skill_activate"}, report.ToolsUsed)
	assert.Contains(t, report.TaskPrompt, "You can use the report skills.")
	assert.Equal(t, 3, report.NumTurns)
	assert.Positive(t, report.InputTokens)
	require.NotNil(t, report.CostUSD)
	assert.Zero(t, *report.CostUSD)
	for _, r := range base.Trials {
		assert.Empty(t, r.SkillsUsed, "the baseline has no skills to use")
	}
	// The files on disk are the summary's.
	again, err := ReadResults(sum.Dirs[1])
	require.NoError(t, err)
	assert.Equal(t, skills.Totals, again.Totals)

	// A second run into the same folders is refused: --resume or another --out.
	_, err = Run(context.Background(), scriptedConfig(t, loadTasks(t, exampleTasks), out))
	require.ErrorContains(t, err, "exists: resume that run with --resume run1")
}

// TestRunOracle: every example task passes under the oracle agent.
func TestRunOracle(t *testing.T) {
	cfg := scriptedConfig(t, loadTasks(t, exampleTasks), t.TempDir(), "no-plugins")
	cfg.Agent, cfg.Provider = OracleAgent, nil
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 6, sum.Sets[0].NResolved, "%+v", sum.Sets[0].UnresolvedIDs)
}

// TestRunResume: a run whose trials were lost half-way (a kill: some
// results never written, a trial folder left half done) finishes to the
// totals of a run never interrupted, keeping the trials it had.
func TestRunResume(t *testing.T) {
	tasks := fewTasks(t)
	whole := scriptedConfig(t, tasks, t.TempDir())
	whole.Attempts = 2
	want, err := Run(context.Background(), whole)
	require.NoError(t, err)

	out := t.TempDir()
	cfg := scriptedConfig(t, tasks, out)
	cfg.Attempts = 2
	first, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	dir := first.Dirs[1]
	kept, err := readTrialResult(filepath.Join(dir, "row-count", "1", "result.json"))
	require.NoError(t, err)
	for _, p := range []string{"sales-report/2", "todo-list/1", "row-count/2"} {
		require.NoError(t, os.Remove(filepath.Join(dir, p, "result.json")))
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "results.json")))

	cfg = scriptedConfig(t, tasks, out)
	cfg.Attempts, cfg.Resume = 2, true
	ran := 0
	cfg.Progress = func(p Progress) { ran = p.Done - p.Skipped }
	got, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 3, ran, "only the lost trials run again")
	for i := range want.Sets {
		assert.Equal(t, verdicts(want.Sets[i]), verdicts(got.Sets[i]))
		assert.Equal(t, want.Sets[i].NResolved, got.Sets[i].NResolved)
		assert.Equal(t, want.Sets[i].PassAtK, got.Sets[i].PassAtK)
	}
	again, err := readTrialResult(filepath.Join(dir, "row-count", "1", "result.json"))
	require.NoError(t, err)
	assert.Equal(t, kept.Started, again.Started, "a finished trial is kept, not redone")

	// A result edited by hand is found, and nothing is built on it.
	file := filepath.Join(dir, "row-count", "2", "result.json")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, bytes.Replace(b, []byte(`"is_resolved": true`), []byte(`"is_resolved": false`), 1), 0o644))
	cfg = scriptedConfig(t, tasks, out)
	cfg.Attempts, cfg.Resume = 2, true
	_, err = Run(context.Background(), cfg)
	require.ErrorContains(t, err, "was changed after the trial wrote it")

	// A resume with another matrix is refused.
	cfg = scriptedConfig(t, tasks, out)
	cfg.Attempts, cfg.Resume = 3, true
	_, err = Run(context.Background(), cfg)
	require.ErrorContains(t, err, "2 attempts, now 3")
	// A resume of a run that never started starts it.
	cfg = scriptedConfig(t, tasks, t.TempDir())
	cfg.Resume = true
	fresh, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, want.Sets[0].NResolved/2, fresh.Sets[0].NResolved)
}

// TestRunShards: the shards of a matrix are disjoint and together the
// whole run, trial for trial.
func TestRunShards(t *testing.T) {
	tasks := fewTasks(t)
	whole := scriptedConfig(t, tasks, t.TempDir())
	whole.Attempts = 2
	want, err := Run(context.Background(), whole)
	require.NoError(t, err)
	union := make([]map[string]bool, len(want.Sets))
	for i := range union {
		union[i] = map[string]bool{}
	}
	for i := range 3 {
		cfg := scriptedConfig(t, tasks, t.TempDir())
		cfg.Attempts, cfg.Shard = 2, Shard{I: i, N: 3}
		got, err := Run(context.Background(), cfg)
		require.NoError(t, err)
		for s, res := range got.Sets {
			for k, v := range verdicts(res) {
				_, dup := union[s][k]
				require.False(t, dup, "trial %s in two shards", k)
				union[s][k] = v
			}
		}
	}
	for s := range want.Sets {
		assert.Equal(t, verdicts(want.Sets[s]), union[s])
	}
	for _, bad := range []string{"3/3", "-1/2", "1/0", "a/b", "1/2/3", "01/2"} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
}

// TestTrialFailures: a verifier that hangs, writes garbage or judges by
// its exit status, a model that never answers, a verifier that deletes
// the workspace: each trial gets its failure mode, the run goes on, and
// the next trial has a fresh workspace.
func TestTrialFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	root := t.TempDir()
	mk := func(id, test, toml string) *Task {
		dir := filepath.Join(root, id)
		files := map[string]string{"instruction.md": "Do it.\n", "tests/test.sh": test, "solution/solve.sh": "true\n",
			"environment/workspace/data.txt": "x\n", "task.toml": toml}
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		}
		task, err := LoadTask(dir)
		require.NoError(t, err)
		return task
	}
	// Only the hanging verifier has a short timeout: the others' time
	// is the machine's (a loaded 2-core machine under -race took seconds
	// for a run that takes milliseconds alone).
	fast := "[verifier]\ntimeout_sec = 2.0\n[agent]\ntimeout_sec = 300.0\n"
	roomy := "[verifier]\ntimeout_sec = 300.0\n[agent]\ntimeout_sec = 300.0\n"
	tasks := []*Task{
		mk("hangs", "while true; do :; done\n", fast),
		mk("garbage", "echo 'very good' > /logs/verifier/reward.txt\n", roomy),
		mk("exit-zero", "test -f /app/data.txt\n", roomy),
		mk("exit-one", "exit 1\n", roomy),
		mk("json", `echo '{"reward": 1.0, "other": 3}' > /logs/verifier/reward.json`+"\n", roomy),
		mk("deletes", "test -f /app/data.txt && rm -rf /app/* && echo 1 > /logs/verifier/reward.txt\n", roomy),
		mk("half", "echo 0.5 > /logs/verifier/reward.txt\n", roomy),
		mk("stuck-model", "test -f /app/data.txt\n", "[verifier]\ntimeout_sec = 300.0\n[agent]\ntimeout_sec = 1.0\n"),
	}
	cfg := scriptedConfig(t, tasks[:7], t.TempDir(), "no-plugins")
	cfg.Agent, cfg.Provider, cfg.Attempts = OracleAgent, nil, 2
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	got := map[string]*TrialResult{}
	for _, r := range sum.Sets[0].Trials {
		if r.Attempt == 2 {
			got[r.TaskID] = r
		}
	}
	assert.Equal(t, FailureTestTimeout, got["hangs"].FailureMode)
	assert.Equal(t, FailureParseError, got["garbage"].FailureMode)
	assert.Contains(t, got["garbage"].Error, "not a number")
	assert.True(t, got["exit-zero"].IsResolved)
	assert.False(t, got["exit-one"].IsResolved)
	assert.Equal(t, FailureNone, got["exit-one"].FailureMode)
	assert.True(t, got["json"].IsResolved)
	assert.True(t, got["deletes"].IsResolved, "attempt 2 has the fixture again")
	assert.False(t, got["half"].IsResolved)
	assert.InDelta(t, 0.5, got["half"].Reward, 1e-9)

	// A model that never answers ends at the agent timeout.
	cfg = scriptedConfig(t, tasks[7:], t.TempDir(), "no-plugins")
	cfg.Provider = func(*Task) (agent.Provider, error) { return stuck{}, nil }
	start := time.Now()
	sum, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, FailureAgentTimeout, sum.Sets[0].Trials[0].FailureMode)
	assert.Less(t, time.Since(start), 2*time.Minute, "the agent timeout ends it, not the verifier's")
}

// stuck is a model that never answers.
type stuck struct{}

func (stuck) Name() string { return "stuck" }
func (stuck) Complete(ctx context.Context, _ *agent.Request) (*agent.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRunLock: a second run of the same run id waits for nobody: it
// fails at once, naming the lock.
func TestRunLock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.lock")
	unlock, err := lockRun(file)
	require.NoError(t, err)
	_, err = lockRun(file)
	require.ErrorContains(t, err, "another skillrun bench is running this run")
	unlock()
	unlock2, err := lockRun(file)
	require.NoError(t, err)
	unlock2()
}

// TestResultsFileRoundTrip: result.json keeps every field and a reader
// refuses another schema or unknown fields.
func TestResultsFileRoundTrip(t *testing.T) {
	cost := 0.25
	r := &TrialResult{Schema: SchemaVersion, TrialName: "a.1", TaskID: "a", Attempt: 1, IsResolved: true, FailureMode: FailureNone,
		Reward: 1, CostUSD: &cost, PluginSetName: "s", PluginSetSkills: []string{}, PluginSetMCPServers: []string{},
		ToolsUsed: []string{"shell"}, SkillsUsed: []string{}, Started: time.Now().UTC().Format(time.RFC3339Nano)}
	file := filepath.Join(t.TempDir(), "result.json")
	require.NoError(t, writeTrialResult(file, r))
	validateFile(t, file)
	back, err := readTrialResult(file)
	require.NoError(t, err)
	assert.Equal(t, r, back)
	var m map[string]any
	b, _ := os.ReadFile(file)
	require.NoError(t, json.Unmarshal(b, &m))
	m["extra"] = 1
	b, _ = json.Marshal(m)
	require.NoError(t, os.WriteFile(file, b, 0o644))
	_, err = readTrialResult(file)
	require.ErrorContains(t, err, "not a trial result")
	keysOf := func(m map[string]any) []string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		sort.Strings(k)
		return k
	}
	assert.Contains(t, keysOf(m), "checksum")
}
