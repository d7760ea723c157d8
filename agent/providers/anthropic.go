package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/skillrun/skillrun/agent"
)

// DefaultAnthropicModel is the model [NewAnthropic] uses when neither the
// request nor [Options.Model] names one.
const DefaultAnthropicModel = anthropic.ModelClaudeSonnet5_5

// defaultAnthropicMaxTokens is max_tokens when a request says 0: the
// Messages API requires the field.
const defaultAnthropicMaxTokens = 4096

// anthropicProvider is safe for concurrent use: it holds only the SDK
// client, which is.
type anthropicProvider struct {
	client anthropic.Client
	model  string
	guard  guard
	opts   Options
}

// NewAnthropic returns a provider for Anthropic's Messages API. The key is
// [Options.APIKey] (see [FromEnv]); without one it fails with an
// [*agent.ProviderError] of kind [agent.ErrAuth], before any request. The
// SDK reads nothing else from the environment or the user's files.
//
// Request.ReasoningEffort is sent as output_config.effort ("minimal" as
// "low"); a model that does not support effort rejects the request.
// Extended thinking is not used: its blocks would have to be sent back
// with every tool result, and [agent.Message] has no place for them.
func NewAnthropic(o Options) (agent.Provider, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	if o.APIKey == "" {
		return nil, &agent.ProviderError{Provider: "anthropic", Kind: agent.ErrAuth,
			Message: "no API key: set ANTHROPIC_API_KEY"}
	}
	g := guard{provider: "anthropic", key: o.APIKey}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(o.APIKey),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(o.Timeout),
		option.WithMiddleware(g.middleware),
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	model := o.Model
	if model == "" {
		model = DefaultAnthropicModel
	}
	return &anthropicProvider{client: anthropic.NewClient(opts...), model: model, guard: g, opts: o}, nil
}

func (p *anthropicProvider) Name() string { return "anthropic" }

func (p *anthropicProvider) Complete(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	msg, err := p.client.Messages.New(ctx, params)
	if err != nil {
		return nil, p.guard.classify(ctx, err, p.opts.Timeout)
	}
	return p.response(msg, params.Model)
}

// params maps a request to the Messages API.
func (p *anthropicProvider) params(req *agent.Request) (anthropic.MessageNewParams, error) {
	params := anthropic.MessageNewParams{
		Model:     req.Model,
		MaxTokens: int64(req.MaxTokens),
	}
	if params.Model == "" {
		params.Model = p.model
	}
	if params.MaxTokens <= 0 {
		params.MaxTokens = defaultAnthropicMaxTokens
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	switch req.ReasoningEffort {
	case "":
	case "minimal", "low":
		params.OutputConfig.Effort = anthropic.OutputConfigEffortLow
	case "medium":
		params.OutputConfig.Effort = anthropic.OutputConfigEffortMedium
	case "high":
		params.OutputConfig.Effort = anthropic.OutputConfigEffortHigh
	default:
		return params, p.badRequest("reasoning effort %q: want minimal, low, medium or high", req.ReasoningEffort)
	}
	for _, m := range req.Messages {
		mp, err := p.message(m)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, mp)
	}
	for _, t := range req.Tools {
		tool := anthropic.ToolParam{
			Name:        t.Name,
			InputSchema: param.Override[anthropic.ToolInputSchemaParam](objectSchema(t.InputSchema)),
		}
		if t.Description != "" {
			tool.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return params, nil
}

// message maps one turn. A user turn's tool results all go in one message,
// in call order and before any text, as the API requires.
func (p *anthropicProvider) message(m agent.Message) (anthropic.MessageParam, error) {
	var blocks []anthropic.ContentBlockParamUnion
	switch m.Role {
	case agent.RoleUser:
		for _, r := range m.ToolResults {
			res := anthropic.ToolResultBlockParam{ToolUseID: r.CallID, IsError: param.NewOpt(r.IsError)}
			if r.Content != "" { // an empty text block is rejected; no content is not
				res.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: r.Content}}}
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &res})
		}
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		return anthropic.NewUserMessage(blocks...), nil
	case agent.RoleAssistant:
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		for _, c := range m.ToolCalls {
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, inputObject(c.Input), c.Name))
		}
		return anthropic.NewAssistantMessage(blocks...), nil
	}
	return anthropic.MessageParam{}, p.badRequest("message role %q: want user or assistant", m.Role)
}

// response maps a reply, checking what the wire format promises.
func (p *anthropicProvider) response(msg *anthropic.Message, model string) (*agent.Response, error) {
	if msg == nil || !msg.JSON.Content.Valid() {
		return nil, p.malformed("the reply has no content list")
	}
	out := &agent.Response{
		Message:       agent.Message{Role: agent.RoleAssistant},
		RawStopReason: string(msg.StopReason),
		Model:         msg.Model,
		Usage: agent.Usage{
			InputTokens:      msg.Usage.InputTokens,
			OutputTokens:     msg.Usage.OutputTokens,
			CacheReadTokens:  msg.Usage.CacheReadInputTokens,
			CacheWriteTokens: msg.Usage.CacheCreationInputTokens,
		},
	}
	if out.Model == "" {
		out.Model = model
	}
	var text []string
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return nil, p.malformed("content block %d: tool_use without id or name", i)
			}
			input := json.RawMessage(bytes.TrimSpace(b.Input))
			if len(input) == 0 || string(input) == "null" {
				input = json.RawMessage("{}")
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Input: input})
		case "":
			return nil, p.malformed("content block %d has no type", i)
		}
		// Other blocks (thinking, server tools) are not the agent's.
	}
	out.Message.Text = strings.Join(text, "\n\n")
	switch msg.StopReason {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		out.StopReason = agent.StopEndTurn
	case anthropic.StopReasonToolUse:
		out.StopReason = agent.StopToolUse
	case anthropic.StopReasonMaxTokens:
		out.StopReason = agent.StopMaxTokens
	case anthropic.StopReasonRefusal:
		out.StopReason = agent.StopRefusal
	default:
		out.StopReason = agent.StopOther
	}
	return out, nil
}

func (p *anthropicProvider) malformed(format string, args ...any) error {
	return p.guard.fail(agent.ErrMalformed, 200, fmt.Sprintf(format, args...), nil)
}

func (p *anthropicProvider) badRequest(format string, args ...any) error {
	return p.guard.fail(agent.ErrBadRequest, 0, fmt.Sprintf(format, args...), nil)
}

// objectSchema returns a tool's input schema as a JSON object, {"type":
// "object"} when it is empty. Both APIs require an object schema.
func objectSchema(s json.RawMessage) json.RawMessage {
	var obj map[string]any
	if json.Unmarshal(s, &obj) != nil || obj == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if _, ok := obj["type"]; !ok {
		obj["type"] = "object"
		b, _ := json.Marshal(obj)
		return b
	}
	return s
}

// inputObject returns a tool call's input as the API takes it back: the
// object the model wrote, or {} when that was not a JSON object (the loop
// has already answered such a call with an error result).
func inputObject(in json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(in)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return json.RawMessage("{}")
}
