package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// jsonOf re-encodes part of a recorded request for JSONEq.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// conversation is a task, a turn with two tool calls, and their results.
func conversation() *agent.Request {
	temp := 0.2
	return &agent.Request{
		System:          "You are a careful agent.",
		Temperature:     &temp,
		ReasoningEffort: "high",
		Tools: []agent.ToolSpec{
			{Name: "workspace_read", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "no_schema"},
		},
		Messages: []agent.Message{
			{Role: agent.RoleUser, Text: "Summarize a.txt."},
			{Role: agent.RoleAssistant, Text: "Reading.", ToolCalls: []agent.ToolCall{
				{ID: "call_1", Name: "workspace_read", Input: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call_2", Name: "no_schema", Input: json.RawMessage(`{not json`)},
				{ID: "call_3", Name: "workspace_read", Input: json.RawMessage(`{"path":"b.txt"}`)},
			}},
			{Role: agent.RoleUser, ToolResults: []agent.ToolOutput{
				{CallID: "call_1", Content: "hi"},
				{CallID: "call_2", Content: "input is not JSON", IsError: true},
				{CallID: "call_3", Content: ""},
			}},
		},
	}
}

func TestAnthropicRequestWire(t *testing.T) {
	s, p := kitNamed("anthropic").start(t, llmfake.Reply{Text: "a.txt says hi."})
	_, err := p.Complete(context.Background(), conversation())
	require.NoError(t, err)
	got := s.Requests()[0]
	assert.Equal(t, "/v1/messages", got.Path)
	assert.Equal(t, testKey, got.Header.Get("X-Api-Key"))
	assert.NotEmpty(t, got.Header.Get("Anthropic-Version"))

	body := got.JSON
	assert.Equal(t, "test-model", body["model"])
	assert.EqualValues(t, 4096, body["max_tokens"], "max_tokens is required; 0 means the default")
	assert.EqualValues(t, 0.2, body["temperature"])
	assert.JSONEq(t, `{"effort":"high"}`, jsonOf(t, body["output_config"]))
	assert.JSONEq(t, `[{"type":"text","text":"You are a careful agent."}]`, jsonOf(t, body["system"]))
	assert.JSONEq(t, `[
		{"name":"workspace_read","description":"Read a file.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
		{"name":"no_schema","input_schema":{"type":"object","properties":{}}}
	]`, jsonOf(t, body["tools"]))
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"Summarize a.txt."}]},
		{"role":"assistant","content":[
			{"type":"text","text":"Reading."},
			{"type":"tool_use","id":"call_1","name":"workspace_read","input":{"path":"a.txt"}},
			{"type":"tool_use","id":"call_2","name":"no_schema","input":{}},
			{"type":"tool_use","id":"call_3","name":"workspace_read","input":{"path":"b.txt"}}
		]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_1","is_error":false,"content":[{"type":"text","text":"hi"}]},
			{"type":"tool_result","tool_use_id":"call_2","is_error":true,"content":[{"type":"text","text":"input is not JSON"}]},
			{"type":"tool_result","tool_use_id":"call_3","is_error":false}
		]}
	]`, jsonOf(t, body["messages"]))
}

func TestAnthropicDefaults(t *testing.T) {
	clearEnv(t)
	s := llmfake.NewAnthropic(llmfake.Reply{Text: "ok"})
	defer s.Close()
	p, err := providers.NewAnthropic(providers.Options{APIKey: testKey, BaseURL: s.URL})
	require.NoError(t, err)
	req := userTask("go")
	req.MaxTokens = 100
	res, err := p.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, providers.DefaultAnthropicModel, res.Model)
	body := s.Requests()[0].JSON
	assert.Equal(t, providers.DefaultAnthropicModel, body["model"])
	assert.EqualValues(t, 100, body["max_tokens"])
	for _, k := range []string{"system", "temperature", "tools", "output_config", "thinking"} {
		assert.NotContains(t, body, k)
	}

	req.Model = "claude-other"
	_, err = p.Complete(context.Background(), req)
	require.Error(t, err) // no more replies
	assert.Equal(t, "claude-other", s.Requests()[1].JSON["model"])
}

func TestAnthropicMissingKey(t *testing.T) {
	clearEnv(t)
	_, err := providers.NewAnthropic(providers.Options{BaseURL: "http://127.0.0.1:1"})
	pe, ok := errors.AsType[*agent.ProviderError](err)
	require.True(t, ok, "error %v", err)
	assert.Equal(t, agent.ErrAuth, pe.Kind)
	assert.False(t, pe.Retryable())
	assert.Contains(t, err.Error(), "ANTHROPIC_API_KEY")
}

func TestAnthropicReplyBlocks(t *testing.T) {
	// Thinking and server-tool blocks are not the agent's; text blocks
	// are joined; a tool_use without input gets {}.
	body := `{"id":"m1","type":"message","role":"assistant","model":"claude-x","content":[
		{"type":"thinking","thinking":"hmm","signature":"sig"},
		{"type":"text","text":"One."},
		{"type":"server_tool_use","id":"s1","name":"web_search","input":{}},
		{"type":"text","text":"Two."},
		{"type":"tool_use","id":"t1","name":"read"}
	],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}`
	_, p := kitNamed("anthropic").start(t, llmfake.Reply{Body: body})
	res, err := p.Complete(context.Background(), userTask("go"))
	require.NoError(t, err)
	assert.Equal(t, "One.\n\nTwo.", res.Message.Text)
	assert.Equal(t, []agent.ToolCall{{ID: "t1", Name: "read", Input: json.RawMessage("{}")}}, res.Message.ToolCalls)
	assert.Equal(t, "claude-x", res.Model)
	assert.Equal(t, agent.StopToolUse, res.StopReason)
}
