package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/skillrun/skillrun/agent"
)

// openaiBaseURL is OpenAI's own endpoint.
const openaiBaseURL = "https://api.openai.com/v1/"

// toolErrorPrefix starts the content of a tool message that answers a
// failed call: chat completions have no is_error field, so the model learns
// of the failure from the text.
const toolErrorPrefix = "ERROR: "

// openaiProvider is safe for concurrent use: it holds only the SDK client,
// which is.
type openaiProvider struct {
	client openai.Client
	model  string
	// legacyMaxTokens sends the bound as max_tokens, which every
	// compatible server knows, rather than max_completion_tokens.
	legacyMaxTokens bool
	guard           guard
	opts            Options
}

// NewOpenAI returns a provider for OpenAI chat completions, or for any
// server that speaks them (llama.cpp, Ollama, vLLM...) when
// [Options.BaseURL] points at it. The key is
// [Options.APIKey] (see [FromEnv]); a server at another base URL may
// need none, but OpenAI's own endpoint fails without one with an
// [*agent.ProviderError] of kind [agent.ErrAuth], before any request.
//
// The mapping, where chat completions differ from package agent:
//   - a failed tool result is sent with its content prefixed by
//     [toolErrorPrefix];
//   - MaxTokens is max_completion_tokens at OpenAI's endpoint (its
//     reasoning models reject max_tokens) and max_tokens elsewhere (the
//     field local servers know);
//   - prompt_tokens counts cached tokens too; they are reported as
//     CacheReadTokens (and cache writes as CacheWriteTokens) and left out
//     of InputTokens, so [agent.Usage.Total] counts each token once;
//   - a reply with tool calls stops with [agent.StopToolUse] even if the
//     server said "stop", as some local servers do.
//
// There is no default model: a request without one, on a provider without
// [Options.Model], fails with an error that names the --model flag. The
// SDK also reads OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment.
func NewOpenAI(o Options) (agent.Provider, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	official := o.BaseURL == ""
	if o.BaseURL != "" {
		u, _ := url.Parse(o.BaseURL)
		official = u.Hostname() == "api.openai.com"
	} else {
		o.BaseURL = openaiBaseURL
	}
	if official && o.APIKey == "" {
		return nil, &agent.ProviderError{Provider: "openai", Kind: agent.ErrAuth,
			Message: "no API key: set OPENAI_API_KEY (or a base URL for a local server)"}
	}
	g := guard{provider: "openai", key: o.APIKey}
	opts := []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithAPIKey(o.APIKey),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(o.Timeout),
		option.WithMiddleware(g.middleware),
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &openaiProvider{
		client:          openai.NewClient(opts...),
		model:           o.Model,
		legacyMaxTokens: !official,
		guard:           g,
		opts:            o,
	}, nil
}

func (p *openaiProvider) Name() string { return "openai" }

func (p *openaiProvider) Complete(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	res, err := p.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, p.guard.classify(ctx, err, p.opts.Timeout)
	}
	return p.response(res, params.Model)
}

// params maps a request to chat completions.
func (p *openaiProvider) params(req *agent.Request) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{Model: req.Model}
	if params.Model == "" {
		params.Model = p.model
	}
	if params.Model == "" {
		return params, p.badRequest("no model: name one with --model (OpenAI-compatible servers have no default)")
	}
	if req.MaxTokens > 0 {
		if p.legacyMaxTokens {
			params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			params.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	switch req.ReasoningEffort {
	case "":
	case "minimal", "low", "medium", "high":
		params.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	default:
		return params, p.badRequest("reasoning effort %q: want minimal, low, medium or high", req.ReasoningEffort)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleUser:
			// Tool messages must follow the assistant's calls directly,
			// so they come before any text of the same turn.
			for _, r := range m.ToolResults {
				content := r.Content
				if r.IsError {
					content = toolErrorPrefix + content
				}
				params.Messages = append(params.Messages, openai.ToolMessage(content, r.CallID))
			}
			if m.Text != "" || len(m.ToolResults) == 0 {
				params.Messages = append(params.Messages, openai.UserMessage(m.Text))
			}
		case agent.RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Text != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = param.NewOpt(m.Text)
			}
			for _, c := range m.ToolCalls {
				args := string(c.Input)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			return params, p.badRequest("message role %q: want user or assistant", m.Role)
		}
	}
	for _, t := range req.Tools {
		var schema shared.FunctionParameters
		if err := json.Unmarshal(objectSchema(t.InputSchema), &schema); err != nil {
			return params, p.badRequest("tool %s: input schema: %v", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

// response maps choices[0] of a reply, checking what the wire format
// promises.
func (p *openaiProvider) response(res *openai.ChatCompletion, model string) (*agent.Response, error) {
	if res == nil || len(res.Choices) == 0 {
		return nil, p.malformed("the reply has no choices")
	}
	ch := res.Choices[0]
	if !ch.JSON.Message.Valid() {
		return nil, p.malformed("choice 0 has no message")
	}
	msg := ch.Message
	out := &agent.Response{
		Message:       agent.Message{Role: agent.RoleAssistant, Text: msg.Content},
		RawStopReason: ch.FinishReason,
		Model:         res.Model,
	}
	if out.Model == "" {
		out.Model = model
	}
	for i, c := range msg.ToolCalls {
		if c.Type != "" && c.Type != "function" {
			return nil, p.malformed("tool call %d has type %q, not function", i, c.Type)
		}
		if c.ID == "" || c.Function.Name == "" {
			return nil, p.malformed("tool call %d has no id or no function name", i)
		}
		args := c.Function.Arguments
		if args == "" {
			args = "{}"
		}
		// The arguments are kept as the model wrote them, even if they
		// are not JSON: the loop answers that with an error result.
		out.Message.ToolCalls = append(out.Message.ToolCalls, agent.ToolCall{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(args)})
	}
	switch ch.FinishReason {
	case "stop":
		out.StopReason = agent.StopEndTurn
	case "tool_calls", "function_call":
		out.StopReason = agent.StopToolUse
	case "length":
		out.StopReason = agent.StopMaxTokens
	case "content_filter":
		out.StopReason = agent.StopRefusal
	default:
		out.StopReason = agent.StopOther
	}
	if len(out.Message.ToolCalls) > 0 && out.StopReason == agent.StopEndTurn {
		out.StopReason = agent.StopToolUse
	}
	if msg.Refusal != "" {
		out.StopReason = agent.StopRefusal
		if out.Message.Text == "" {
			out.Message.Text = msg.Refusal
		}
	}
	u := res.Usage
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	out.Usage = agent.Usage{
		InputTokens:      max(0, u.PromptTokens-cached-written),
		OutputTokens:     u.CompletionTokens,
		CacheReadTokens:  cached,
		CacheWriteTokens: written,
	}
	return out, nil
}

func (p *openaiProvider) malformed(format string, args ...any) error {
	return p.guard.fail(agent.ErrMalformed, 200, fmt.Sprintf(format, args...), nil)
}

func (p *openaiProvider) badRequest(format string, args ...any) error {
	return p.guard.fail(agent.ErrBadRequest, 0, fmt.Sprintf(format, args...), nil)
}
