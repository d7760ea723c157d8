package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	benchTasks = "../../examples/bench/tasks"
	benchSets  = "../../examples/bench/plugin-sets.yaml"
)

type benchTotals struct {
	RunID string `json:"run_id"`
	Sets  []struct {
		Name   string `json:"plugin_set"`
		Totals struct {
			NTrials   int                `json:"n_trials"`
			NResolved int                `json:"n_resolved"`
			NErrored  int                `json:"n_errored"`
			PassAtK   map[string]float64 `json:"pass_at_k"`
		} `json:"totals"`
	} `json:"sets"`
}

func runBenchJSON(t *testing.T, args ...string) benchTotals {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append(args, "--json"), strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var out benchTotals
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
	return out
}

func countResults(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "result.json"))
	return len(m)
}

// TestBenchKillResume: a `bench run` killed with SIGKILL mid-way resumes
// to the totals of a run never interrupted, and keeps what it had.
func TestBenchKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	const attempts, trials = "2", 24 // the kill lands mid-way
	whole := runBenchJSON(t, "bench", "run", benchTasks, "--sets", benchSets, "--attempts", attempts, "--out", t.TempDir())

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "skillrun", "bench", "run", benchTasks, "--sets", benchSets, "--attempts", attempts,
		"--out", out, "--resume", "killed")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	for countResults(out) < 5 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if ctx.Err() != nil {
		_ = cmd.Wait()
		t.Fatalf("no trial finished: %s", stderr.String())
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	had := countResults(out)
	require.Less(t, had, trials, "the run was killed before it finished")
	_, err := os.Stat(filepath.Join(out, "killed__no-plugins", "results.json"))
	require.ErrorIs(t, err, os.ErrNotExist, "a killed run wrote no totals")

	var stdout, errOut bytes.Buffer
	code := run([]string{"bench", "run", benchTasks, "--sets", benchSets, "--attempts", attempts, "--out", out,
		"--resume", "killed", "--json"}, strings.NewReader(""), &stdout, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var resumed benchTotals
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &resumed))
	assert.Equal(t, whole.Sets, resumed.Sets)
	assert.Equal(t, trials, countResults(out))
	assert.Equal(t, trials-had, strings.Count("\n"+errOut.String(), "\n["), "only the trials not finished ran:\n%s", errOut.String())
}

// TestBenchPluginSetNames: --plugin-set takes names as ADE-bench does,
// space-separated in one value, and also repeated or comma-separated.
func TestBenchPluginSetNames(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	for _, args := range [][]string{
		{"--plugin-set", "example-skills no-plugins"},
		{"--plugin-set", "example-skills,no-plugins"},
		{"--plugin-set", "example-skills", "--plugin-set", "no-plugins"},
	} {
		got := runBenchJSON(t, append([]string{"bench", "run", benchTasks + "/row-count", "--sets", benchSets, "--out", t.TempDir()}, args...)...)
		require.Len(t, got.Sets, 2, "%v", args)
		assert.Equal(t, "example-skills", got.Sets[0].Name)
		assert.Equal(t, "no-plugins", got.Sets[1].Name)
	}
}

// TestBenchRunBadInput: every mistake fails before a trial runs, with
// exit status 2 and a message saying what to do.
func TestBenchRunBadInput(t *testing.T) {
	dir := t.TempDir()
	tabs := filepath.Join(dir, "tabs.yaml")
	require.NoError(t, os.WriteFile(tabs, []byte("sets:\n\t- name: a\n"), 0o644))
	noPlan := filepath.Join(dir, "task")
	require.NoError(t, os.MkdirAll(filepath.Join(noPlan, "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(noPlan, "instruction.md"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(noPlan, "tests", "test.sh"), []byte("true"), 0o644))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown set", []string{benchTasks, "--sets", benchSets, "--plugin-set", "nope"}, `unknown plugin set "nope"; available: no-plugins, example-skills`},
		{"no sets file", []string{benchTasks, "--sets", filepath.Join(dir, "none.yaml")}, "no such file"},
		{"tabs", []string{benchTasks, "--sets", tabs}, "tabs.yaml:2: a tab in the indentation"},
		{"bad shard", []string{benchTasks, "--sets", benchSets, "--shard", "4/4"}, "--shard"},
		{"zero attempts", []string{benchTasks, "--sets", benchSets, "--attempts", "0"}, "--attempts"},
		{"no task", []string{dir, "--sets", benchSets}, "task"},
		{"no plan", []string{noPlan, "--sets", benchSets}, "has no plan.toml for --provider scripted"},
		{"oracle with provider", []string{benchTasks, "--sets", benchSets, "--agent", "oracle", "--provider", "scripted"}, "takes no --provider"},
		{"unknown provider", []string{benchTasks, "--sets", benchSets, "--provider", "nope"}, `--provider "nope"`},
		{"unknown agent", []string{benchTasks, "--sets", benchSets, "--agent", "nobody"}, "no such agent"},
		{"oracle without solution", []string{noPlan, "--sets", benchSets, "--agent", "oracle"}, "no solution/solve.sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"bench", "run", "--out", out}, c.args...), strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, 2, code, stderr.String())
			assert.Contains(t, stderr.String(), c.want)
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				assert.True(t, strings.HasSuffix(e.Name(), ".lock"), "nothing ran: %s", e.Name())
			}
		})
	}
}
