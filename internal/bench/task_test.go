package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTask writes a task folder with files (name → body) and returns it.
func newTask(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "task-a")
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func minimalTask(extra map[string]string) map[string]string {
	f := map[string]string{"instruction.md": "Do it.\n", "tests/test.sh": "true\n"}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// TestLoadExampleTasks: the shipped tasks load, with their fixtures,
// plans, solutions and mount point.
func TestLoadExampleTasks(t *testing.T) {
	entries, err := os.ReadDir("../../examples/bench/tasks")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(entries), 6)
	for _, e := range entries {
		task, err := LoadTask(filepath.Join("../../examples/bench/tasks", e.Name()))
		require.NoError(t, err, e.Name())
		assert.Equal(t, e.Name(), task.ID)
		assert.Equal(t, "/app", task.MountAt)
		assert.NotEmpty(t, task.Workspace, e.Name())
		assert.NotEmpty(t, task.Plan, e.Name())
		assert.NotEmpty(t, task.Solution, e.Name())
		assert.Equal(t, 120*time.Second, task.AgentTimeout)
		assert.Equal(t, 60*time.Second, task.VerifierTimeout)
	}
}

// TestLoadHarborTask: a task.toml as Harbor writes it (Docker's keys
// too) loads; what has no meaning without Docker is ignored.
func TestLoadHarborTask(t *testing.T) {
	dir := newTask(t, minimalTask(map[string]string{"task.toml": `version = "1.0"
source = "harbor"

[task]
name = "org/task-a"
keywords = ["x"]

[metadata]
author_name = "someone"
difficulty = "easy"
tags = ["a", "b"]

[verifier]
timeout_sec = 30.0
env = { A = "1" }

[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 600.0
docker_image = "ubuntu:24.04"
cpus = 1
memory_mb = 2048

[solution]
env = { B = "2" }
`}))
	task, err := LoadTask(dir)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, task.VerifierTimeout)
	assert.Equal(t, 300*time.Second, task.AgentTimeout)
	assert.Equal(t, "easy", task.Metadata["difficulty"])
	assert.Empty(t, task.Workspace, "no fixture: an empty workspace")
	assert.Equal(t, "/app", task.MountAt)
	assert.Empty(t, task.Solution)
}

// TestLoadTaskBadInput: each broken task says what and where.
func TestLoadTaskBadInput(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no instruction", map[string]string{"tests/test.sh": "true"}, "instruction.md: no such file"},
		{"empty instruction", map[string]string{"instruction.md": " \n", "tests/test.sh": "true"}, "instruction.md is empty"},
		{"no verifier", map[string]string{"instruction.md": "x"}, "no tests/test.sh"},
		{"unknown key", minimalTask(map[string]string{"task.toml": "[agent]\ntimeout_sec = 1.0\ntimeout = 3\n"}), `task.toml:3: unknown key "agent.timeout"`},
		{"unknown skillrun key", minimalTask(map[string]string{"task.toml": "[skillrun]\nworkspce = \"w\"\n"}), `task.toml:2: unknown key "skillrun.workspce"`},
		{"wrong type", minimalTask(map[string]string{"task.toml": "[agent]\ntimeout_sec = \"ten\"\n"}), "task.toml"},
		{"negative timeout", minimalTask(map[string]string{"task.toml": "[verifier]\ntimeout_sec = -1.0\n"}), "timeout_sec must be positive"},
		{"bad TOML", minimalTask(map[string]string{"task.toml": "[agent\n"}), "task.toml:2: invalid TOML"},
		{"workspace escapes", minimalTask(map[string]string{"task.toml": "[skillrun]\nworkspace = \"../..\"\n"}), "a path inside the task folder"},
		{"workspace missing", minimalTask(map[string]string{"task.toml": "[skillrun]\nworkspace = \"ws\"\n"}), "is not a folder of the task"},
		{"relative mount", minimalTask(map[string]string{"task.toml": "[skillrun]\nmount = \"app\"\n"}), "an absolute folder path"},
		{"root mount", minimalTask(map[string]string{"task.toml": "[skillrun]\nmount = \"/\"\n"}), "an absolute folder path"},
		{"plan missing", minimalTask(map[string]string{"task.toml": "[skillrun]\nplan = \"p.toml\"\n"}), "is not a file of the task"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadTask(newTask(t, c.files))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
