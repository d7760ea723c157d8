package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchEchoArgs are the arguments of every benchmarked call of the echo
// tool of srvTestRegistry.
var benchEchoArgs = json.RawMessage(`{"text":"hi"}`)

// benchCallEcho calls echo over cs and checks the result.
func benchCallEcho(ctx context.Context, cs *mcpsdk.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: benchEchoArgs})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return &benchError{res}
	}
	if tc, ok := res.Content[0].(*mcpsdk.TextContent); !ok || tc.Text != "echo: hi" {
		return &benchError{res}
	}
	return nil
}

type benchError struct{ res *mcpsdk.CallToolResult }

func (e *benchError) Error() string {
	data, _ := json.Marshal(e.res)
	return "unexpected result " + string(data)
}

// BenchmarkToolsCallStdio measures the round trip of a tools/call of a
// cheap in-process tool over the stdio transport (ServeStdio on io.Pipe
// pairs, an SDK client on the other ends). Metric x-direct is its ratio to
// a direct Registry.Call of the same tool, measured in the same run: the
// cost of the MCP layer (JSON-RPC encoding, the transport, the SDK's
// dispatch and schema validation) over the tool itself.
func BenchmarkToolsCallStdio(b *testing.B) {
	reg := srvTestRegistry(b)
	s := NewServer(nil, &ServerOptions{Tools: reg})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cr, sw := io.Pipe() // server to client
	sr, cw := io.Pipe() // client to server
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &mcpsdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(b, err)
	defer func() {
		_ = cs.Close()
		_ = sw.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			assert.Fail(b, "ServeStdio did not return after the client closed")
		}
	}()
	require.NoError(b, benchCallEcho(ctx, cs)) // warm up

	// Baseline: the same tool, called directly through the registry.
	const directN = 20000
	start := time.Now()
	for range directN {
		res, err := reg.Call(ctx, "echo", benchEchoArgs)
		require.NoError(b, err, "direct call")
		require.Equal(b, "echo: hi", res.Content, "direct call")
	}
	direct := float64(time.Since(start).Nanoseconds()) / directN

	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, benchCallEcho(ctx, cs))
	}
	b.StopTimer()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(direct, "direct-ns/op")
	if direct > 0 {
		b.ReportMetric(perOp/direct, "x-direct")
	}
}

// BenchmarkHTTPConcurrent measures tools/call throughput over streamable
// HTTP on a loopback httptest server: 8 clients, each with its own
// session, call the echo tool concurrently. Metric req/s is calls per
// second of wall time, over all clients.
func BenchmarkHTTPConcurrent(b *testing.B) {
	const clients = 8
	s := NewServer(nil, &ServerOptions{Tools: srvTestRegistry(b)})
	ts := httptest.NewServer(s.Handler(nil))
	defer ts.Close()
	ctx := context.Background()

	sessions := make(chan *mcpsdk.ClientSession, clients)
	var all []*mcpsdk.ClientSession
	defer func() {
		for _, cs := range all {
			_ = cs.Close()
		}
	}()
	for range clients {
		c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := c.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true}, nil)
		require.NoError(b, err)
		require.NoError(b, benchCallEcho(ctx, cs)) // warm up
		all = append(all, cs)
		sessions <- cs
	}

	// RunParallel starts p×GOMAXPROCS goroutines; p is chosen so that
	// there are at least 8, and each goroutine takes one of the 8
	// sessions, waiting for one to be free if there are more goroutines.
	procs := max(runtime.GOMAXPROCS(0), 1)
	b.SetParallelism((clients + procs - 1) / procs)
	var calls atomic.Int64
	var failed sync.Once
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			cs := <-sessions
			err := benchCallEcho(ctx, cs)
			sessions <- cs
			if err != nil {
				failed.Do(func() { assert.NoError(b, err) })
				return
			}
			calls.Add(1)
		}
	})
	b.StopTimer()
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(float64(calls.Load())/sec, "req/s")
	}
	b.ReportMetric(clients, "clients")
}
