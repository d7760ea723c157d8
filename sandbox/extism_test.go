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
	if err != nil {
		tb.Fatal(err)
	}
	return wasm
}

func extPlugin(tb testing.TB) []byte { return extWasm(tb, ".", true) }

func newExtRuntime(tb testing.TB) *Runtime {
	tb.Helper()
	ctx := context.Background()
	r, err := New(ctx, &Options{CacheDir: filepath.Join(testDir, "cache-interpreter=false")})
	if err != nil {
		tb.Fatal(err)
	}
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
	wasm := extPlugin(t)
	r := newExtRuntime(t)
	ctx := context.Background()

	t.Run("upper", func(t *testing.T) {
		out, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:upper", Export: "upper", Input: []byte("hello, extism")})
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != "HELLO, EXTISM" || res.ExitCode != 0 || res.OutputBytes != 13 {
			t.Errorf("got %q, %+v", out, res)
		}
	})

	t.Run("default export", func(t *testing.T) {
		_, _, err := r.CallPlugin(ctx, wasm, nil)
		if err == nil || !strings.Contains(err.Error(), `exports no function "run"`) {
			t.Errorf("got %v, want no function run", err)
		}
	})

	t.Run("host functions", func(t *testing.T) {
		host := &fakeHost{}
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "log", Input: []byte(`{"level":"info","msg":"hi"}`), Host: host})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"ok":true,"result":{"fn":"log"}}`; string(out) != want {
			t.Errorf("response %s, want %s", out, want)
		}
		out, _, err = r.CallPlugin(ctx, wasm, &PluginCall{Export: "tool", Input: []byte(`{"name":"t"}`), Host: host})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"fn":"tool_call"`) {
			t.Errorf("response %s", out)
		}
		want := []string{`log {"level":"info","msg":"hi"}`, `tool_call {"name":"t"}`}
		if fmt.Sprint(host.calls) != fmt.Sprint(want) {
			t.Errorf("calls %q, want %q", host.calls, want)
		}
	})

	t.Run("no host", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "log", Input: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"code":"unavailable"`) {
			t.Errorf("response %s, want unavailable", out)
		}
	})

	t.Run("plugin error", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:fail", Export: "fail", Input: []byte("x")})
		pe, ok := errors.AsType[*PluginError](err)
		if !ok {
			t.Fatalf("got %v, want a *PluginError", err)
		}
		if pe.Code != 1 || pe.Message != "bad input: x" || res.ExitCode != 1 {
			t.Errorf("got %+v, result %+v", pe, res)
		}
		if want := "ext:fail: fail returned 1: bad input: x"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		start := time.Now()
		_, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:loop", Export: "loop", Timeout: 200 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, _, err := r.CallPlugin(cctx, wasm, &PluginCall{Export: "loop"})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want the ctx's error", err)
		}
	})

	t.Run("memory bomb", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, wasm, &PluginCall{Name: "ext:bomb", Export: "bomb", Memory: 32 << 20})
		if !errors.Is(err, ErrMemoryLimit) {
			t.Fatalf("got %v, want ErrMemoryLimit", err)
		}
		if res.PeakMemory > 32<<20 {
			t.Errorf("peak memory %d over the limit", res.PeakMemory)
		}
	})

	t.Run("output limit", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "big", Input: []byte("5000"), Output: 4096})
		if !errors.Is(err, ErrOutputLimit) || len(out) != 4096 {
			t.Fatalf("got %d bytes, %v; want 4096 and ErrOutputLimit", len(out), err)
		}
	})

	t.Run("not a plugin", func(t *testing.T) {
		_, res, err := r.CallPlugin(ctx, []byte("nope"), nil)
		if err == nil || res != nil {
			t.Fatalf("got %v, %v; want a compile error", res, err)
		}
	})

	t.Run("still usable", func(t *testing.T) {
		out, _, err := r.CallPlugin(ctx, wasm, &PluginCall{Export: "upper", Input: []byte("ok")})
		if err != nil || string(out) != "OK" {
			t.Fatalf("got %q, %v", out, err)
		}
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
	if string(out) == "pong" {
		t.Fatalf("Extism's http_request reached the server")
	}
	refused, ok := errors.AsType[*NetRefusedError](err)
	if !ok || refused.Host != strings.TrimPrefix(srv.URL, "http://") {
		t.Fatalf("got %v, want a refusal of %s", err, srv.URL)
	}
	if len(events) == 0 || events[len(events)-1] != (event{"net", refused.Host, "deny"}) {
		t.Errorf("audit events %v, want the denial last", events)
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
			if err != nil || string(out) != strings.ToUpper(in) {
				t.Errorf("got %q, %v", out, err)
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
	if err != nil {
		b.Fatal(err)
	}
	if out, _, err := r.CallPlugin(ctx, plugin, &PluginCall{Export: "upper", Input: input}); err != nil || !bytes.Equal(out, want) {
		b.Fatalf("got %q, %v", out, err)
	}

	var wasi time.Duration
	b.Run("wasi", func(b *testing.B) {
		for b.Loop() {
			var out bytes.Buffer
			if _, err := m.Run(ctx, &RunConfig{Stdin: bytes.NewReader(input), Stdout: &out}); err != nil || !bytes.Equal(out.Bytes(), want) {
				b.Fatalf("got %q, %v", out.Bytes(), err)
			}
		}
		wasi = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("extism", func(b *testing.B) {
		for b.Loop() {
			if out, _, err := r.CallPlugin(ctx, plugin, &PluginCall{Export: "upper", Input: input}); err != nil || !bytes.Equal(out, want) {
				b.Fatalf("got %q, %v", out, err)
			}
		}
		if wasi > 0 {
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(wasi), "ext/wasi")
		}
	})
}
