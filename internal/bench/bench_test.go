package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// nativeTrial is the same trial done natively, the baseline: copy the
// fixture, run the plan's shell command and the verifier with /bin/bash,
// their /app and /logs/verifier rewritten to the copy.
func nativeTrial(b *testing.B, task *Task, command string) {
	ws := b.TempDir()
	require.NoError(b, copyTree(ws, task.Workspace))
	logs := filepath.Join(ws, ".logs")
	require.NoError(b, os.Mkdir(logs, 0o755))
	test, err := os.ReadFile(filepath.Join(task.Dir, "tests", "test.sh"))
	require.NoError(b, err)
	script := strings.NewReplacer("/logs/verifier", logs, "/app", ws).Replace(string(test))
	for _, s := range []string{command, script} {
		cmd := exec.Command("/bin/bash", "-c", s)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, string(out))
	}
	reward, err := os.ReadFile(filepath.Join(logs, "reward.txt"))
	require.NoError(b, err)
	require.Equal(b, "1\n", string(reward))
}

// BenchmarkTrial is the overhead of one trial, everything but the model
// (a scripted one): a fresh workspace, the session with its shell call,
// the verifier in the sandboxed shell, the result written. The baseline
// is the same work done natively by /bin/bash.
func BenchmarkTrial(b *testing.B) {
	task, err := LoadTask(filepath.Join(exampleTasks, "row-count"))
	require.NoError(b, err)
	const command = "tail -n +2 sales.csv | wc -l | tr -d ' ' > answer.txt"
	var native time.Duration
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			nativeTrial(b, task, command)
		}
		native = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("skillrun", func(b *testing.B) {
		out := b.TempDir()
		warm := scriptedConfig(b, []*Task{task}, out, "no-plugins") // the interpreters compiled and loaded once
		warm.RunID = "warm"
		_, err := Run(context.Background(), warm)
		require.NoError(b, err)
		i := 0
		for b.Loop() {
			cfg := scriptedConfig(b, []*Task{task}, out, "no-plugins")
			cfg.RunID = fmt.Sprint("r", i)
			i++
			sum, err := Run(context.Background(), cfg)
			require.NoError(b, err)
			require.Equal(b, 1, sum.Sets[0].NResolved)
		}
		per := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(per.Microseconds())/1000, "ms/trial")
		if native > 0 {
			b.ReportMetric(float64(per)/float64(native), "x-native")
		}
	})
}

// BenchmarkRun200 is the wall time of a 200-trial scripted run (5 tasks ×
// 2 sets × 20 attempts) at --parallel 1 and 8; the ratio of the two is
// reported by the second.
func BenchmarkRun200(b *testing.B) {
	all := loadTasks(b, exampleTasks)
	var tasks []*Task
	for _, t := range all {
		if t.ID != "inventory-report" { // 5 tasks
			tasks = append(tasks, t)
		}
	}
	var serial time.Duration
	for _, par := range []int{1, 8} {
		b.Run(fmt.Sprintf("parallel-%d", par), func(b *testing.B) {
			out := b.TempDir()
			warm := scriptedConfig(b, tasks[:1], out)
			warm.RunID = "warm"
			_, err := Run(context.Background(), warm)
			require.NoError(b, err)
			i := 0
			for b.Loop() {
				cfg := scriptedConfig(b, tasks, out)
				cfg.Attempts, cfg.Parallel, cfg.RunID = 20, par, fmt.Sprint("r", i)
				i++
				sum, err := Run(context.Background(), cfg)
				require.NoError(b, err)
				require.Equal(b, 100, sum.Sets[0].NTrials)
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(per.Seconds(), "s/run")
			b.ReportMetric(float64(per.Milliseconds())/200, "ms/trial")
			if par == 1 {
				serial = per
			} else if serial > 0 {
				b.ReportMetric(float64(serial)/float64(per), "speedup")
			}
		})
	}
}
