package mcp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/sandbox"
)

// buildMCPGuest builds testdata/mcpguest for wasip1 and returns the module.
// It is built from the module root, as part of the main module, so that it
// imports package guest as it is in this tree.
func buildMCPGuest(t *testing.T) []byte {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("building the test guest needs the go command: %v", err)
		}
		t.Skipf("building the test guest needs the go command: %v", err)
	}
	out := filepath.Join(t.TempDir(), "mcpguest.wasm")
	cmd := exec.Command(goTool, "build", "-o", out, "./host/mcp/testdata/mcpguest")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", cmd, msg)
	wasm, err := os.ReadFile(out)
	require.NoError(t, err)
	return wasm
}

// TestGuestCallsBridgedTool: a Wasm guest calls mcp_call, which the host
// serves with a Bridge to a real MCP server subprocess (the fake server).
// The call goes guest → host function → capability check → Bridge →
// stdio → server and back; without the mcp grant it is denied before it
// reaches the bridge.
func TestGuestCallsBridgedTool(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds a Go guest and runs it against the fake MCP server (2 s); the full suite runs it")
	}
	wasm := buildMCPGuest(t)
	ctx := t.Context()
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	m, err := r.Compile(ctx, wasm)
	require.NoError(t, err)
	b := startFake(t, &mcp.BridgeOptions{CallTimeout: 30 * time.Second})

	// run runs the guest with the mcp grant and input; it returns what the
	// guest printed and the mcp audit events ("allow fake/echo").
	run := func(t *testing.T, grant []string, input string) (string, []string) {
		t.Helper()
		var events []audit.Event
		env := &host.Env{
			Skill: "demo", Script: "mcpguest",
			Granted:  capabilities.Set{MCP: grant},
			Input:    []byte(input),
			Services: host.Services{MCP: b, Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) { events = append(events, e) })},
		}
		var stdout bytes.Buffer
		res, err := m.Run(ctx, &sandbox.RunConfig{Name: "demo:mcpguest", Host: env, Stdout: &stdout, Stderr: &stdout, Timeout: time.Minute})
		require.NoError(t, err, "run: output:\n%s", stdout.String())
		require.Zero(t, res.ExitCode, "run: exit code; output:\n%s", stdout.String())
		var mcpEvents []string
		for _, e := range events {
			if e.Kind == "mcp" {
				mcpEvents = append(mcpEvents, string(e.Decision)+" "+e.Value)
			}
		}
		return strings.TrimSpace(stdout.String()), mcpEvents
	}

	t.Run("granted", func(t *testing.T) {
		const text = "hello through the bridge ✓"
		got, events := run(t, []string{"fake/*"}, `{"server":"fake","tool":"echo","args":{"text":"`+text+`"}}`)
		assert.Equal(t, "result: is_error=false content="+text, got, "what the guest printed")
		assert.Equal(t, []string{"allow fake/echo"}, events, "mcp audit events")
		// A tool's own failure reaches the guest as a result with is_error.
		got, _ = run(t, []string{"fake/*"}, `{"server":"fake","tool":"fail","args":{}}`)
		assert.True(t, strings.HasPrefix(got, "result: is_error=true"), "fail: guest printed %q, want an is_error result", got)
		assert.Contains(t, got, "it failed on purpose", "fail: want the server's message")
	})

	t.Run("denied", func(t *testing.T) {
		got, events := run(t, []string{"other/*"}, `{"server":"fake","tool":"echo","args":{"text":"nope"}}`)
		assert.True(t, strings.HasPrefix(got, "error denied: "), "guest printed %q, want a denied error", got)
		assert.Contains(t, got, "fake/echo", "want the denied error to name fake/echo")
		assert.Contains(t, got, "--allow-mcp", "want the denied error to name --allow-mcp")
		assert.NotContains(t, got, "nope", "the denied call reached the server")
		assert.Equal(t, []string{"deny fake/echo"}, events, "mcp audit events")
	})

	// The bridge still serves the host after the guests' calls.
	callEcho(t, b, "after the guests")
}
