package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/internal/testkit"
)

// The Extism test plugin, testdata/guests/extplugin, is built with go-pdk
// as a WASI reactor (-buildmode=c-shared); its wasiupper subdirectory is
// the WASI command the benchmark compares it with.
// extWasm builds testdata/guests/extplugin/<pkg> and returns the Wasm.
// go-pdk comes from the module proxy; without it (offline, no module
// cache) the plugin cannot be built and the test is skipped.
func extWasm(tb testing.TB, pkg string, cshared bool) []byte {
	tb.Helper()
	var extra []string
	if cshared {
		extra = []string{"-buildmode=c-shared"}
	}
	key := "ext-" + strings.ReplaceAll(pkg, "/", "-") + ".wasm"
	path := testkit.Build(tb, key, "extplugin", pkg, true, extra, func(msg []byte) bool { return bytes.Contains(msg, []byte("go-pdk")) })
	wasm, err := os.ReadFile(path)
	require.NoError(tb, err)
	return wasm
}

func extPlugin(tb testing.TB) []byte { return extWasm(tb, ".", true) }

func newExtRuntime(tb testing.TB) *Runtime {
	tb.Helper()
	ctx := context.Background()
	r, err := New(ctx, &Options{CacheDir: filepath.Join(testDir, "cache-interpreter=false")})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = r.Close(ctx) })
	return r
}

// fakeHost records the host function calls of a plugin and answers each
// with {"ok":true,"result":{"fn":FN}}.
type fakeHost struct {
	mu    sync.Mutex
	calls []string // "fn request"
}

func (f *fakeHost) Dispatch(_ context.Context, fn string, req []byte) []byte {
	f.mu.Lock()
	f.calls = append(f.calls, fn+" "+string(req))
	f.mu.Unlock()
	return abi.EncodeResult(map[string]string{"fn": fn})
}

func TestCallPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds the Extism plugin and calls each export, bombs included (2 s); the full suite runs it")
	}
	wasm := extPlugin(t)
	r := newExtRuntime(t)
	ctx := context.Background()

	t.Run("upper", func(t *testing.T) {
		out, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:upper", Export: "upper", Input: []byte("hello, extism")})
		require.NoError(t, err)
		assert.Equal(t, "HELLO, EXTISM", string(out), "output")
		assert.Zero(t, res.ExitCode, "exit code; result %+v", res)
		assert.EqualValues(t, 13, res.OutputBytes, "OutputBytes; result %+v", res)
	})

	t.Run("default export", func(t *testing.T) {
		_, _, err := r.CallPlugin(ctx, wasm, nil)
		assert.ErrorContains(t, err, `exports no function "run"`)
	})

	t.Run("host functions", func(t *testing.T) {
		host := &fakeHost{}
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "log", Input: []byte(`{"level":"info","msg":"hi"}`), Host: host})
		require.NoError(t, err)
		assert.Equal(t, `{"ok":true,"result":{"fn":"log"}}`, string(out), "response")
		out, _, err = r.CallPlugin(ctx, wasm, &PluginCall{Export: "tool", Input: []byte(`{"name":"t"}`), Host: host})
		require.NoError(t, err)
		assert.Contains(t, string(out), `"fn":"tool_call"`, "response")
		want := []string{`log {"level":"info","msg":"hi"}`, `tool_call {"name":"t"}`}
		assert.Equal(t, want, host.calls, "host calls")
	})

	t.Run("no host", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "log", Input: []byte(`{}`)})
		require.NoError(t, err)
		assert.Contains(t, string(out), `"code":"unavailable"`, "response")
	})

	t.Run("plugin error", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:fail", Export: "fail", Input: []byte("x")})
		pe, ok := errors.AsType[*PluginError](err)
		require.True(t, ok, "got %v, want a *PluginError", err)
		assert.EqualValues(t, 1, pe.Code, "PluginError code")
		assert.Equal(t, "bad input: x", pe.Message, "PluginError message")
		assert.EqualValues(t, 1, res.ExitCode, "exit code; result %+v", res)
		assert.EqualError(t, err, "ext:fail: fail returned 1: bad input: x")
	})

	t.Run("timeout", func(t *testing.T) {
		start := time.Now()
		_, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:loop", Export: "loop", Timeout: 200 * time.Millisecond})
		require.ErrorIs(t, err, ErrTimeout)
		assert.LessOrEqual(t, time.Since(start), 5*time.Second, "took too long")
	})

	t.Run("cancel", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, _, err := r.CallPlugin(cctx, wasm, &PluginCall{Export: "loop"})
		require.ErrorIs(t, err, context.DeadlineExceeded, "want the ctx's error")
		require.NotErrorIs(t, err, ErrTimeout, "want the ctx's error")
	})

	t.Run("memory bomb", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:bomb", Export: "bomb", Memory: 32 << 20})
		require.ErrorIs(t, err, ErrMemoryLimit)
		assert.LessOrEqual(t, res.PeakMemory, uint64(32<<20), "peak memory over the limit")
	})

	t.Run("output limit", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "big", Input: []byte("5000"), Output: 4096})
		require.ErrorIs(t, err, ErrOutputLimit)
		require.Len(t, out, 4096, "output")
	})

	t.Run("not a plugin", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, []byte("nope"), nil)
		require.Error(t, err, "want a compile error")
		require.Nil(t, res, "want a compile error and no result")
	})

	t.Run("still usable", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "upper", Input: []byte("ok")})
		require.NoError(t, err)
		require.Equal(t, "OK", string(out))
	})
}

