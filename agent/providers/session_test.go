package providers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// echoTool answers with its input.
type echoTool struct{}

func (echoTool) Definition() host.ToolDef {
	return host.ToolDef{Name: "echo", Description: "Echo the input", Source: host.SourceCore, Parallel: true}
}

func (echoTool) Call(_ context.Context, in json.RawMessage) (*host.ToolResult, error) {
	return &host.ToolResult{Content: "echo " + string(in)}, nil
}

// TestSessionOverTheWire runs a whole session through each real provider
// against its fake server: server errors retried with backoff (each retry
// in the transcript), two parallel tool calls answered in order in the
// provider's wire format, an error result marked as such, and usage
// summed over the turns.
func TestSessionOverTheWire(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, prov := k.start(t,
				llmfake.Reply{Status: 500, Text: "internal"},
				llmfake.Reply{Status: 529, Text: "overloaded", Header: map[string][]string{"retry-after-ms": {"5"}}},
				llmfake.Reply{Text: "Calling both.", ToolCalls: []llmfake.ToolCall{
					{ID: "id_a", Name: "echo", Input: `{"n":1}`},
					{ID: "id_b", Name: "missing", Input: `{}`},
				}, Usage: llmfake.Usage{Input: 10, Output: 5}},
				llmfake.Reply{Text: "All done.", Usage: llmfake.Usage{Input: 20, Output: 3}},
			)
			defer s.Close()
			reg := host.NewRegistry()
			require.NoError(t, reg.Add(echoTool{}))
			var buf bytes.Buffer
			sess := &agent.Session{Provider: prov, Tools: reg, Transcript: agent.NewTranscript(&buf),
				Retry: agent.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}}
			res, err := sess.Run(context.Background(), "echo things")
			require.NoError(t, err)
			require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
			assert.Equal(t, "All done.", res.Text)
			assert.Equal(t, 2, res.Totals.Turns)
			assert.Equal(t, agent.Usage{InputTokens: 30, OutputTokens: 8}, res.Totals.Usage)
			assert.Equal(t, 2, strings.Count(buf.String(), `"type":"retry"`))
			assert.Equal(t, 4, s.Count(), "two failed attempts, two turns")

			last := s.Requests()[3].Body
			if k.name == "anthropic" {
				assert.Regexp(t, `"tool_use_id":"id_a","is_error":false,"content":\[\{"text":"echo \{\\"n\\":1\}"`, string(last))
				assert.Regexp(t, `"tool_use_id":"id_b","is_error":true,"content":\[\{"text":"unknown tool \\"missing\\"`, string(last))
			} else {
				assert.Regexp(t, `\{"content":"echo \{\\"n\\":1\}","tool_call_id":"id_a","role":"tool"\}`, string(last))
				assert.Regexp(t, `\{"content":"ERROR: unknown tool \\"missing\\"[^"]*","tool_call_id":"id_b","role":"tool"\}`, string(last))
			}
		})
	}
}
