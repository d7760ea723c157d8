package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/abi"
)

// DefaultMaxDepth is the nesting limit of skill runs when [Env.MaxDepth]
// is 0: a script may run a skill whose script runs a skill, and so on,
// this many levels deep.
const DefaultMaxDepth = 4

// A ToolCaller calls host tools by name for a guest (a tool registry).
type ToolCaller interface {
	Call(ctx context.Context, name string, input json.RawMessage) (*ToolResult, error)
}

// A SkillIndex gives guests the skills catalog at the three levels of
// progressive disclosure, and runs other skills' scripts.
type SkillIndex interface {
	// Search returns at most limit skills matching query (level 1).
	Search(query string, limit int) ([]SkillInfo, error)
	// Activate returns the SKILL.md body of a skill and the list of its
	// files (level 2).
	Activate(name string) (body string, files []string, err error)
	// ReadResource reads one file of a skill, path relative to its root
	// and confined to it (level 3). A missing file is an error matching
	// fs.ErrNotExist.
	ReadResource(skill, path string) ([]byte, error)
	// RunScript runs a script of a skill with input, at nesting depth
	// depth (the caller's depth + 1).
	RunScript(ctx context.Context, skill, script string, input json.RawMessage, depth int) (*ToolResult, error)
}

// A SkillInfo is one skill of a catalog search: level 1.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// An MCPCaller calls tools of the MCP servers the host is connected to.
type MCPCaller interface {
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*ToolResult, error)
}

// A FetchFunc performs an HTTP request for a guest: req is an
// abi.FetchRequest as JSON, the result an abi.FetchResponse. The fetcher
// checks the net capability itself, for every redirect hop, and returns a
// [*capabilities.DeniedError] for a host that is not granted.
type FetchFunc func(ctx context.Context, req json.RawMessage) (json.RawMessage, error)

// An Env is what the host functions of one script run see: who is
// calling, what it was granted, and the providers the functions delegate
// to. [Env.Dispatch] serves a guest's call; package sandbox calls it for
// each call a guest makes to the "skillrun" import module (see docs/contracts/abi.md).
//
// A nil provider (Tools, Skills, MCP, Fetch) makes its functions fail with
// code "unavailable". Fill in the fields before the first Dispatch and do
// not change them afterwards; Dispatch is then safe for concurrent use.
type Env struct {
	// Skill and Script name the running script; audit events and errors
	// name them, and skill_read reads Skill's own files.
	Skill, Script string
	// Granted is the effective capability set of the run.
	Granted capabilities.Set
	// Input is the run's input, a JSON value (usually the tool input).
	// Input that is not valid JSON is given to the guest as a JSON string.
	Input []byte
	// Output receives what the guest writes with output; nil discards it.
	Output io.Writer
	// OutputLimit caps the bytes written to Output; 0 means
	// [abi.MaxPayload]. A write past it fails with "too_large" and writes
	// nothing.
	OutputLimit int64
	// Services are the providers the host functions delegate to, the
	// guest's logger and the auditor, which receives an event for every
	// call (nil records nothing). Services.Workspace is not used here.
	Services
	// Exec serves the exec host function (nil: unavailable); the runner
	// of the script sets it, over the run's own sandbox.
	Exec ExecFunc
	// Depth is the nesting depth of this run (0 for a run the user or the
	// agent started); MaxDepth bounds it (0 means [DefaultMaxDepth]).
	Depth, MaxDepth int

	mu      sync.Mutex
	written int64
}

