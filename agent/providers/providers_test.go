package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// testKey is the key the tests send; it must never show in an error.
const testKey = "sk-test-0123456789abcdef"

// A kit is one provider with its fake server, so that behaviour both
// providers share is tested once for each.
type kit struct {
	name string
	fake func(...llmfake.Reply) *llmfake.Server
	new  func(providers.Options) (agent.Provider, error)
	// stops maps the API's stop words to the neutral ones.
	stops map[string]agent.StopReason
}

var kits = []kit{
	{
		name: "anthropic",
		fake: llmfake.NewAnthropic,
		new:  providers.NewAnthropic,
		stops: map[string]agent.StopReason{
			"end_turn":      agent.StopEndTurn,
			"stop_sequence": agent.StopEndTurn,
			"tool_use":      agent.StopToolUse,
			"max_tokens":    agent.StopMaxTokens,
			"refusal":       agent.StopRefusal,
			"pause_turn":    agent.StopOther,
			"something_new": agent.StopOther,
		},
	},
	{
		name: "openai",
		fake: llmfake.NewOpenAI,
		new:  providers.NewOpenAI,
		stops: map[string]agent.StopReason{
			"stop":           agent.StopEndTurn,
			"tool_calls":     agent.StopToolUse,
			"function_call":  agent.StopToolUse,
			"length":         agent.StopMaxTokens,
			"content_filter": agent.StopRefusal,
			"something_new":  agent.StopOther,
		},
	},
}

// clearEnv keeps the developer's environment out of the tests.
func clearEnv(t testing.TB) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Setenv(k, "")
	}
}

// start starts the kit's fake with replies and a provider pointed at it.
func (k kit) start(t testing.TB, replies ...llmfake.Reply) (*llmfake.Server, agent.Provider) {
	t.Helper()
	clearEnv(t)
	s := k.fake(replies...).RequireKey(testKey)
	t.Cleanup(s.Close)
	p, err := k.new(providers.Options{APIKey: testKey, BaseURL: s.URL, Model: "test-model"})
	require.NoError(t, err)
	require.Equal(t, k.name, p.Name())
	return s, p
}

func userTask(text string) *agent.Request {
	return &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Text: text}}}
}

func TestText(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t, llmfake.Reply{Text: "Hello.", Usage: llmfake.Usage{Input: 12, Output: 3}})
			res, err := p.Complete(context.Background(), userTask("Say hello."))
			require.NoError(t, err)
			assert.Equal(t, agent.Message{Role: agent.RoleAssistant, Text: "Hello."}, res.Message)
			assert.Equal(t, agent.StopEndTurn, res.StopReason)
			assert.Equal(t, agent.Usage{InputTokens: 12, OutputTokens: 3}, res.Usage)
			assert.Equal(t, "test-model", res.Model)
			require.Equal(t, 1, s.Count())
			assert.Equal(t, "test-model", s.Requests()[0].JSON["model"])
		})
	}
}

// TestToolRoundTrip runs a turn with two parallel tool calls and the turn
// that answers them, one result a failure.
func TestToolRoundTrip(t *testing.T) {
	calls := []llmfake.ToolCall{
		{ID: "call_1", Name: "workspace_read", Input: `{"path":"a.txt"}`},
		{ID: "call_2", Name: "run_script", Input: `{"skill":"pdf","args":["x"]}`},
	}
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t,
				llmfake.Reply{Text: "Let me look.", ToolCalls: calls, Usage: llmfake.Usage{Input: 50, Output: 20}},
				llmfake.Reply{Text: "Done: a.txt says hi.", Usage: llmfake.Usage{Input: 90, Output: 8}},
			)
			req := userTask("Summarize a.txt.")
			req.Tools = []agent.ToolSpec{
				{Name: "workspace_read", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
				{Name: "run_script", Description: "Run a script.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			}
			res, err := p.Complete(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, agent.StopToolUse, res.StopReason)
			assert.Equal(t, "Let me look.", res.Message.Text)
			require.Len(t, res.Message.ToolCalls, 2)
			for i, c := range res.Message.ToolCalls {
				assert.Equal(t, calls[i].ID, c.ID)
				assert.Equal(t, calls[i].Name, c.Name)
				assert.JSONEq(t, calls[i].Input, string(c.Input))
			}

			req.Messages = append(req.Messages, res.Message, agent.Message{Role: agent.RoleUser, ToolResults: []agent.ToolOutput{
				{CallID: "call_1", Content: "hi"},
				{CallID: "call_2", Content: "capability net denied", IsError: true},
			}})
			res, err = p.Complete(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, "Done: a.txt says hi.", res.Message.Text)
			assert.Equal(t, agent.StopEndTurn, res.StopReason)
			require.Equal(t, 2, s.Count())
		})
	}
}

