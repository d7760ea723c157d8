package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
)

// fakeServerEnv, set to "1", makes the test binary run as the fake MCP
// server (TestFakeMCPServer): the bridge tests start it as a command
// server by re-executing the test binary, as the MCP SDK's cmd_test.go
// does, so no separate build is needed. The variable reaches the child
// through ServerConfig.Env, which also tests that Env is passed on.
const fakeServerEnv = "SKILLRUN_MCP_FAKE_SERVER"

// TestFakeMCPServer is not a test: run by a bridge test as a subprocess,
// it serves the fake MCP server on stdin and stdout, then exits.
func TestFakeMCPServer(t *testing.T) {
	if os.Getenv(fakeServerEnv) != "1" {
		t.Skip("the fake MCP server; run as a subprocess by the bridge tests")
	}
	runFakeServer()
	os.Exit(0)
}

// runFakeServer serves the tools
//   - echo {text}: returns text;
//   - fail: a result with isError set;
//   - crash: exits mid-call;
//   - hang: never returns;
//   - garbage: writes a line that is not JSON to stdout, then exits;
//   - env: returns its environment, one variable a line.
func runFakeServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "v1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	type none struct{}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return nil, nil, errors.New("it failed on purpose")
	})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit mid-call."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		os.Exit(1)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never return."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		time.Sleep(time.Hour)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "garbage", Description: "Write garbage."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		_, _ = os.Stdout.WriteString("this is {not JSON\n")
		time.Sleep(200 * time.Millisecond)
		os.Exit(2)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Show the environment."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return text(strings.Join(os.Environ(), "\n")), nil, nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(3)
	}
}

func fakeConfig(t *testing.T) mcp.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.ServerConfig{
		Command: exe,
		Args:    []string{"-test.run=^TestFakeMCPServer$"},
		// GORACE: a race-enabled child would otherwise sleep 1s on exit.
		Env: map[string]string{fakeServerEnv: "1", "GORACE": "atexit_sleep_ms=0"},
	}
}

// startFake starts a bridge to the fake server, named "fake".
func startFake(t *testing.T, o *mcp.BridgeOptions) *mcp.Bridge {
	t.Helper()
	b := mcp.NewBridge(map[string]mcp.ServerConfig{"fake": fakeConfig(t)}, o)
	if err := b.Start(t.Context()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func callEcho(t *testing.T, b *mcp.Bridge, text string) {
	t.Helper()
	res, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(`{"text":"`+text+`"}`))
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if res.IsError || res.Content != text {
		t.Fatalf("echo = %+v, want content %q", res, text)
	}
}

var _ host.MCPCaller = (*mcp.Bridge)(nil)

func TestBridgeRegister(t *testing.T) {
	b := startFake(t, nil)
	r := host.NewRegistry()
	if err := b.Register(r); err != nil {
		t.Fatalf("Register: %v", err)
	}
	var names []string
	for _, d := range r.List() {
		names = append(names, d.Name)
		if d.Source != host.SourceMCP {
			t.Errorf("%s: source %q, want %q", d.Name, d.Source, host.SourceMCP)
		}
	}
	want := []string{"mcp__fake__crash", "mcp__fake__echo", "mcp__fake__env", "mcp__fake__fail", "mcp__fake__garbage", "mcp__fake__hang"}
	if !slices.Equal(names, want) {
		t.Fatalf("registered %v, want %v", names, want)
	}
	echo, _ := r.Lookup("mcp__fake__echo")
	if def := echo.Definition(); def.Description != "Echo the text." || !strings.Contains(string(def.InputSchema), `"text"`) {
		t.Errorf("echo definition = %+v, want the server's description and input schema", def)
	}

	res, err := r.Call(t.Context(), "mcp__fake__echo", json.RawMessage(`{"text":"hello"}`))
	if err != nil || res.IsError || res.Content != "hello" {
		t.Fatalf("Call echo = %+v, %v; want content hello", res, err)
	}
	// The registry checks the input against the server's schema.
	res, err = r.Call(t.Context(), "mcp__fake__echo", json.RawMessage(`{"text":1}`))
	if err != nil || !res.IsError {
		t.Errorf("Call echo with a bad input = %+v, %v; want an error result", res, err)
	}
	res, err = r.Call(t.Context(), "mcp__fake__fail", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "it failed on purpose") {
		t.Errorf("Call fail = %+v, %v; want an error result with the server's message", res, err)
	}
	// A bridge failure is an error result too, naming server and tool.
	res, err = r.Call(t.Context(), "mcp__fake__crash", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, `"fake"`) || !strings.Contains(res.Content, `"crash"`) {
		t.Errorf("Call crash = %+v, %v; want an error result naming server and tool", res, err)
	}
}

func TestBridgeIsError(t *testing.T) {
	b := startFake(t, nil)
	res, err := b.CallTool(t.Context(), "fake", "fail", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content, "it failed on purpose") {
		t.Errorf("fail = %+v, want IsError and the message", res)
	}
	callEcho(t, b, "still alive")
}

func TestBridgeCrashRestarts(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{MaxRestarts: 1})
	for i := range 3 { // a success resets the count of restarts in a row
		if _, err := b.CallTool(t.Context(), "fake", "crash", nil); err == nil || !strings.Contains(err.Error(), `"fake"`) {
			t.Fatalf("crash %d: err = %v, want an error naming the server", i, err)
		}
		callEcho(t, b, "back")
	}
}