// Dispatch serves one call of the host function fn with request req and
// returns the response envelope ([abi.EncodeResult] or [abi.EncodeError]).
// It never panics on guest input: every failure is an error envelope.
func (e *Env) Dispatch(ctx context.Context, fn string, req []byte) []byte {
	if len(req) > abi.MaxPayload {
		e.audit(ctx, "host", fn, audit.Deny, "request too large")
		return abi.EncodeError(abi.Errorf(abi.CodeTooLarge, "%s: the request is %d bytes, over the %d-byte limit", fn, len(req), abi.MaxPayload))
	}
	var (
		res any
		err error
	)
	switch fn {
	case abi.FuncInput:
		res, err = e.input(ctx)
	case abi.FuncOutput:
		res, err = e.output(ctx, req)
	case abi.FuncLog:
		res, err = e.log(ctx, req)
	case abi.FuncToolCall:
		res, err = e.toolCall(ctx, req)
	case abi.FuncSkillsSearch:
		res, err = e.skillsSearch(ctx, req)
	case abi.FuncSkillActivate:
		res, err = e.skillActivate(ctx, req)
	case abi.FuncSkillRead:
		res, err = e.skillRead(ctx, req)
	case abi.FuncSkillRun:
		res, err = e.skillRun(ctx, req)
	case abi.FuncMCPCall:
		res, err = e.mcpCall(ctx, req)
	case abi.FuncHTTPFetch:
		res, err = e.httpFetch(ctx, req)
	case abi.FuncExec:
		res, err = e.exec(ctx, req)
	default:
		e.audit(ctx, "host", fn, audit.Deny, "no such function")
		return abi.EncodeError(abi.Errorf(abi.CodeNotFound, "no host function %q in ABI version %d", fn, abi.Version))
	}
	if err != nil {
		return abi.EncodeError(toABIError(fn, err))
	}
	return abi.EncodeResult(res)
}

// toABIError gives err its code: an *abi.Error keeps its own, a denial is
// "denied", a missing file "not_found", anything else "internal".
func toABIError(fn string, err error) *abi.Error {
	if e, ok := errors.AsType[*abi.Error](err); ok {
		return e
	}
	code := abi.CodeInternal
	switch {
	case errors.Is(err, capabilities.ErrDenied):
		code = abi.CodeDenied
	case errors.Is(err, fs.ErrNotExist):
		code = abi.CodeNotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = abi.CodeUnavailable
	}
	return &abi.Error{Code: code, Message: fn + ": " + err.Error()}
}

func (e *Env) audit(ctx context.Context, kind, value string, d audit.Decision, reason string) {
	if e.Auditor == nil {
		return
	}
	e.Auditor.Audit(ctx, audit.Event{Time: time.Now(), Skill: e.Skill, Script: e.Script,
		Kind: kind, Value: value, Decision: d, Reason: reason})
}

// Bounds of request fields a host function checks before it audits or
// uses them: a guest chooses these strings, and an audit record must not
// grow with them (capabilities bounds each record too; these refuse what
// no honest call needs).
const (
	maxSearchQuery = 4 << 10 // skills_search: a few words or a regexp
	maxCallName    = 256     // tool, skill, script, MCP server and tool names
	maxReadPath    = 4 << 10 // skill_read: PATH_MAX
)

// checkSize refuses the field of fn's request when it is longer than max
// bytes: an error of code "invalid" that names the bound, audited as a
// denial of kind "limit" that gives the size, never the value.
func (e *Env) checkSize(ctx context.Context, fn, field, value string, max int) error {
	if len(value) <= max {
		return nil
	}
	e.audit(ctx, "limit", fn+" "+field, audit.Deny, fmt.Sprintf("%d bytes, over the %d-byte limit", len(value), max))
	return abi.Errorf(abi.CodeInvalid, "%s: the %s is %d bytes, over the %d-byte limit", fn, field, len(value), max)
}

// decode decodes a JSON request of fn into v.
func decode(fn string, req []byte, v any) error {
	if err := abi.Decode(req, v); err != nil {
		return abi.Errorf(abi.CodeInvalid, "%s: malformed request: %v", fn, err)
	}
	return nil
}