func TestStopReasons(t *testing.T) {
	for _, k := range kits {
		for raw, want := range k.stops {
			t.Run(k.name+"/"+raw, func(t *testing.T) {
				_, p := k.start(t, llmfake.Reply{Text: "x", Stop: raw})
				res, err := p.Complete(context.Background(), userTask("go"))
				require.NoError(t, err)
				assert.Equal(t, want, res.StopReason)
				assert.Equal(t, raw, res.RawStopReason)
			})
		}
	}
}

func TestCacheUsage(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			_, p := k.start(t, llmfake.Reply{Text: "x", Usage: llmfake.Usage{Input: 100, Output: 7, CacheRead: 30, CacheWrite: 10}})
			res, err := p.Complete(context.Background(), userTask("go"))
			require.NoError(t, err)
			want := agent.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 30, CacheWriteTokens: 10}
			assert.Equal(t, want, res.Usage)
			assert.EqualValues(t, 147, res.Usage.Total())
		})
	}
}

func TestErrors(t *testing.T) {
	retryAt := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		reply      llmfake.Reply
		kind       agent.ErrorKind
		status     int
		message    string // in the error's Message
		retryAfter time.Duration
		minRetry   time.Duration // for a date, whose wait depends on now
	}{
		{name: "401", reply: llmfake.Reply{Status: 401, Text: "invalid x-api-key"}, kind: agent.ErrAuth, status: 401, message: "invalid x-api-key"},
		{name: "403", reply: llmfake.Reply{Status: 403, Text: "not allowed"}, kind: agent.ErrAuth, status: 403, message: "not allowed"},
		{name: "429 retry-after-ms", reply: llmfake.Reply{Status: 429, Text: "slow down", Header: http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}},
			kind: agent.ErrRateLimit, status: 429, message: "slow down", retryAfter: 1500 * time.Millisecond},
		{name: "429 retry-after seconds", reply: llmfake.Reply{Status: 429, Header: http.Header{"Retry-After": {"7"}}},
			kind: agent.ErrRateLimit, status: 429, retryAfter: 7 * time.Second},
		{name: "429 retry-after date", reply: llmfake.Reply{Status: 429, Header: http.Header{"Retry-After": {retryAt}}},
			kind: agent.ErrRateLimit, status: 429, minRetry: 50 * time.Minute},
		{name: "429 retry-after nonsense", reply: llmfake.Reply{Status: 429, Header: http.Header{"Retry-After": {"soon"}}},
			kind: agent.ErrRateLimit, status: 429},
		{name: "500", reply: llmfake.Reply{Status: 500, Text: "internal"}, kind: agent.ErrServer, status: 500, message: "internal"},
		{name: "500 text body", reply: llmfake.Reply{Status: 500, Body: "<html>Bad Gateway</html>", Header: http.Header{"Content-Type": {"text/html"}}},
			kind: agent.ErrServer, status: 500, message: "<html>Bad Gateway</html>"},
		{name: "503", reply: llmfake.Reply{Status: 503}, kind: agent.ErrServer, status: 503},
		{name: "529 overloaded", reply: llmfake.Reply{Status: 529, Text: "Overloaded"}, kind: agent.ErrServer, status: 529, message: "Overloaded"},
		{name: "400", reply: llmfake.Reply{Status: 400, Text: "prompt is too long"}, kind: agent.ErrBadRequest, status: 400, message: "prompt is too long"},
		{name: "404", reply: llmfake.Reply{Status: 404, Text: "model: no-such-model"}, kind: agent.ErrBadRequest, status: 404, message: "no-such-model"},
		{name: "413", reply: llmfake.Reply{Status: 413}, kind: agent.ErrBadRequest, status: 413},
		{name: "422", reply: llmfake.Reply{Status: 422}, kind: agent.ErrBadRequest, status: 422},
		{name: "408", reply: llmfake.Reply{Status: 408}, kind: agent.ErrConnection, status: 408},
		{name: "not JSON", reply: llmfake.Reply{Body: "this is not json"}, kind: agent.ErrMalformed, status: 200, message: "this is not json"},
		{name: "truncated JSON", reply: llmfake.Reply{Body: `{"id":"x","content":[`}, kind: agent.ErrMalformed, status: 200},
		{name: "JSON array", reply: llmfake.Reply{Body: `[]`}, kind: agent.ErrMalformed, status: 200},
		{name: "empty body", reply: llmfake.Reply{Body: " "}, kind: agent.ErrMalformed, status: 200},
		{name: "HTML", reply: llmfake.Reply{Body: "<html>login</html>", Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
			kind: agent.ErrMalformed, status: 200, message: "text/html"},
		{name: "empty object", reply: llmfake.Reply{Body: `{}`}, kind: agent.ErrMalformed, status: 200},
		{name: "oversize", reply: llmfake.Reply{Body: `{"pad":"` + strings.Repeat("x", providers.MaxResponseBytes) + `"}`},
			kind: agent.ErrMalformed, status: 200, message: "larger than"},
		{name: "key echoed", reply: llmfake.Reply{Status: 401, Text: "Incorrect API key provided: " + testKey},
			kind: agent.ErrAuth, status: 401, message: "Incorrect API key provided: [redacted]"},
	}
	for _, k := range kits {
		for _, tt := range tests {
			t.Run(k.name+"/"+tt.name, func(t *testing.T) {
				s, p := k.start(t, tt.reply)
				_, err := p.Complete(context.Background(), userTask("go"))
				pe, ok := errors.AsType[*agent.ProviderError](err)
				require.True(t, ok, "error %v (%T) is not a *agent.ProviderError", err, err)
				assert.Equal(t, k.name, pe.Provider)
				assert.Equal(t, tt.kind, pe.Kind, "error: %v", err)
				assert.Equal(t, tt.status, pe.Status)
				assert.Contains(t, pe.Message, tt.message)
				assert.LessOrEqual(t, len(pe.Message), agent.MaxErrorMessage+len("…"))
				if tt.minRetry > 0 {
					assert.GreaterOrEqual(t, pe.RetryAfter, tt.minRetry)
					assert.LessOrEqual(t, pe.RetryAfter, time.Hour)
				} else {
					assert.Equal(t, tt.retryAfter, pe.RetryAfter)
				}
				assert.NotContains(t, err.Error(), testKey)
				assert.Equal(t, 1, s.Count(), "the SDK must not retry")
			})
		}
	}
}

