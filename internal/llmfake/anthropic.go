package llmfake

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// anthropicAPI is the Messages API wire format.
type anthropicAPI struct{}

func (anthropicAPI) path() string { return "/v1/messages" }

func (anthropicAPI) authorized(h http.Header, key string) bool {
	return h.Get("X-Api-Key") == key
}

func (anthropicAPI) encode(r Reply, req map[string]any, n int) any {
	content := []any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for _, c := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.input()})
	}
	stop := r.Stop
	if stop == "" {
		stop = "end_turn"
		if len(r.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	model := r.Model
	if model == "" {
		model, _ = req["model"].(string)
	}
	return map[string]any{
		"id":            fmt.Sprintf("msg_fake_%d", n+1),
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                r.Usage.Input,
			"output_tokens":               r.Usage.Output,
			"cache_read_input_tokens":     r.Usage.CacheRead,
			"cache_creation_input_tokens": r.Usage.CacheWrite,
		},
	}
}

func (anthropicAPI) errorBody(status int, msg string) any {
	typ := "api_error"
	switch status {
	case http.StatusBadRequest:
		typ = "invalid_request_error"
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusForbidden:
		typ = "permission_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case 529:
		typ = "overloaded_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

// check does the checks of the Messages API that a wrong mapping would
// trip: required fields, roles, block shapes, tool_use answered by
// tool_result in the next user turn.
func (anthropicAPI) check(req map[string]any) error {
	if m, _ := req["model"].(string); m == "" {
		return errors.New("model: field required")
	}
	if mt, _ := req["max_tokens"].(float64); mt < 1 {
		return errors.New("max_tokens: field required, at least 1")
	}
	if sys, ok := req["system"]; ok {
		if err := checkSystem(sys); err != nil {
			return err
		}
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 0 {
		return errors.New("messages: at least one message is required")
	}
	var pending []string // tool_use ids the next user turn must answer
	for i, m := range msgs {
		msg, _ := m.(map[string]any)
		role, _ := msg["role"].(string)
		if i == 0 && role != "user" {
			return errors.New("messages.0.role: the first message must use the user role")
		}
		blocks, err := anthropicBlocks(msg["content"])
		if err != nil {
			return fmt.Errorf("messages.%d.content: %w", i, err)
		}
		switch role {
		case "user":
			answered := map[string]bool{}
			for j, b := range blocks {
				if b["type"] != "tool_result" {
					continue
				}
				id, _ := b["tool_use_id"].(string)
				if !slices.Contains(pending, id) {
					return fmt.Errorf("messages.%d.content.%d: unexpected tool_use_id %q in tool_result blocks: each tool_result block must have a corresponding tool_use block in the previous message", i, j, id)
				}
				if v, ok := b["is_error"]; ok {
					if _, isBool := v.(bool); !isBool {
						return fmt.Errorf("messages.%d.content.%d.is_error: must be a boolean", i, j)
					}
				}
				answered[id] = true
			}
			for _, id := range pending {
				if !answered[id] {
					return fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after: %s", i, id)
				}
			}
			pending = nil
		case "assistant":
			if len(pending) > 0 {
				return fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after: %s", i-1, pending[0])
			}
			for j, b := range blocks {
				if b["type"] != "tool_use" {
					continue
				}
				id, _ := b["id"].(string)
				name, _ := b["name"].(string)
				if id == "" || name == "" {
					return fmt.Errorf("messages.%d.content.%d: tool_use needs id and name", i, j)
				}
				if _, ok := b["input"].(map[string]any); !ok {
					return fmt.Errorf("messages.%d.content.%d.input: must be an object", i, j)
				}
				pending = append(pending, id)
			}
		default:
			return fmt.Errorf("messages.%d.role: %q is not user or assistant", i, role)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("tool_use ids were found without tool_result blocks immediately after: %s", pending[0])
	}
	tools, _ := req["tools"].([]any)
	for i, t := range tools {
		tool, _ := t.(map[string]any)
		if name, _ := tool["name"].(string); name == "" {
			return fmt.Errorf("tools.%d.name: field required", i)
		}
		schema, _ := tool["input_schema"].(map[string]any)
		if schema["type"] != "object" {
			return fmt.Errorf("tools.%d.input_schema.type: must be \"object\"", i)
		}
	}
	return nil
}

func checkSystem(sys any) error {
	switch sys := sys.(type) {
	case string:
		return nil
	case []any:
		for i, b := range sys {
			block, _ := b.(map[string]any)
			if block["type"] != "text" {
				return fmt.Errorf("system.%d.type: must be text", i)
			}
		}
		return nil
	}
	return errors.New("system: must be a string or a list of text blocks")
}

// anthropicBlocks returns a message's content as blocks.
func anthropicBlocks(content any) ([]map[string]any, error) {
	switch c := content.(type) {
	case string:
		return []map[string]any{{"type": "text", "text": c}}, nil
	case []any:
		if len(c) == 0 {
			return nil, errors.New("must not be empty")
		}
		blocks := make([]map[string]any, 0, len(c))
		for _, b := range c {
			block, ok := b.(map[string]any)
			if !ok {
				return nil, errors.New("blocks must be objects")
			}
			if t, _ := block["type"].(string); t == "" {
				return nil, errors.New("block type required")
			}
			blocks = append(blocks, block)
		}
		return blocks, nil
	}
	return nil, errors.New("must be a string or a list of blocks")
}
