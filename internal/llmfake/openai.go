package llmfake

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// openaiAPI is the chat completions wire format.
type openaiAPI struct{}

func (openaiAPI) path() string { return "/chat/completions" }

func (openaiAPI) authorized(h http.Header, key string) bool {
	return h.Get("Authorization") == "Bearer "+key
}

func (openaiAPI) encode(r Reply, req map[string]any, n int) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.ToolCalls) > 0 {
		calls := make([]any, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			calls[i] = map[string]any{
				"id":       c.ID,
				"type":     "function",
				"function": map[string]any{"name": c.Name, "arguments": string(c.input())},
			}
		}
		msg["tool_calls"] = calls
	}
	stop := r.Stop
	if stop == "" {
		stop = "stop"
		if len(r.ToolCalls) > 0 {
			stop = "tool_calls"
		}
	}
	model := r.Model
	if model == "" {
		model, _ = req["model"].(string)
	}
	u := r.Usage
	prompt := u.Input + u.CacheRead + u.CacheWrite
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", n+1),
		"object":  "chat.completion",
		"created": 1700000000 + n,
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": stop,
		}},
		"usage": map[string]any{
			"prompt_tokens":     prompt,
			"completion_tokens": u.Output,
			"total_tokens":      prompt + u.Output,
			"prompt_tokens_details": map[string]any{
				"cached_tokens":      u.CacheRead,
				"cache_write_tokens": u.CacheWrite,
			},
		},
	}
}

func (openaiAPI) errorBody(status int, msg string) any {
	typ := "server_error"
	switch {
	case status == http.StatusUnauthorized:
		typ = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status < 500:
		typ = "invalid_request_error"
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}
}

// check does the checks of chat completions that a wrong mapping would
// trip: required fields, roles, and that the tool calls of an assistant
// message are answered by role "tool" messages right after it.
func (openaiAPI) check(req map[string]any) error {
	if m, _ := req["model"].(string); m == "" {
		return errors.New("you must provide a model parameter")
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 0 {
		return errors.New("messages: must be a non-empty array")
	}
	var pending []string // tool call ids not yet answered
	for i, m := range msgs {
		msg, _ := m.(map[string]any)
		role, _ := msg["role"].(string)
		if role != "tool" && len(pending) > 0 {
			return fmt.Errorf("messages.[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %s", i, pending[0])
		}
		switch role {
		case "system", "developer", "user":
			if _, ok := msg["content"].(string); !ok {
				if _, ok := msg["content"].([]any); !ok {
					return fmt.Errorf("messages.[%d].content: required", i)
				}
			}
		case "assistant":
			calls, _ := msg["tool_calls"].([]any)
			if msg["content"] == nil && len(calls) == 0 {
				return fmt.Errorf("messages.[%d]: an assistant message needs content or tool_calls", i)
			}
			for j, c := range calls {
				call, _ := c.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				id, _ := call["id"].(string)
				name, _ := fn["name"].(string)
				_, isString := fn["arguments"].(string)
				if call["type"] != "function" || id == "" || name == "" || !isString {
					return fmt.Errorf("messages.[%d].tool_calls.[%d]: needs id, type function, function.name and function.arguments (a string)", i, j)
				}
				pending = append(pending, id)
			}
		case "tool":
			id, _ := msg["tool_call_id"].(string)
			k := slices.Index(pending, id)
			if k < 0 {
				return fmt.Errorf("messages.[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id %q)", i, id)
			}
			if _, ok := msg["content"].(string); !ok {
				return fmt.Errorf("messages.[%d].content: must be a string", i)
			}
			pending = slices.Delete(pending, k, k+1)
		default:
			return fmt.Errorf("messages.[%d].role: unknown role %q", i, role)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("tool call %s has no tool message", pending[0])
	}
	tools, _ := req["tools"].([]any)
	for i, t := range tools {
		tool, _ := t.(map[string]any)
		fn, _ := tool["function"].(map[string]any)
		if tool["type"] != "function" {
			return fmt.Errorf("tools.[%d].type: must be function", i)
		}
		if name, _ := fn["name"].(string); name == "" {
			return fmt.Errorf("tools.[%d].function.name: required", i)
		}
		if p, ok := fn["parameters"]; ok {
			if _, isObj := p.(map[string]any); !isObj {
				return fmt.Errorf("tools.[%d].function.parameters: must be an object", i)
			}
		}
	}
	return nil
}
