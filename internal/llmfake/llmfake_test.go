package llmfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/llmfake"
)

// post sends body to the fake and returns the status and decoded reply.
func post(t *testing.T, url string, header http.Header, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), "body %s", b)
	return res.StatusCode, out
}

func errMessage(reply map[string]any) string {
	e, _ := reply["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

const anthropicTask = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
const openaiTask = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

func TestAnthropicWire(t *testing.T) {
	s := llmfake.NewAnthropic(llmfake.Reply{Text: "hello", ToolCalls: []llmfake.ToolCall{{ID: "t1", Name: "read"}}, Usage: llmfake.Usage{Input: 3, Output: 4, CacheRead: 5}})
	defer s.Close()
	status, reply := post(t, s.URL+"/v1/messages", nil, anthropicTask)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "message", reply["type"])
	assert.Equal(t, "m", reply["model"])
	assert.Equal(t, "tool_use", reply["stop_reason"])
	assert.Equal(t, []any{
		map[string]any{"type": "text", "text": "hello"},
		map[string]any{"type": "tool_use", "id": "t1", "name": "read", "input": map[string]any{}},
	}, reply["content"])
	assert.Equal(t, map[string]any{"input_tokens": 3.0, "output_tokens": 4.0, "cache_read_input_tokens": 5.0, "cache_creation_input_tokens": 0.0}, reply["usage"])

	status, reply = post(t, s.URL+"/v1/messages", nil, anthropicTask)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, "llmfake: no more replies", errMessage(reply))
	assert.Equal(t, 2, s.Count())
	assert.Equal(t, "m", s.Requests()[0].JSON["model"])
}

func TestOpenAIWire(t *testing.T) {
	s := llmfake.NewOpenAI(llmfake.Reply{ToolCalls: []llmfake.ToolCall{{ID: "c1", Name: "read", Input: `{"p":1}`}}, Usage: llmfake.Usage{Input: 3, Output: 4, CacheRead: 5}})
	defer s.Close()
	status, reply := post(t, s.URL+"/v1/chat/completions", nil, openaiTask)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "chat.completion", reply["object"])
	choice := reply["choices"].([]any)[0].(map[string]any)
	assert.Equal(t, "tool_calls", choice["finish_reason"])
	msg := choice["message"].(map[string]any)
	assert.Nil(t, msg["content"])
	assert.Equal(t, []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "read", "arguments": `{"p":1}`}}}, msg["tool_calls"])
	usage := reply["usage"].(map[string]any)
	assert.Equal(t, 8.0, usage["prompt_tokens"])
	assert.Equal(t, 5.0, usage["prompt_tokens_details"].(map[string]any)["cached_tokens"])
}

func TestRawReply(t *testing.T) {
	s := llmfake.NewOpenAI(
		llmfake.Reply{Status: 429, Text: "slow down", Header: http.Header{"Retry-After-Ms": {"20"}}},
		llmfake.Reply{Body: "not json", Header: http.Header{"Content-Type": {"text/plain"}}},
		llmfake.Reply{Body: "{}", Header: http.Header{"Content-Type": {""}}},
	)
	defer s.Close()
	res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(openaiTask))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 429, res.StatusCode)
	assert.Equal(t, "20", res.Header.Get("Retry-After-Ms"))
	res, err = http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(openaiTask))
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, "not json", string(b))
	assert.Equal(t, "text/plain", res.Header.Get("Content-Type"))
	res, err = http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(openaiTask))
	require.NoError(t, err)
	res.Body.Close()
	assert.NotContains(t, res.Header, "Content-Type")
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name    string
		fake    func(...llmfake.Reply) *llmfake.Server
		path    string
		body    string
		message string
	}{
		{"anthropic no max_tokens", llmfake.NewAnthropic, "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens"},
		{"anthropic unanswered tool_use", llmfake.NewAnthropic, "/v1/messages",
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},{"role":"user","content":"what"}]}`,
			"without tool_result"},
		{"anthropic wrong tool_use_id", llmfake.NewAnthropic, "/v1/messages",
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2"}]}]}`,
			`unexpected tool_use_id "t2"`},
		{"anthropic schema not object", llmfake.NewAnthropic, "/v1/messages",
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"x","input_schema":{"type":"string"}}]}`,
			"input_schema.type"},
		{"openai no model", llmfake.NewOpenAI, "/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, "model"},
		{"openai unanswered call", llmfake.NewOpenAI, "/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"user","content":"what"}]}`,
			"must be followed by tool messages"},
		{"openai stray tool message", llmfake.NewOpenAI, "/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"x"}]}`,
			"must be a response to a preceding message"},
		{"wrong path", llmfake.NewOpenAI, "/v1/completions", openaiTask, "no route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.fake(llmfake.Reply{Text: "unused"})
			defer s.Close()
			status, reply := post(t, s.URL+tt.path, nil, tt.body)
			assert.Contains(t, []int{400, 404}, status)
			assert.Contains(t, errMessage(reply), tt.message)
		})
	}
}

func TestRequireKey(t *testing.T) {
	a := llmfake.NewAnthropic(llmfake.Reply{Text: "ok"}).RequireKey("k1")
	defer a.Close()
	status, _ := post(t, a.URL+"/v1/messages", http.Header{"Authorization": {"Bearer k1"}}, anthropicTask)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, _ = post(t, a.URL+"/v1/messages", http.Header{"X-Api-Key": {"k1"}}, anthropicTask)
	assert.Equal(t, http.StatusOK, status)

	o := llmfake.NewOpenAI(llmfake.Reply{Text: "ok"}).RequireKey("k2")
	defer o.Close()
	status, reply := post(t, o.URL+"/chat/completions", http.Header{"X-Api-Key": {"k2"}}, openaiTask)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.NotContains(t, errMessage(reply), "k2")
	status, _ = post(t, o.URL+"/chat/completions", http.Header{"Authorization": {"Bearer k2"}}, openaiTask)
	assert.Equal(t, http.StatusOK, status)
}

// TestHangReleasedByClose checks that Close ends a held request.
func TestHangReleasedByClose(t *testing.T) {
	s := llmfake.NewAnthropic(llmfake.Reply{Hang: true})
	done := make(chan error, 1)
	go func() {
		res, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(anthropicTask))
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	for s.Count() == 0 {
		time.Sleep(time.Millisecond) // until the request has arrived
	}
	s.Close()
	<-done
}

func TestReplyJSON(t *testing.T) {
	// Replies can come from a file, for CLI scripts.
	var replies []llmfake.Reply
	require.NoError(t, json.Unmarshal([]byte(`[{"text":"hi","tool_calls":[{"id":"a","name":"b","input":"{}"}],"usage":{"input":1}},{"status":529}]`), &replies))
	assert.Equal(t, []llmfake.Reply{
		{Text: "hi", ToolCalls: []llmfake.ToolCall{{ID: "a", Name: "b", Input: "{}"}}, Usage: llmfake.Usage{Input: 1}},
		{Status: 529},
	}, replies)
}
