package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardRun runs shard i/n of the example matrix into its own folder and
// returns the set folders.
func shardRun(t *testing.T, tasks []*Task, i, n, attempts int) []string {
	t.Helper()
	cfg := scriptedConfig(t, tasks, t.TempDir())
	cfg.Attempts, cfg.Shard = attempts, Shard{I: i, N: n}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return sum.Dirs
}

// TestMerge: the shards of a run merge into folders with the totals of
// the unsharded run, trial for trial, every file valid.
func TestMerge(t *testing.T) {
	tasks := fewTasks(t)
	whole := scriptedConfig(t, tasks, t.TempDir())
	whole.Attempts = 2
	want, err := Run(context.Background(), whole)
	require.NoError(t, err)
	var dirs []string
	for i := range 3 {
		dirs = append(dirs, shardRun(t, tasks, i, 3, 2)...)
	}
	out := t.TempDir()
	got, err := Merge(dirs, out, "merged")
	require.NoError(t, err)
	require.Len(t, got.Sets, 2)
	for i := range want.Sets {
		w, g := want.Sets[i], got.Sets[i]
		assert.Equal(t, w.PluginSet.Name, g.PluginSet.Name)
		assert.Equal(t, verdicts(w), verdicts(g))
		assert.Equal(t, w.NResolved, g.NResolved)
		assert.Equal(t, w.NTrials, g.NTrials)
		assert.Equal(t, w.PassAtK, g.PassAtK)
		assert.Equal(t, "0/1", g.Run.Shard)
		dir := filepath.Join(out, "merged__"+w.PluginSet.Name)
		validateFile(t, filepath.Join(dir, "results.json"))
		for _, r := range g.Trials {
			validateFile(t, filepath.Join(dir, r.TaskID, "2", "result.json"))
			assert.FileExists(t, filepath.Join(dir, r.Transcript))
		}
		rc, err := readRunConfig(filepath.Join(dir, "run_config.yaml"))
		require.NoError(t, err)
		assert.Len(t, rc.MergedFrom, 3)
	}
	_, err = Merge(dirs, out, "merged")
	require.ErrorContains(t, err, "exists")
}

// TestMergeRefuses: what cannot be one run is refused, with the reason.
func TestMergeRefuses(t *testing.T) {
	tasks := fewTasks(t)
	var dirs []string
	for i := range 2 {
		dirs = append(dirs, shardRun(t, tasks, i, 2, 1)...)
	}
	out := t.TempDir()
	_, err := Merge(dirs[:2], out, "m")
	require.ErrorContains(t, err, "shard 1/2 is missing")
	_, err = Merge(append(dirs, dirs[0]), out, "m")
	require.ErrorContains(t, err, "given twice")
	other := shardRun(t, tasks, 1, 2, 2)
	_, err = Merge(append(dirs[:2:2], other...), out, "m")
	require.ErrorContains(t, err, "not shards of one run: 1 attempts, now 2")
	third := shardRun(t, tasks, 2, 3, 1)
	_, err = Merge(append(dirs[:2:2], third...), out, "m")
	require.ErrorContains(t, err, "not one sharding")

	// A result edited by hand.
	file := filepath.Join(dirs[0], "row-count", "1", "result.json")
	if _, err := os.Stat(file); err != nil {
		file = filepath.Join(dirs[2], "row-count", "1", "result.json")
	}
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, bytes.Replace(b, []byte(`"reward": 1`), []byte(`"reward": 0`), 1), 0o644))
	_, err = Merge(dirs, out, "m")
	require.ErrorContains(t, err, "was changed after the trial wrote it")
	require.NoError(t, os.WriteFile(file, b, 0o644))

	// A results.json whose totals were edited.
	res := filepath.Join(dirs[1], "results.json")
	b, err = os.ReadFile(res)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(res, bytes.Replace(b, []byte(`"n_resolved": `), []byte(`"n_resolved": 1`), 1), 0o644))
	_, err = Merge(dirs, out, "m")
	require.ErrorContains(t, err, "does not add up")
	require.NoError(t, os.WriteFile(res, b, 0o644))

	_, err = Merge(dirs, out, "m")
	require.NoError(t, err, "the restored shards merge")
}
