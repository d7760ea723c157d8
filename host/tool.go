package host

import (
	"context"
	"encoding/json"
)

// A Tool is something an agent, a guest or an MCP client can call. A Tool
// must be safe for concurrent use.
type Tool interface {
	// Definition describes the tool; it does not change over the tool's
	// life.
	Definition() ToolDef
	// Call runs the tool with input, a JSON value that satisfies the
	// definition's input schema (the registry validates it first).
	//
	// A failure of the tool's own work (a script that exits non-zero, a
	// file that does not exist, a denied capability) is a result with
	// IsError set, which the caller shows to the model. An error return is
	// a failure of the host itself (the sandbox could not start, ctx was
	// cancelled): the caller may end the session.
	Call(ctx context.Context, input json.RawMessage) (*ToolResult, error)
}

// A ToolDef describes a [Tool].
type ToolDef struct {
	// Name is unique in a registry: core tools are bare ("workspace_read"),
	// skill scripts are "<skill>__<script>", MCP tools
	// "mcp__<server>__<tool>", so no source can shadow another.
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema for the input object; nil means any
	// object.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema, if set, is checked against structured results.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Source says where the tool comes from: "core", "skill" or "mcp".
	Source string `json:"source"`
	// Plugin names the skill or plugin that provides the tool ("" for core
	// tools); agent scoping gives a plugin agent its own plugin's tools.
	Plugin string `json:"plugin,omitempty"`
	// RequiredAgent, if set, is the only agent allowed to call the tool.
	RequiredAgent string `json:"required_agent,omitempty"`
	// Parallel says the tool may run concurrently with other calls of the
	// same turn.
	Parallel bool `json:"parallel,omitempty"`
}

// A ToolResult is what a tool call returns.
type ToolResult struct {
	// Content is the result for the model: text, usually.
	Content string `json:"content"`
	// Structured is an optional JSON value for programs.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError marks a failure of the tool's work (see [Tool.Call]).
	IsError bool `json:"is_error,omitempty"`
}

// ErrorResult returns a result with IsError set and msg as its content.
func ErrorResult(msg string) *ToolResult { return &ToolResult{Content: msg, IsError: true} }

// A Caller is who is calling a tool: the agent (for required_agent and
// scoping) and, for a call from a guest, the skill and script it runs in.
type Caller struct {
	Agent  string
	Skill  string
	Script string
	// Depth counts nested skill runs (a script running another skill's
	// script), so composition cannot recurse without bound.
	Depth int
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller in ctx, or the zero Caller.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}
