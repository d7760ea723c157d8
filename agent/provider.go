package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A Provider is a model behind an API: Anthropic's Messages API, an
// OpenAI-compatible chat completions server, or a scripted plan. The
// session loop speaks only these neutral types, so a provider is the one
// place that knows a wire format.
//
// Complete must be safe for concurrent use. It returns either a response
// or an error; a [*ProviderError] says what kind of failure it was, so the
// loop can retry, end the session or report it.
type Provider interface {
	// Name is the provider's name for transcripts: "anthropic", "openai",
	// "scripted".
	Name() string
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Role says who wrote a [Message].
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// A Message is one turn of the conversation. An assistant message has
// Text and/or ToolCalls; a user message has Text (the task) or
// ToolResults (one for each call of the previous assistant message, in
// call order).
type Message struct {
	Role        Role         `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolResults []ToolOutput `json:"tool_results,omitempty"`
}

// A ToolCall is the model asking to run a tool.
type ToolCall struct {
	// ID is the provider's id for the call; the result carries it back.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the JSON object of arguments, as the model wrote it (it may
	// be invalid JSON: the loop answers that with an error result).
	Input json.RawMessage `json:"input"`
}

// A ToolOutput answers one [ToolCall].
type ToolOutput struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// A ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// A Request is one call to the model.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []ToolSpec
	// MaxTokens bounds the reply (0: the provider's default).
	MaxTokens int
	// Temperature is nil for the provider's default.
	Temperature *float64
	// ReasoningEffort is "", "minimal", "low", "medium" or "high".
	ReasoningEffort string
}

// StopReason says why the model stopped writing.
type StopReason string

const (
	// StopEndTurn: the model finished its answer.
	StopEndTurn StopReason = "end_turn"
	// StopToolUse: the model wants the results of its tool calls.
	StopToolUse StopReason = "tool_use"
	// StopMaxTokens: the reply hit the token limit of the request.
	StopMaxTokens StopReason = "max_tokens"
	// StopRefusal: the model declined (content filter, safety refusal).
	StopRefusal StopReason = "refusal"
	// StopOther: any other reason the provider gave.
	StopOther StopReason = "other"
)

// Usage counts the tokens of one response, or of a whole session.
type Usage struct {
	InputTokens      int64 `json:"input_tokens" toml:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens" toml:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty" toml:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty" toml:"cache_write_tokens"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// Total is every token counted.
func (u Usage) Total() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// A Response is the model's reply.
type Response struct {
	// Message is the assistant's turn (Role is [RoleAssistant]).
	Message    Message
	StopReason StopReason
	// RawStopReason is the provider's own word for it ("end_turn",
	// "tool_calls", "length", ...), for the transcript.
	RawStopReason string
	Usage         Usage
	// Model is the model that answered, as the provider names it.
	Model string
}

// ErrorKind classifies a provider failure.
type ErrorKind string

const (
	// ErrAuth: the key is missing, wrong or not allowed (401, 403). The
	// session ends; retrying cannot help.
	ErrAuth ErrorKind = "auth"
	// ErrRateLimit: 429; retried with backoff.
	ErrRateLimit ErrorKind = "rate_limit"
	// ErrServer: 5xx or an overloaded provider (Anthropic's 529); retried.
	ErrServer ErrorKind = "server"
	// ErrConnection: the request did not reach the server or the reply
	// did not come back (refused, reset, timed out); retried.
	ErrConnection ErrorKind = "connection"
	// ErrBadRequest: the provider rejected the request (400, 404, 413,
	// 422): a wrong model name, a context too long. Not retried.
	ErrBadRequest ErrorKind = "bad_request"
	// ErrMalformed: the reply was not what the wire format promises
	// (not JSON, no choices, a tool call without a name). Not retried.
	ErrMalformed ErrorKind = "malformed"
)

// A ProviderError is a failed call to a provider.
type ProviderError struct {
	Provider string
	Kind     ErrorKind
	// Status is the HTTP status, 0 if there was none.
	Status int
	// Message is the provider's own message, or what was wrong with the
	// reply, bounded in length.
	Message string
	// RetryAfter is the wait the provider asked for (Retry-After,
	// retry-after-ms), 0 if none.
	RetryAfter time.Duration
	Err        error
}

func (e *ProviderError) Error() string {
	s := e.Provider + ": " + string(e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Kind == ErrAuth {
		switch e.Provider {
		case "anthropic":
			s += " (check ANTHROPIC_API_KEY)"
		case "openai":
			s += " (check OPENAI_API_KEY)"
		default:
			s += " (check the API key in the environment)"
		}
	}
	return s
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again.
func (e *ProviderError) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrServer, ErrConnection:
		return true
	}
	return false
}

// KindOf returns the [ErrorKind] of err if it is (or wraps) a
// [*ProviderError], and "" otherwise.
func KindOf(err error) ErrorKind {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

// MaxErrorMessage bounds the provider message kept in a [ProviderError].
const MaxErrorMessage = 2 << 10

// Truncate returns s cut to at most n bytes at a rune boundary, with "…"
// appended when it was cut. Providers use it for messages taken from
// replies, which are untrusted and unbounded.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