func TestBridgeRestartsExhausted(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{MaxRestarts: 2})
	for i := range 3 { // the first start, then two restarts
		if _, err := b.CallTool(t.Context(), "fake", "crash", nil); err == nil || errors.Is(err, mcp.ErrServerDown) {
			t.Fatalf("crash %d: err = %v, want a connection error", i, err)
		}
	}
	for range 2 {
		start := time.Now()
		_, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(`{"text":"x"}`))
		if !errors.Is(err, mcp.ErrServerDown) || !strings.Contains(err.Error(), `"fake"`) {
			t.Fatalf("echo after restarts ran out: err = %v, want ErrServerDown naming the server", err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("failing took %v, want at once", d)
		}
	}
}

func TestBridgeHangTimesOut(t *testing.T) {
	const timeout = 500 * time.Millisecond
	b := startFake(t, &mcp.BridgeOptions{CallTimeout: timeout})
	start := time.Now()
	_, err := b.CallTool(t.Context(), "fake", "hang", nil)
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `server "fake" tool "hang"`) {
		t.Fatalf("hang: err = %v, want a deadline error naming server and tool", err)
	}
	if elapsed < timeout || elapsed > timeout+2*time.Second {
		t.Errorf("hang returned after %v, want about %v", elapsed, timeout)
	}
	callEcho(t, b, "not stuck")
}

func TestBridgeCallerCancel(t *testing.T) {
	b := startFake(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := b.CallTool(ctx, "fake", "hang", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang with a short ctx: err = %v, want the ctx's error", err)
	}
	// Through a registry, the cancellation of the caller's ctx stays an error.
	r := host.NewRegistry()
	if err := b.Register(r); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel2()
	if res, err := r.Call(ctx2, "mcp__fake__hang", json.RawMessage(`{}`)); err == nil {
		t.Fatalf("Call hang with a short ctx = %+v, want an error", res)
	}
}

func TestBridgeGarbage(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{CallTimeout: 10 * time.Second})
	start := time.Now()
	_, err := b.CallTool(t.Context(), "fake", "garbage", nil)
	if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `server "fake" tool "garbage"`) || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("garbage: err = %v, want a connection error naming server and tool", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("garbage took %v", d)
	}
	callEcho(t, b, "restarted")
}

func TestBridgeEnv(t *testing.T) {
	t.Setenv("SKILLRUN_HOST_SECRET", "s3cret")
	cfg := fakeConfig(t)
	cfg.Env["GREETING"] = "hi"
	b := mcp.NewBridge(map[string]mcp.ServerConfig{"fake": cfg}, nil)
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.CallTool(t.Context(), "fake", "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for kv := range strings.SplitSeq(res.Content, "\n") {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"GORACE", "GREETING", fakeServerEnv}
	for _, k := range []string{"HOME", "PATH"} {
		if _, ok := os.LookupEnv(k); ok {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("server environment has %v, want only %v", names, want)
	}
}

func TestBridgeStartFailure(t *testing.T) {
	b := mcp.NewBridge(map[string]mcp.ServerConfig{
		"fake":    fakeConfig(t),
		"missing": {Command: "/nonexistent/mcp-server"},
		"bad":     {Command: "x", URL: "http://localhost/mcp"},
	}, &mcp.BridgeOptions{StartTimeout: 5 * time.Second})
	defer b.Close()
	err := b.Start(t.Context())
	if err == nil || !strings.Contains(err.Error(), `"missing"`) || !strings.Contains(err.Error(), `"bad"`) || strings.Contains(err.Error(), `"fake"`) {
		t.Fatalf("Start: err = %v, want errors naming missing and bad only", err)
	}
	callEcho(t, b, "ok")
	r := host.NewRegistry()
	if err := b.Register(r); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Register: err = %v, want one naming missing", err)
	}
	if _, ok := r.Lookup("mcp__fake__echo"); !ok {
		t.Error("the tools of the server that started are not registered")
	}
	if _, err := b.CallTool(t.Context(), "missing", "x", nil); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("call to missing: err = %v", err)
	}
	if _, err := b.CallTool(t.Context(), "nope", "x", nil); !errors.Is(err, mcp.ErrUnknownServer) {
		t.Errorf("call to an unknown server: err = %v, want ErrUnknownServer", err)
	}
}

func TestBridgeBadArguments(t *testing.T) {
	b := startFake(t, nil)
	for _, args := range []string{`[1]`, `{"text":`, `"x"`} {
		if _, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(args)); err == nil {
			t.Errorf("echo %s: no error", args)
		}
	}
	callEcho(t, b, "fine")
}

func TestBridgeConcurrent(t *testing.T) {
	b := startFake(t, nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			text := strings.Repeat("x", i)
			res, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(`{"text":"`+text+`"}`))
			if err != nil || res.Content != text {
				t.Errorf("echo %d = %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
}

func TestBridgeClosed(t *testing.T) {
	b := startFake(t, nil)
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := b.CallTool(t.Context(), "fake", "echo", nil); !errors.Is(err, mcp.ErrBridgeClosed) {
		t.Errorf("call after Close: err = %v, want ErrBridgeClosed", err)
	}
}
