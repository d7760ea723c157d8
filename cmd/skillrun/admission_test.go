package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// startMCPStdio runs the skillrun CLI (this test binary, on PATH as
// skillrun) as `skillrun mcp ARGS...`, a real process, and connects the
// official SDK's client to it over its stdin and stdout.
func startMCPStdio(t *testing.T, args ...string) (*mcpsdk.ClientSession, *bytes.Buffer) {
	t.Helper()
	bin, err := exec.LookPath("skillrun")
	require.NoError(t, err, "testscript puts the test binary on PATH as skillrun")
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, &stderr
}

// admissionServer writes a policy granting the shell the workspace and
// starts `skillrun mcp` over it with the extra flags.
func admissionServer(t *testing.T, flags ...string) (*mcpsdk.ClientSession, string, *bytes.Buffer) {
	t.Helper()
	root := mcpSkill(t)
	ws := t.TempDir()
	policy := filepath.Join(t.TempDir(), "policy.toml")
	testkit.WriteTree(t, "", map[string]string{
		policy:                 "[default]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\n",
		ws + "/inflight/.keep": "",
		ws + "/counts/.keep":   "",
	})
	cs, stderr := startMCPStdio(t, append([]string{root, "--workspace", ws, "--policy", policy}, flags...)...)
	return cs, ws, stderr
}

// TestMCPRunAdmissionAttack is the attack as it comes: an MCP client
// makes many parallel shell tool calls, each holding a run (and its
// memory limit) for a while. With --max-runs 2 the guests themselves
// never see more than two of them in flight: each marks its start in the
// workspace, counts the marks there at its start and after its sleep,
// and removes its mark. Without the bound all of them run at once.
func TestMCPRunAdmissionAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	const calls = 6
	cs, ws, stderr := admissionServer(t, "--max-runs", "2", "--max-run-wait", "5m")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	results := make([]*mcpsdk.CallToolResult, calls)
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			command := fmt.Sprintf("touch inflight/r%d; a=$(ls inflight | wc -l); sleep 2; b=$(ls inflight | wc -l); echo $a $b > counts/r%d; rm inflight/r%d", i, i, i)
			results[i], errs[i] = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": command}})
		})
	}
	wg.Wait()
	peak := 0
	for i := range calls {
		require.NoError(t, errs[i], "call %d", i)
		require.False(t, results[i].IsError, "call %d: %s\n%s", i, textOf(results[i]), stderr)
		b, err := os.ReadFile(filepath.Join(ws, "counts", fmt.Sprintf("r%d", i)))
		require.NoError(t, err, "call %d wrote no count", i)
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			require.NoError(t, err, "call %d: %q", i, b)
			peak = max(peak, n)
		}
	}
	assert.LessOrEqual(t, peak, 2, "--max-runs 2, but %d runs were in flight at once", peak)
	assert.Equal(t, 2, peak, "two runs at once were allowed, and the calls were parallel")
}

// TestMCPRunAdmissionWaitBound: a call that finds no room waits
// --max-run-wait, then fails with an error result that names the flag
// and the use, while the run ahead of it goes on and succeeds.
func TestMCPRunAdmissionWaitBound(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	cs, ws, stderr := admissionServer(t, "--max-runs", "1", "--max-run-wait", "1s")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	held := make(chan *mcpsdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "touch inflight/held; sleep 6; echo held done"}})
		assert.NoError(t, err)
		held <- res
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "inflight", "held"))
		return err == nil
	}, 3*time.Minute, 10*time.Millisecond, "the first call did not start:\n%s", stderr)

	start := time.Now()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "touch inflight/second"}})
	waited := time.Since(start)
	require.NoError(t, err)
	require.True(t, res.IsError, "a call past the bound failed: %s", textOf(res))
	msg := textOf(res)
	assert.Contains(t, msg, "too many runs in flight: waited ")
	assert.Contains(t, msg, "1 of 1 runs in flight (--max-runs)")
	assert.Contains(t, msg, "raise --max-runs or --max-run-memory")
	assert.Less(t, waited, 5*time.Second, "it failed at the wait bound, not when the run ahead ended")
	assert.NoFileExists(t, filepath.Join(ws, "inflight", "second"))

	first := <-held
	require.NotNil(t, first)
	assert.False(t, first.IsError, textOf(first))
	assert.Contains(t, textOf(first), "held done")
}

// TestRunLimitFlagsBad: the run-limit flags of every command that has
// them refuse a bad value before anything runs, naming the flag.
func TestRunLimitFlagsBad(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--max-runs", "-1"},
		{"mcp", "--max-run-memory", "lots"},
		{"session", "--plan", "../../examples/session-demo/plan.toml", "--skills", "../../examples", "--no-prompt", "--max-run-wait", "-1s"},
		{"bench", "run", benchTasks, "--sets", benchSets, "--agent", "oracle", "--max-run-memory", "5PB"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 2, code, "%v: %s", args, stderr.String())
		flag := args[len(args)-2]
		assert.Contains(t, stderr.String(), flag, "%v", args)
	}
}
