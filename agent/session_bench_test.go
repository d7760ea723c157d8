package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
)

// benchPlan is 8 turns of 2 calls each and an answer.
func benchPlan(b *testing.B) *agent.Plan {
	src := ""
	for i := range 8 { // inputs differ by turn, or it would be a loop
		src += fmt.Sprintf("[[turn]]\ntext = \"working\"\n[[turn.call]]\ntool = \"ping\"\ninput = { n = %d }\n[[turn.call]]\ntool = \"ping\"\ninput = { m = %d }\n", i, i)
	}
	src += "[[turn]]\ntext = \"done\"\n"
	p, err := agent.ParsePlan([]byte(src), "bench.toml")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSessionLoop measures the loop's own cost: a 9-turn scripted
// session with 16 tool calls, transcript written (to io.Discard), against
// the same provider and tool calls made directly with the same growing
// history, in the same run ("x-direct"). The difference is what the loop
// adds: per-session setup (its registry, scoping), events as JSON lines,
// history copies, goroutines for calls.
func BenchmarkSessionLoop(b *testing.B) {
	p := benchPlan(b)
	reg := host.NewRegistry()
	if err := reg.Add(&fakeTool{name: "ping", result: &host.ToolResult{Content: "pong"}}); err != nil {
		b.Fatal(err)
	}
	sess := &agent.Session{Provider: agent.NewScripted(p), Tools: reg, Transcript: agent.NewTranscript(io.Discard)}
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		res, err := sess.Run(context.Background(), "bench")
		if err != nil || res.Outcome != agent.OutcomeCompleted {
			b.Fatal(err, res)
		}
		n++
	}
	loop := time.Since(start)
	b.StopTimer()

	prov := agent.NewScripted(p)
	spec := []agent.ToolSpec{{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	start = time.Now()
	for range n {
		directSession(b, prov, reg, spec)
	}
	direct := time.Since(start)
	b.ReportMetric(float64(direct.Nanoseconds())/float64(n), "direct-ns/op")
	b.ReportMetric(float64(loop)/float64(direct), "x-direct")
}

// directSession is BenchmarkSessionLoop's session without the loop.
func directSession(b *testing.B, prov agent.Provider, reg *host.Registry, spec []agent.ToolSpec) {
	msgs := []agent.Message{{Role: agent.RoleUser, Text: "bench"}}
	for {
		resp, err := prov.Complete(context.Background(), &agent.Request{Messages: msgs, Tools: spec})
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return
		}
		var results []agent.ToolOutput
		for _, c := range resp.Message.ToolCalls {
			r, err := reg.Call(context.Background(), c.Name, c.Input)
			if err != nil {
				b.Fatal(err)
			}
			results = append(results, agent.ToolOutput{CallID: c.ID, Content: r.Content})
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, ToolResults: results})
	}
}
