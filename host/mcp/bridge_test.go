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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err)
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
	require.NoError(t, b.Start(t.Context()), "Start")
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func callEcho(t *testing.T, b *mcp.Bridge, text string) {
	t.Helper()
	res, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(`{"text":"`+text+`"}`))
	require.NoError(t, err, "echo")
	require.False(t, res.IsError, "echo = %+v", res)
	require.Equal(t, text, res.Content, "echo content")
}

var _ host.MCPCaller = (*mcp.Bridge)(nil)

func TestBridgeRegister(t *testing.T) {
	b := startFake(t, nil)
	r := host.NewRegistry()
	require.NoError(t, b.Register(r), "Register")
	var names []string
	for _, d := range r.List() {
		names = append(names, d.Name)
		assert.Equal(t, host.SourceMCP, d.Source, "%s: source", d.Name)
	}
	want := []string{"mcp__fake__crash", "mcp__fake__echo", "mcp__fake__env", "mcp__fake__fail", "mcp__fake__garbage", "mcp__fake__hang"}
	require.Equal(t, want, names, "registered tools")
	echo, _ := r.Lookup("mcp__fake__echo")
	def := echo.Definition()
	assert.Equal(t, "Echo the text.", def.Description, "echo definition: the server's description")
	assert.Contains(t, string(def.InputSchema), `"text"`, "echo definition: the server's input schema")

	res, err := r.Call(t.Context(), "mcp__fake__echo", json.RawMessage(`{"text":"hello"}`))
	require.NoError(t, err, "Call echo")
	require.False(t, res.IsError, "Call echo = %+v", res)
	require.Equal(t, "hello", res.Content, "Call echo")
	// The registry checks the input against the server's schema.
	res, err = r.Call(t.Context(), "mcp__fake__echo", json.RawMessage(`{"text":1}`))
	if assert.NoError(t, err, "Call echo with a bad input") {
		assert.True(t, res.IsError, "Call echo with a bad input = %+v; want an error result", res)
	}
	res, err = r.Call(t.Context(), "mcp__fake__fail", json.RawMessage(`{}`))
	if assert.NoError(t, err, "Call fail") {
		assert.True(t, res.IsError, "Call fail = %+v; want an error result", res)
		assert.Contains(t, res.Content, "it failed on purpose", "Call fail: want the server's message")
	}
	// A bridge failure is an error result too, naming server and tool.
	res, err = r.Call(t.Context(), "mcp__fake__crash", json.RawMessage(`{}`))
	if assert.NoError(t, err, "Call crash") {
		assert.True(t, res.IsError, "Call crash = %+v; want an error result", res)
		assert.Contains(t, res.Content, `"fake"`, "Call crash: want the server named")
		assert.Contains(t, res.Content, `"crash"`, "Call crash: want the tool named")
	}
}

func TestBridgeIsError(t *testing.T) {
	b := startFake(t, nil)
	res, err := b.CallTool(t.Context(), "fake", "fail", nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "fail = %+v, want IsError", res)
	assert.Contains(t, res.Content, "it failed on purpose", "fail: want the message")
	callEcho(t, b, "still alive")
}

func TestBridgeCrashRestarts(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{MaxRestarts: 1})
	for i := range 3 { // a success resets the count of restarts in a row
		_, err := b.CallTool(t.Context(), "fake", "crash", nil)
		require.ErrorContains(t, err, `"fake"`, "crash %d: want an error naming the server", i)
		callEcho(t, b, "back")
	}
}

func TestBridgeRestartsExhausted(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{MaxRestarts: 2})
	for i := range 3 { // the first start, then two restarts
		_, err := b.CallTool(t.Context(), "fake", "crash", nil)
		require.Error(t, err, "crash %d: want a connection error", i)
		require.NotErrorIs(t, err, mcp.ErrServerDown, "crash %d: want a connection error", i)
	}
	for range 2 {
		start := time.Now()
		_, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(`{"text":"x"}`))
		require.ErrorIs(t, err, mcp.ErrServerDown, "echo after restarts ran out")
		require.ErrorContains(t, err, `"fake"`, "echo after restarts ran out: want the server named")
		assert.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "failing took too long, want at once")
	}
}

func TestBridgeHangTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out a hanging tool's call timeout (2.6 s); the full suite runs it")
	}
	const timeout = 500 * time.Millisecond
	b := startFake(t, &mcp.BridgeOptions{CallTimeout: timeout})
	start := time.Now()
	_, err := b.CallTool(t.Context(), "fake", "hang", nil)
	elapsed := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded, "hang")
	require.ErrorContains(t, err, `server "fake" tool "hang"`, "hang: want server and tool named")
	assert.GreaterOrEqual(t, elapsed, timeout, "hang returned too early")
	assert.LessOrEqual(t, elapsed, timeout+2*time.Second, "hang returned too late")
	callEcho(t, b, "not stuck")
}

func TestBridgeCallerCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out two callers' deadlines on a hanging tool (2.5 s); the full suite runs it")
	}
	b := startFake(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := b.CallTool(ctx, "fake", "hang", nil)
	require.ErrorIs(t, err, context.DeadlineExceeded, "hang with a short ctx: want the ctx's error")
	// Through a registry, the cancellation of the caller's ctx stays an error.
	r := host.NewRegistry()
	require.NoError(t, b.Register(r))
	ctx2, cancel2 := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel2()
	res, err := r.Call(ctx2, "mcp__fake__hang", json.RawMessage(`{}`))
	require.Error(t, err, "Call hang with a short ctx = %+v", res)
}

func TestBridgeGarbage(t *testing.T) {
	b := startFake(t, &mcp.BridgeOptions{CallTimeout: 10 * time.Second})
	start := time.Now()
	_, err := b.CallTool(t.Context(), "fake", "garbage", nil)
	require.ErrorContains(t, err, `server "fake" tool "garbage"`, "garbage: want a connection error naming server and tool")
	require.ErrorContains(t, err, "not JSON", "garbage")
	require.NotErrorIs(t, err, context.DeadlineExceeded, "garbage")
	assert.LessOrEqual(t, time.Since(start), 5*time.Second, "garbage took too long")
	callEcho(t, b, "restarted")
}

func TestBridgeEnv(t *testing.T) {
	t.Setenv("SKILLRUN_HOST_SECRET", "s3cret")
	cfg := fakeConfig(t)
	cfg.Env["GREETING"] = "hi"
	b := mcp.NewBridge(map[string]mcp.ServerConfig{"fake": cfg}, nil)
	require.NoError(t, b.Start(t.Context()))
	defer b.Close()
	res, err := b.CallTool(t.Context(), "fake", "env", nil)
	require.NoError(t, err)
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
	assert.Equal(t, want, names, "server environment")
}

func TestBridgeStartFailure(t *testing.T) {
	b := mcp.NewBridge(map[string]mcp.ServerConfig{
		"fake":    fakeConfig(t),
		"missing": {Command: "/nonexistent/mcp-server"},
		"bad":     {Command: "x", URL: "http://localhost/mcp"},
	}, &mcp.BridgeOptions{StartTimeout: 5 * time.Second})
	defer b.Close()
	err := b.Start(t.Context())
	require.ErrorContains(t, err, `"missing"`, "Start: want errors naming missing and bad only")
	require.ErrorContains(t, err, `"bad"`, "Start: want errors naming missing and bad only")
	require.NotContains(t, err.Error(), `"fake"`, "Start: want errors naming missing and bad only")
	callEcho(t, b, "ok")
	r := host.NewRegistry()
	assert.ErrorContains(t, b.Register(r), `"missing"`, "Register: want an error naming missing")
	_, ok := r.Lookup("mcp__fake__echo")
	assert.True(t, ok, "the tools of the server that started are not registered")
	_, err = b.CallTool(t.Context(), "missing", "x", nil)
	assert.ErrorContains(t, err, `"missing"`, "call to missing")
	_, err = b.CallTool(t.Context(), "nope", "x", nil)
	assert.ErrorIs(t, err, mcp.ErrUnknownServer, "call to an unknown server")
}

func TestBridgeBadArguments(t *testing.T) {
	b := startFake(t, nil)
	for _, args := range []string{`[1]`, `{"text":`, `"x"`} {
		_, err := b.CallTool(t.Context(), "fake", "echo", json.RawMessage(args))
		assert.Error(t, err, "echo %s", args)
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
			if assert.NoError(t, err, "echo %d", i) {
				assert.Equal(t, text, res.Content, "echo %d", i)
			}
		})
	}
	wg.Wait()
}

func TestBridgeClosed(t *testing.T) {
	b := startFake(t, nil)
	assert.NoError(t, b.Close(), "Close")
	_, err := b.CallTool(t.Context(), "fake", "echo", nil)
	assert.ErrorIs(t, err, mcp.ErrBridgeClosed, "call after Close")
}
