package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// TestSessionHostileEndpointBounded is issue 11 finding 17: a model
// endpoint replying with tens of thousands of tool calls (under the reply
// bound) made a record and a history entry for each: gigabytes of memory
// and hundreds of megabytes of transcript. Here the fake OpenAI server on
// loopback does it for five turns; what the session records and re-sends
// must stay bounded, whatever the number of calls.
func TestSessionHostileEndpointBounded(t *testing.T) {
	const perReply, turns = 20000, 5
	var replies []llmfake.Reply
	for turn := range turns {
		calls := make([]llmfake.ToolCall, perReply)
		for i := range calls {
			calls[i] = llmfake.ToolCall{ID: fmt.Sprintf("t%dc%d", turn, i), Name: "ping", Input: `{"n":` + fmt.Sprint(i) + `}`}
		}
		replies = append(replies, llmfake.Reply{ToolCalls: calls})
	}
	replies = append(replies, llmfake.Reply{Text: "done"})
	srv := llmfake.NewOpenAI(replies...)
	t.Cleanup(srv.Close)
	prov, err := providers.NewOpenAI(providers.Options{BaseURL: srv.URL, Model: "m"})
	require.NoError(t, err)

	ping := &fakeTool{name: "ping", parallel: true, result: &host.ToolResult{Content: "pong"}}
	var buf bytes.Buffer
	sess := &agent.Session{Provider: prov, Tools: toolsOf(t, ping), Transcript: agent.NewTranscript(&buf),
		Limits: agent.Limits{MaxTurns: turns + 1, LoopRepeats: turns + 1}}
	res, err := sess.Run(t.Context(), "flood")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	limit := agent.DefaultLimits.MaxCallsPerTurn
	assert.Equal(t, turns*limit, res.Totals.ToolCalls)
	assert.Equal(t, turns*(perReply-limit), res.Totals.DroppedCalls)

	// The transcript: one record per call run, one per reply dropped, each
	// record under its bound. Before the fix, 100,000 result records.
	events := readTranscript(t, buf.Bytes())
	require.Equal(t, turns*limit, len(ofType(events, agent.EventToolResult)))
	require.Equal(t, turns, len(ofType(events, agent.EventCallsDropped)))
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		require.Less(t, len(line), agent.MaxTranscriptRecord)
	}
	assert.Less(t, buf.Len(), 1<<20, "the transcript of five flooded turns stays small")

	// What was re-sent: each request holds the calls that ran, never the
	// dropped ones, so request bodies do not grow with the flood.
	reqs := srv.Requests()
	require.Len(t, reqs, turns+1)
	for i, r := range reqs {
		assert.Less(t, len(r.Body), 512<<10, "request %d is %d bytes", i+1, len(r.Body))
		assert.NotContains(t, string(r.Body), fmt.Sprintf(`"t0c%d"`, limit), "request %d holds a dropped call", i+1)
	}
	assert.Contains(t, string(reqs[1].Body), "more tool calls of this reply were dropped")
}

// TestSessionHistoryBounded: tool results are large (half a MiB each, 64
// a turn); the history re-sent each turn stays within MaxHistoryBytes
// (plus a few hundred bytes a call for notes and ids), dropping the
// oldest turns first and keeping the task.
func TestSessionHistoryBounded(t *testing.T) {
	big := strings.Repeat("r", 512<<10)
	blob := &fakeTool{name: "blob", parallel: true, result: &host.ToolResult{Content: big}}
	const turns, perTurn = 4, 64
	var sizes []int
	var requests []*agent.Request
	prov := providerFunc(func(_ context.Context, r *agent.Request) (*agent.Response, error) {
		requests = append(requests, r)
		n := 0
		for _, m := range r.Messages {
			b, _ := json.Marshal(m)
			n += len(b)
		}
		sizes = append(sizes, n)
		if len(requests) > turns {
			return &agent.Response{Message: agent.Message{Text: "done"}, StopReason: agent.StopEndTurn}, nil
		}
		var tc []agent.ToolCall
		for i := range perTurn {
			tc = append(tc, agent.ToolCall{ID: fmt.Sprintf("r%dc%d", len(requests), i), Name: "blob",
				Input: json.RawMessage(`{"pad":"` + strings.Repeat("p", 40<<10) + `"}`)})
		}
		return &agent.Response{Message: agent.Message{ToolCalls: tc}, StopReason: agent.StopToolUse}, nil
	})
	const limit = 2 << 20
	res, err := (&agent.Session{Provider: prov, Tools: toolsOf(t, blob),
		Limits: agent.Limits{MaxTurns: turns + 1, MaxHistoryBytes: limit, LoopRepeats: turns + 1}}).Run(t.Context(), "the task")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	require.Len(t, sizes, turns+1)
	for i, n := range sizes {
		assert.Less(t, n, limit+perTurn*1024, "request %d re-sends %d bytes", i+1, n)
	}
	last := requests[len(requests)-1]
	require.NotEmpty(t, last.Messages)
	assert.True(t, strings.HasPrefix(last.Messages[0].Text, "the task"), "the task is kept")
	assert.Contains(t, last.Messages[0].Text, "earlier turns of this conversation were dropped")
	// Every call kept still has its result, in the next message.
	for i, m := range last.Messages {
		if len(m.ToolCalls) == 0 {
			continue
		}
		require.Less(t, i+1, len(last.Messages))
		require.Len(t, last.Messages[i+1].ToolResults, len(m.ToolCalls))
		for k, c := range m.ToolCalls {
			assert.Equal(t, c.ID, last.Messages[i+1].ToolResults[k].CallID)
		}
	}
}

// TestTranscriptRecordBounded: each field of a record was bounded, not
// the record: 64 calls with 60 KiB inputs made a model_turn record of
// about 4 MB, and a model's tool name is unbounded. Every record is cut
// to MaxTranscriptRecord, and says so.
func TestTranscriptRecordBounded(t *testing.T) {
	prov := providerFunc(func(_ context.Context, r *agent.Request) (*agent.Response, error) {
		if len(r.Messages) > 1 {
			return &agent.Response{Message: agent.Message{Text: "ok"}, StopReason: agent.StopEndTurn}, nil
		}
		var tc []agent.ToolCall
		for i := range 64 {
			tc = append(tc, agent.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "nope",
				Input: json.RawMessage(`{"pad":"` + strings.Repeat("\u0001", 10<<10) + `"}`)})
		}
		tc[1].Name = strings.Repeat("n", 1<<20)
		return &agent.Response{Message: agent.Message{ToolCalls: tc}, StopReason: agent.StopToolUse}, nil
	})
	var buf bytes.Buffer
	res, err := (&agent.Session{Provider: prov, Transcript: agent.NewTranscript(&buf)}).Run(t.Context(), "x")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	events := readTranscript(t, buf.Bytes())
	require.Equal(t, len(events), len(lines))
	for i, line := range lines {
		require.Less(t, len(line)+1, agent.MaxTranscriptRecord, "record %d (%s)", i+1, events[i].Type)
	}
	turns := ofType(events, agent.EventModelTurn)
	require.Len(t, turns, 2)
	assert.True(t, turns[0].Truncated, "the flooded model_turn says it was cut")
	assert.Len(t, turns[0].ToolCalls, 64, "every call is still listed, by id")
	assert.False(t, turns[1].Truncated)
}