// TestMalformedReplies sends replies that are JSON but break what the
// wire format promises.
func TestMalformedReplies(t *testing.T) {
	tests := []struct {
		kit, name, body, message string
	}{
		{"anthropic", "no content", `{"id":"m","type":"message","role":"assistant","stop_reason":"end_turn","usage":{}}`, "no content"},
		{"anthropic", "content not a list", `{"id":"m","type":"message","content":"hi","stop_reason":"end_turn"}`, "no content"},
		{"anthropic", "tool_use without name", `{"id":"m","type":"message","content":[{"type":"tool_use","id":"t1","input":{}}],"stop_reason":"tool_use"}`, "without id or name"},
		{"anthropic", "tool_use without id", `{"id":"m","type":"message","content":[{"type":"tool_use","name":"x","input":{}}],"stop_reason":"tool_use"}`, "without id or name"},
		{"openai", "no choices", `{"id":"c","object":"chat.completion","choices":[],"usage":{}}`, "no choices"},
		{"openai", "choices missing", `{"id":"c","object":"chat.completion"}`, "no choices"},
		{"openai", "no message", `{"id":"c","choices":[{"index":0,"finish_reason":"stop"}]}`, "no message"},
		{"openai", "tool call without name", `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"t1","type":"function","function":{"name":"","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, "no function name"},
		{"openai", "tool call without id", `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"x","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, "no id"},
		{"openai", "custom tool call", `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"t1","type":"custom","custom":{"name":"x","input":"y"}}]},"finish_reason":"tool_calls"}]}`, "not function"},
	}
	for _, tt := range tests {
		k := kitNamed(tt.kit)
		t.Run(tt.kit+"/"+tt.name, func(t *testing.T) {
			_, p := k.start(t, llmfake.Reply{Body: tt.body})
			_, err := p.Complete(context.Background(), userTask("go"))
			require.Equal(t, agent.ErrMalformed, agent.KindOf(err), "error: %v", err)
			assert.Contains(t, err.Error(), tt.message)
			assert.False(t, errors.Unwrap(err) != nil && agent.KindOf(errors.Unwrap(err)) != "")
		})
	}
}

func kitNamed(name string) kit {
	for _, k := range kits {
		if k.name == name {
			return k
		}
	}
	panic("no kit " + name)
}

func TestConnectionRefused(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t)
			s.Close()
			_, err := p.Complete(context.Background(), userTask("go"))
			pe, ok := errors.AsType[*agent.ProviderError](err)
			require.True(t, ok, "error %v", err)
			assert.Equal(t, agent.ErrConnection, pe.Kind)
			assert.True(t, pe.Retryable())
			assert.NotEmpty(t, pe.Message)
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

func TestCancelMidRequest(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t, llmfake.Reply{Hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for s.Count() == 0 {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			_, err := p.Complete(ctx, userTask("go"))
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, agent.ErrorKind(""), agent.KindOf(err), "a cancel is not a provider failure")
		})
	}
}