// deny audits and returns a denial: err is a *capabilities.DeniedError,
// to which the run's skill and script are added.
func (e *Env) deny(ctx context.Context, err error) error {
	if d, ok := errors.AsType[*capabilities.DeniedError](err); ok {
		d2 := *d
		if d2.Skill == "" && d2.Script == "" {
			d2.Skill, d2.Script = e.Skill, e.Script
		}
		e.audit(ctx, d2.Kind, d2.Value, audit.Deny, d2.Error())
		return abi.Errorf(abi.CodeDenied, "%s", d2.Error())
	}
	e.audit(ctx, "host", "", audit.Deny, err.Error())
	return abi.Errorf(abi.CodeDenied, "%s", err.Error())
}

func unavailable(fn, what string) error {
	return abi.Errorf(abi.CodeUnavailable, "%s: this host provides no %s to guests", fn, what)
}

func (e *Env) input(ctx context.Context) (any, error) {
	e.audit(ctx, "host", abi.FuncInput, audit.Allow, "")
	switch {
	case len(e.Input) == 0:
		return json.RawMessage("null"), nil
	case abi.CheckJSON(e.Input) == nil:
		return json.RawMessage(e.Input), nil
	}
	return string(e.Input), nil
}

func (e *Env) output(ctx context.Context, req []byte) (any, error) {
	limit := e.OutputLimit
	if limit <= 0 {
		limit = abi.MaxPayload
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// The result also spends from the run's output budget (OutputBudget),
	// shared with stdout, stderr and log: all guest bytes count once.
	if e.written+int64(len(req)) > limit || !abi.SpendOutput(ctx, len(req)) {
		e.audit(ctx, "limit", "output", audit.Deny, fmt.Sprintf("output limit %d bytes", limit))
		return nil, abi.Errorf(abi.CodeTooLarge, "output: the output limit of %d bytes would be passed (%d written, %d more asked)", limit, e.written, len(req))
	}
	n := len(req)
	if e.Output != nil {
		var err error
		n, err = e.Output.Write(req)
		e.written += int64(n)
		if err != nil {
			return nil, abi.Errorf(abi.CodeInternal, "output: %v", err)
		}
	} else {
		e.written += int64(n)
	}
	e.audit(ctx, "host", abi.FuncOutput, audit.Allow, fmt.Sprintf("%d bytes", n))
	return abi.OutputResult{Written: n}, nil
}

var logLevels = map[string]slog.Level{
	"": slog.LevelInfo, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "error": slog.LevelError,
}

func (e *Env) log(ctx context.Context, req []byte) (any, error) {
	var r abi.LogRequest
	if err := decode(abi.FuncLog, req, &r); err != nil {
		return nil, err
	}
	level, ok := logLevels[r.Level]
	if !ok {
		return nil, abi.Errorf(abi.CodeInvalid, "log: level %q is not debug, info, warn or error", r.Level)
	}
	// A log line is guest output like any other: it counts against the
	// run's output limit (OutputBudget), whether or not a Logger keeps it.
	if !abi.SpendOutput(ctx, len(r.Msg)) {
		e.audit(ctx, "limit", abi.FuncLog, audit.Deny, "output limit reached")
		return nil, abi.Errorf(abi.CodeTooLarge, "log: the run's output limit is reached (stdout, stderr, log and output count together); the line was dropped")
	}
	if e.Logger != nil {
		e.Logger.Log(ctx, level, r.Msg, "skill", e.Skill, "script", e.Script)
	}
	return nil, nil
}

func (e *Env) toolCall(ctx context.Context, req []byte) (any, error) {
	var r abi.ToolCallRequest
	if err := decode(abi.FuncToolCall, req, &r); err != nil {
		return nil, err
	}
	if r.Name == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "tool_call: no tool name")
	}
	if err := e.checkSize(ctx, abi.FuncToolCall, "tool name", r.Name, maxCallName); err != nil {
		return nil, err
	}
	if err := e.Granted.CheckTool(r.Name); err != nil {
		return nil, e.deny(ctx, err)
	}
	if e.Tools == nil {
		return nil, unavailable(abi.FuncToolCall, "tools")
	}
	e.audit(ctx, "tools", r.Name, audit.Allow, "")
	input := r.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	res, err := e.Tools.Call(ctx, r.Name, input)
	if errors.Is(err, ErrUnknownTool) {
		return nil, abi.Errorf(abi.CodeNotFound, "tool_call: %v", err)
	}
	if err != nil {
		return nil, err
	}
	return toolResult(res), nil
}

