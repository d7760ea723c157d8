package providers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/llmfake"
)

func TestOpenAIRequestWire(t *testing.T) {
	s, p := kitNamed("openai").start(t, llmfake.Reply{Text: "a.txt says hi."})
	req := conversation()
	req.MaxTokens = 500
	req.Messages = append(req.Messages[:2:2], agent.Message{Role: agent.RoleUser, Text: "Also: be brief.", ToolResults: req.Messages[2].ToolResults})
	_, err := p.Complete(context.Background(), req)
	require.NoError(t, err)
	got := s.Requests()[0]
	assert.Equal(t, "/chat/completions", got.Path)
	assert.Equal(t, "Bearer "+testKey, got.Header.Get("Authorization"))

	body := got.JSON
	assert.Equal(t, "test-model", body["model"])
	assert.EqualValues(t, 500, body["max_tokens"], "a server at another base URL gets max_tokens")
	assert.NotContains(t, body, "max_completion_tokens")
	assert.EqualValues(t, 0.2, body["temperature"])
	assert.Equal(t, "high", body["reasoning_effort"])
	assert.JSONEq(t, `[
		{"type":"function","function":{"name":"workspace_read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
		{"type":"function","function":{"name":"no_schema","parameters":{"type":"object","properties":{}}}}
	]`, jsonOf(t, body["tools"]))
	assert.JSONEq(t, `[
		{"role":"system","content":"You are a careful agent."},
		{"role":"user","content":"Summarize a.txt."},
		{"role":"assistant","content":"Reading.","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"workspace_read","arguments":"{\"path\":\"a.txt\"}"}},
			{"id":"call_2","type":"function","function":{"name":"no_schema","arguments":"{not json"}},
			{"id":"call_3","type":"function","function":{"name":"workspace_read","arguments":"{\"path\":\"b.txt\"}"}}
		]},
		{"role":"tool","tool_call_id":"call_1","content":"hi"},
		{"role":"tool","tool_call_id":"call_2","content":"ERROR: input is not JSON"},
		{"role":"tool","tool_call_id":"call_3","content":""},
		{"role":"user","content":"Also: be brief."}
	]`, jsonOf(t, body["messages"]))
}

// rewrite sends every request to the fake, whatever host it names, so a
// test can play OpenAI's own endpoint on loopback.
type rewrite struct{ to *url.URL }

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestOpenAIOfficialEndpoint(t *testing.T) {
	clearEnv(t)
	s := llmfake.NewOpenAI(llmfake.Reply{Text: "ok"})
	defer s.Close()
	to, err := url.Parse(s.URL)
	require.NoError(t, err)
	p, err := providers.NewOpenAI(providers.Options{APIKey: testKey, Model: "gpt-x", HTTPClient: &http.Client{Transport: rewrite{to}}})
	require.NoError(t, err)
	req := userTask("go")
	req.MaxTokens = 300
	_, err = p.Complete(context.Background(), req)
	require.NoError(t, err)
	got := s.Requests()[0]
	assert.Equal(t, "/v1/chat/completions", got.Path)
	assert.EqualValues(t, 300, got.JSON["max_completion_tokens"], "OpenAI's reasoning models reject max_tokens")
	assert.NotContains(t, got.JSON, "max_tokens")
}

func TestOpenAIKeys(t *testing.T) {
	clearEnv(t)
	_, err := providers.NewOpenAI(providers.Options{Model: "m"})
	assert.Equal(t, agent.ErrAuth, agent.KindOf(err))
	assert.ErrorContains(t, err, "OPENAI_API_KEY")

	// A local server needs no key, and gets no Authorization header.
	s := llmfake.NewOpenAI(llmfake.Reply{Text: "local"})
	defer s.Close()
	p, err := providers.NewOpenAI(providers.Options{BaseURL: s.URL + "/v1", Model: "qwen"})
	require.NoError(t, err)
	res, err := p.Complete(context.Background(), userTask("go"))
	require.NoError(t, err)
	assert.Equal(t, "local", res.Message.Text)
	got := s.Requests()[0]
	assert.Equal(t, "/v1/chat/completions", got.Path)
	assert.Empty(t, got.Header.Get("Authorization"))
}

func TestOpenAINoModel(t *testing.T) {
	clearEnv(t)
	s := llmfake.NewOpenAI(llmfake.Reply{Text: "unused"})
	defer s.Close()
	p, err := providers.NewOpenAI(providers.Options{BaseURL: s.URL})
	require.NoError(t, err)
	_, err = p.Complete(context.Background(), userTask("go"))
	assert.Equal(t, agent.ErrBadRequest, agent.KindOf(err))
	assert.ErrorContains(t, err, "--model")
	assert.Equal(t, 0, s.Count())

	req := userTask("go")
	req.Model = "llama"
	_, err = p.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "llama", s.Requests()[0].JSON["model"])
}

func TestOpenAIReplies(t *testing.T) {
	choice := func(msg, finish string) string {
		return `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":` + msg + `,"finish_reason":"` + finish + `"}]}`
	}
	tests := []struct {
		name  string
		body  string
		want  agent.Message
		stop  agent.StopReason
		usage agent.Usage
	}{
		{
			name: "tool calls with stop", // as some local servers say
			body: choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]}`, "stop"),
			want: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read", Input: json.RawMessage(`{"p":1}`)}}},
			stop: agent.StopToolUse,
		},
		{
			name: "arguments kept as written",
			body: choice(`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":"{oops"}},{"id":"c2","type":"function","function":{"name":"list","arguments":""}}]}`, "tool_calls"),
			want: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
				{ID: "c1", Name: "read", Input: json.RawMessage(`{oops`)},
				{ID: "c2", Name: "list", Input: json.RawMessage(`{}`)},
			}},
			stop: agent.StopToolUse,
		},
		{
			name: "refusal",
			body: choice(`{"role":"assistant","content":null,"refusal":"I can't help with that."}`, "stop"),
			want: agent.Message{Role: agent.RoleAssistant, Text: "I can't help with that."},
			stop: agent.StopRefusal,
		},
		{
			name:  "usage without details",
			body:  `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
			want:  agent.Message{Role: agent.RoleAssistant, Text: "hi"},
			stop:  agent.StopEndTurn,
			usage: agent.Usage{InputTokens: 10, OutputTokens: 2},
		},
		{
			name: "no content type", // some local servers
			body: choice(`{"role":"assistant","content":"plain"}`, "stop"),
			want: agent.Message{Role: agent.RoleAssistant, Text: "plain"},
			stop: agent.StopEndTurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := llmfake.Reply{Body: tt.body}
			if tt.name == "no content type" {
				reply.Header = http.Header{"Content-Type": {""}}
			}
			_, p := kitNamed("openai").start(t, reply)
			res, err := p.Complete(context.Background(), userTask("go"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Message)
			assert.Equal(t, tt.stop, res.StopReason)
			assert.Equal(t, tt.usage, res.Usage)
		})
	}
}