func TestCancelledBeforeRequest(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t, llmfake.Reply{Text: "never"})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := p.Complete(ctx, userTask("go"))
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 0, s.Count())
		})
	}
}

func TestTimeout(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			clearEnv(t)
			s := k.fake(llmfake.Reply{Hang: true})
			defer s.Close()
			p, err := k.new(providers.Options{APIKey: testKey, BaseURL: s.URL, Model: "m", Timeout: 50 * time.Millisecond})
			require.NoError(t, err)
			_, err = p.Complete(context.Background(), userTask("go"))
			pe, ok := errors.AsType[*agent.ProviderError](err)
			require.True(t, ok, "error %v (%T)", err, err)
			assert.Equal(t, agent.ErrConnection, pe.Kind)
			assert.Contains(t, pe.Message, "no reply within 50ms")
		})
	}
}

func TestAuthHeader(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			clearEnv(t)
			s := k.fake(llmfake.Reply{Text: "ok"}).RequireKey(testKey)
			defer s.Close()
			wrong, err := k.new(providers.Options{APIKey: "sk-wrong-key", BaseURL: s.URL, Model: "m"})
			require.NoError(t, err)
			_, err = wrong.Complete(context.Background(), userTask("go"))
			assert.Equal(t, agent.ErrAuth, agent.KindOf(err))
			assert.NotContains(t, err.Error(), "sk-wrong-key")

			// The key from the environment, only when asked for.
			t.Setenv(strings.ToUpper(k.name)+"_BASE_URL", s.URL)
			if k.name == "anthropic" {
				_, err := k.new(providers.Options{Model: "m"})
				assert.Equal(t, agent.ErrAuth, agent.KindOf(err), "no key without FromEnv")
			}
			t.Setenv(strings.ToUpper(k.name)+"_API_KEY", testKey)
			t.Setenv(strings.ToUpper(k.name)+"_BASE_URL", s.URL)
			right, err := k.new(providers.FromEnv(providers.Options{Model: "m"}, k.name))
			require.NoError(t, err)
			res, err := right.Complete(context.Background(), userTask("go"))
			require.NoError(t, err)
			assert.Equal(t, "ok", res.Message.Text)
		})
	}
}

func TestBadOptions(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			clearEnv(t)
			for _, u := range []string{"localhost:8080", "ftp://x", "http://", "://"} {
				_, err := k.new(providers.Options{APIKey: testKey, BaseURL: u})
				assert.ErrorContains(t, err, "base URL", u)
			}
			_, err := k.new(providers.Options{APIKey: testKey, BaseURL: "http://x", Timeout: -1})
			assert.Error(t, err)
		})
	}
}

func TestBadRequestFields(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			s, p := k.start(t)
			req := userTask("go")
			req.ReasoningEffort = "extreme"
			_, err := p.Complete(context.Background(), req)
			assert.Equal(t, agent.ErrBadRequest, agent.KindOf(err))
			req = &agent.Request{Messages: []agent.Message{{Role: "system", Text: "x"}}}
			_, err = p.Complete(context.Background(), req)
			assert.Equal(t, agent.ErrBadRequest, agent.KindOf(err))
			assert.Equal(t, 0, s.Count())
		})
	}
}
