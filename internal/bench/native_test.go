package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/native"
)

func TestMain(m *testing.M) {
	native.Main() // the native tier's confining helper, when a trial re-executes this binary
	os.Exit(m.Run())
}

// TestRunNative: `bench run --native NAME` runs that skill's scripts as
// confined host processes in every set that has the skill: the task is
// resolved as in WebAssembly, and the trial's transcript says which tier
// ran each call.
func TestRunNative(t *testing.T) {
	if err := native.Check(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	task, err := LoadTask(filepath.Join(exampleTasks, "sales-report"))
	require.NoError(t, err)
	cfg := scriptedConfig(t, []*Task{task}, t.TempDir(), "example-skills")
	cfg.Native = []string{"py-csv-report"}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Sets, 1)
	require.Len(t, sum.Sets[0].Trials, 1)
	trial := sum.Sets[0].Trials[0]
	transcript, err := os.ReadFile(filepath.Join(sum.Dirs[0], trial.Transcript))
	require.NoError(t, err)
	assert.True(t, trial.IsResolved, "failure mode %s: %s", trial.FailureMode, transcript)
	assert.Regexp(t, `"type":"tool_result"[^\n]*"tool":"py-csv-report__report"[^\n]*"tier":"native"`, string(transcript))
	rc, err := readRunConfig(filepath.Join(sum.Dirs[0], runConfigFile))
	require.NoError(t, err)
	assert.Equal(t, []string{"py-csv-report"}, rc.NativeSkills, "run_config.yaml says which skills ran natively")

	// The tier is part of the matrix: resuming without it is refused.
	again := scriptedConfig(t, []*Task{task}, cfg.Out, "example-skills")
	again.Resume = true
	_, err = Run(context.Background(), again)
	require.ErrorContains(t, err, "native tier for [py-csv-report], now []")
}