func toolResult(r *ToolResult) abi.ToolResult {
	if r == nil {
		return abi.ToolResult{}
	}
	return abi.ToolResult{Content: r.Content, Structured: r.Structured, IsError: r.IsError}
}

// maxSearchLimit bounds skills_search results.
const maxSearchLimit = 100

func (e *Env) skillsSearch(ctx context.Context, req []byte) (any, error) {
	var r abi.SearchRequest
	if err := decode(abi.FuncSkillsSearch, req, &r); err != nil {
		return nil, err
	}
	if err := e.checkSize(ctx, abi.FuncSkillsSearch, "query", r.Query, maxSearchQuery); err != nil {
		return nil, err
	}
	switch {
	case r.Limit < 0:
		return nil, abi.Errorf(abi.CodeInvalid, "skills_search: negative limit %d", r.Limit)
	case r.Limit == 0:
		r.Limit = 10
	}
	r.Limit = min(r.Limit, maxSearchLimit)
	if e.Skills == nil {
		return nil, unavailable(abi.FuncSkillsSearch, "skills catalog")
	}
	e.audit(ctx, "skills", "search:"+r.Query, audit.Allow, "")
	found, err := e.Skills.Search(r.Query, r.Limit)
	if err != nil {
		return nil, err
	}
	out := abi.SearchResult{Skills: make([]abi.SkillInfo, 0, len(found))}
	for _, s := range found[:min(len(found), r.Limit)] {
		out.Skills = append(out.Skills, abi.SkillInfo(s))
	}
	return out, nil
}

func (e *Env) skillActivate(ctx context.Context, req []byte) (any, error) {
	var r abi.ActivateRequest
	if err := decode(abi.FuncSkillActivate, req, &r); err != nil {
		return nil, err
	}
	if r.Name == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "skill_activate: no skill name")
	}
	if err := e.checkSize(ctx, abi.FuncSkillActivate, "skill name", r.Name, maxCallName); err != nil {
		return nil, err
	}
	if e.Skills == nil {
		return nil, unavailable(abi.FuncSkillActivate, "skills catalog")
	}
	e.audit(ctx, "skills", "activate:"+r.Name, audit.Allow, "")
	body, files, err := e.Skills.Activate(r.Name)
	if err != nil {
		return nil, err
	}
	if files == nil {
		files = []string{}
	}
	return abi.ActivateResult{Body: body, Files: files}, nil
}

// skill_read reads a file of the calling skill only. It needs no grant:
// the skill's own files are its author's, and level 3 disclosure gives
// them to the model anyway; the read grant ("skill") governs the /skill
// mount, not this. Another skill's files are never readable.
func (e *Env) skillRead(ctx context.Context, req []byte) (any, error) {
	var r abi.ReadRequest
	if err := decode(abi.FuncSkillRead, req, &r); err != nil {
		return nil, err
	}
	if err := e.checkSize(ctx, abi.FuncSkillRead, "path", r.Path, maxReadPath); err != nil {
		return nil, err
	}
	p := r.Path
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != p ||
		p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, 0) {
		err := &capabilities.DeniedError{Kind: "read", Value: "skill/" + p,
			Reason: "skill_read takes a clean path relative to the skill root, such as references/guide.md"}
		return nil, e.deny(ctx, err)
	}
	if e.Skills == nil {
		return nil, unavailable(abi.FuncSkillRead, "skills catalog")
	}
	if e.Skill == "" {
		return nil, abi.Errorf(abi.CodeUnavailable, "skill_read: this run belongs to no skill")
	}
	e.audit(ctx, "read", "skill/"+p, audit.Allow, "skill_read")
	data, err := e.Skills.ReadResource(e.Skill, p)
	if err != nil {
		return nil, err
	}
	if len(data) > abi.MaxPayload/2 {
		return nil, abi.Errorf(abi.CodeTooLarge, "skill_read: %s is %d bytes; skill_read returns files up to %d bytes (mount the skill with read = [\"skill\"] for larger ones)", p, len(data), abi.MaxPayload/2)
	}
	return abi.NewReadResult(data), nil
}