// TestCallPluginHTTP checks that Extism's own http_request is always
// denied (a script's net grant never reaches it, see
// TestPluginNetGrantNotExtism): its client (http.DefaultClient) follows
// redirects unchecked and reaches private addresses. Plugins use
// skillrun's http_fetch host function instead.
func TestCallPluginHTTP(t *testing.T) {
	wasm := extPlugin(t)
	r := newExtRuntime(t)
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()

	type event struct{ kind, value, decision string }
	var events []event
	out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{
		Export: "fetch",
		Input:  []byte(srv.URL + "/ping"),
		Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
			events = append(events, event{e.Kind, e.Value, string(e.Decision)})
		}),
	})
	require.NotEqual(t, "pong", string(out), "Extism's http_request reached the server")
	refused, ok := errors.AsType[*NetRefusedError](err)
	require.True(t, ok, "got %v, want a refusal of %s", err, srv.URL)
	require.Equal(t, strings.TrimPrefix(srv.URL, "http://"), refused.Host, "refused host")
	if assert.NotEmpty(t, events, "audit events, want the denial last") {
		assert.Equal(t, event{"net", refused.Host, "deny"}, events[len(events)-1], "audit events %v, want the denial last", events)
	}
}

// TestCallPluginConcurrent calls one plugin from many goroutines.
func TestCallPluginConcurrent(t *testing.T) {
	wasm := extPlugin(t)
	r := newExtRuntime(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			in := fmt.Sprintf("call %d", i)
			out, _, err := r.CallPlugin(context.Background(), wasm, &PluginCall{Export: "upper", Input: []byte(in)})
			if assert.NoError(t, err) {
				assert.Equal(t, strings.ToUpper(in), string(out))
			}
		})
	}
	wg.Wait()
}

// BenchmarkExtismCall upper-cases 1 KiB through an Extism call of
// extplugin's "upper" and through a run of the WASI command wasiupper, both
// compiled once; ext/wasi is the Extism call's time over the WASI run's.
func BenchmarkExtismCall(b *testing.B) {
	plugin, command := extPlugin(b), extWasm(b, "./wasiupper", false)
	r := newExtRuntime(b)
	ctx := context.Background()
	input := bytes.Repeat([]byte("skillrun "), 1024/9+1)[:1024]
	want := bytes.ToUpper(input)
	m, err := r.Compile(ctx, command)
	require.NoError(b, err)
	out, _, err := r.CallPlugin(ctx, plugin, &PluginCall{Export: "upper", Input: input})
	require.NoError(b, err)
	require.Equal(b, want, out)

	var wasi time.Duration
	b.Run("wasi", func(b *testing.B) {
		for b.Loop() {
			var out bytes.Buffer
			_, err := m.Run(ctx, &RunConfig{Stdin: bytes.NewReader(input), Stdout: &out})
			require.NoError(b, err)
			require.Equal(b, want, out.Bytes())
		}
		wasi = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("extism", func(b *testing.B) {
		for b.Loop() {
			out, _, err := r.CallPlugin(ctx, plugin, &PluginCall{Export: "upper", Input: input})
			require.NoError(b, err)
			require.Equal(b, want, out)
		}
		if wasi > 0 {
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(wasi), "ext/wasi")
		}
	})
}
