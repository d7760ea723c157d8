package mcp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// TestGuestCallsBridgedTool: a Wasm guest calls mcp_call, which the host
// serves with a Bridge to a real MCP server subprocess (the fake server).
// The call goes guest → host function → capability check → Bridge →
// stdio → server and back; without the mcp grant it is denied before it
// reaches the bridge.
func TestGuestCallsBridgedTool(t *testing.T) {
	wasm := buildMCPGuest(t)
	ctx := t.Context()
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	m, err := r.Compile(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
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
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run: %+v %v\n%s", res, err, stdout.String())
		}
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
		if want := "result: is_error=false content=" + text; got != want {
			t.Errorf("guest printed %q, want %q", got, want)
		}
		if !slices.Equal(events, []string{"allow fake/echo"}) {
			t.Errorf("mcp audit events %q, want [allow fake/echo]", events)
		}
		// A tool's own failure reaches the guest as a result with is_error.
		got, _ = run(t, []string{"fake/*"}, `{"server":"fake","tool":"fail","args":{}}`)
		if !strings.HasPrefix(got, "result: is_error=true") || !strings.Contains(got, "it failed on purpose") {
			t.Errorf("fail: guest printed %q, want an is_error result with the server's message", got)
		}
	})

	t.Run("denied", func(t *testing.T) {
		got, events := run(t, []string{"other/*"}, `{"server":"fake","tool":"echo","args":{"text":"nope"}}`)
		if !strings.HasPrefix(got, "error denied: ") || !strings.Contains(got, "fake/echo") || !strings.Contains(got, "--allow-mcp") {
			t.Errorf("guest printed %q, want a denied error naming fake/echo and --allow-mcp", got)
		}
		if strings.Contains(got, "nope") {
			t.Errorf("guest printed %q: the denied call reached the server", got)
		}
		if !slices.Equal(events, []string{"deny fake/echo"}) {
			t.Errorf("mcp audit events %q, want [deny fake/echo]", events)
		}
	})

	// The bridge still serves the host after the guests' calls.
	callEcho(t, b, "after the guests")
}