func (e *Env) skillRun(ctx context.Context, req []byte) (any, error) {
	var r abi.RunRequest
	if err := decode(abi.FuncSkillRun, req, &r); err != nil {
		return nil, err
	}
	if r.Skill == "" || r.Script == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "skill_run: skill and script are both required")
	}
	if err := e.checkSize(ctx, abi.FuncSkillRun, "skill name", r.Skill, maxCallName); err != nil {
		return nil, err
	}
	if err := e.checkSize(ctx, abi.FuncSkillRun, "script name", r.Script, maxCallName); err != nil {
		return nil, err
	}
	if err := e.Granted.CheckSkill(r.Skill); err != nil {
		return nil, e.deny(ctx, err)
	}
	maxDepth := e.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if e.Depth+1 > maxDepth {
		return nil, e.deny(ctx, &capabilities.DeniedError{Kind: "skills", Value: r.Skill,
			Reason: fmt.Sprintf("skill runs nest at most %d deep", maxDepth)})
	}
	if e.Skills == nil {
		return nil, unavailable(abi.FuncSkillRun, "skill runner")
	}
	e.audit(ctx, "skills", r.Skill, audit.Allow, "run "+r.Script)
	input := r.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	res, err := e.Skills.RunScript(ctx, r.Skill, r.Script, input, e.Depth+1)
	if err != nil {
		return nil, err
	}
	return toolResult(res), nil
}

func (e *Env) mcpCall(ctx context.Context, req []byte) (any, error) {
	var r abi.MCPRequest
	if err := decode(abi.FuncMCPCall, req, &r); err != nil {
		return nil, err
	}
	if err := e.checkSize(ctx, abi.FuncMCPCall, "server name", r.Server, maxCallName); err != nil {
		return nil, err
	}
	if err := e.checkSize(ctx, abi.FuncMCPCall, "tool name", r.Tool, maxCallName); err != nil {
		return nil, err
	}
	if err := e.Granted.CheckMCP(r.Server, r.Tool); err != nil {
		return nil, e.deny(ctx, err)
	}
	if e.MCP == nil {
		return nil, unavailable(abi.FuncMCPCall, "MCP servers")
	}
	e.audit(ctx, "mcp", r.Server+"/"+r.Tool, audit.Allow, "")
	args := r.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := e.MCP.CallTool(ctx, r.Server, r.Tool, args)
	if err != nil {
		return nil, err
	}
	return toolResult(res), nil
}

func (e *Env) httpFetch(ctx context.Context, req []byte) (any, error) {
	var r abi.FetchRequest
	if err := decode(abi.FuncHTTPFetch, req, &r); err != nil {
		return nil, err
	}
	if r.URL == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "http_fetch: no url")
	}
	if err := e.checkSize(ctx, abi.FuncHTTPFetch, "url", r.URL, maxFetchURLLen); err != nil {
		return nil, err
	}
	if e.Fetch == nil {
		return nil, unavailable(abi.FuncHTTPFetch, "HTTP fetcher")
	}
	res, err := e.Fetch(ctx, req)
	if err != nil {
		if errors.Is(err, capabilities.ErrDenied) {
			return nil, e.deny(ctx, err)
		}
		e.audit(ctx, "net", r.URL, audit.Allow, "failed: "+err.Error())
		return nil, err
	}
	e.audit(ctx, "net", r.URL, audit.Allow, "")
	if err := abi.CheckJSON(res); err != nil {
		return nil, abi.Errorf(abi.CodeInternal, "http_fetch: the fetcher's response: %v", err)
	}
	return res, nil
}
