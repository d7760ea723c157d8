// Package abi is the wire format of skillrun's host ABI, shared by the
// host side (package host, wired into guests by package sandbox) and the
// guest SDK (package guest). docs/contracts/abi.md is its
// specification; this package is its one implementation.
//
// Every host function takes a request and gives a response envelope, both
// JSON (except the request of [FuncOutput], which is raw bytes):
//
//	{"ok":true,"result":...}
//	{"ok":false,"error":{"code":"denied","message":"..."}}
//
// Payloads are at most [MaxPayload] bytes, and decoding refuses JSON
// nested deeper than [MaxDepth], so a hostile peer cannot make the other
// side allocate or recurse without bound.
//
// The package imports only the standard library, since guests built for
// GOOS=wasip1 import it. Its functions are safe for concurrent use.
package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Version is the version of the ABI described here. A guest may ask the
// host for its version with [FuncABIVersion]; additions (new functions,
// new optional fields) keep the version, changes that break a guest raise
// it.
const Version = 1

// Module is the Wasm import module name of the host functions.
const Module = "skillrun"

// Limits.
const (
	// MaxPayload bounds a request and a response, in bytes.
	MaxPayload = 1 << 20
	// MaxDepth bounds the nesting of arrays and objects in a decoded
	// payload.
	MaxDepth = 64
)

// Names of the host functions, as imported from [Module]. Each but
// [FuncABIVersion] and [FuncTake] has the Wasm signature
// (req_ptr i32, req_len i32) -> i32; see docs/contracts/abi.md.
const (
	FuncABIVersion    = "abi_version"
	FuncTake          = "take"
	FuncInput         = "input"
	FuncOutput        = "output"
	FuncLog           = "log"
	FuncToolCall      = "tool_call"
	FuncSkillsSearch  = "skills_search"
	FuncSkillActivate = "skill_activate"
	FuncSkillRead     = "skill_read"
	FuncSkillRun      = "skill_run"
	FuncMCPCall       = "mcp_call"
	FuncHTTPFetch     = "http_fetch"
	FuncExec          = "exec"
)

// Funcs lists the request-taking host functions (every function but
// [FuncABIVersion] and [FuncTake]).
var Funcs = []string{
	FuncInput, FuncOutput, FuncLog, FuncToolCall, FuncSkillsSearch,
	FuncSkillActivate, FuncSkillRead, FuncSkillRun, FuncMCPCall, FuncHTTPFetch,
	FuncExec,
}

// Results of [FuncTake] other than a length: guest bugs, never host
// failures.
const (
	TakeNoResponse  = -1 // no response is waiting
	TakeTooSmall    = -2 // the buffer is smaller than the response; it is kept
	TakeOutOfBounds = -3 // the buffer is not inside the guest's memory
)

// Error codes.
const (
	CodeDenied      = "denied"      // a capability the call needs is not granted
	CodeInvalid     = "invalid"     // the request is malformed
	CodeNotFound    = "not_found"   // no such function, tool, skill or file
	CodeTooLarge    = "too_large"   // a payload is over MaxPayload (or a limit such as output)
	CodeUnavailable = "unavailable" // the host has no provider for the function in this run
	CodeInternal    = "internal"    // the host failed
)

// An Error is a failed call, as the envelope carries it.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// A Response is the envelope of every response.
type Response struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// EncodeResult returns the envelope of a successful call whose result is
// v encoded as JSON. A result that cannot be encoded or that would make
// the envelope larger than [MaxPayload] gives an error envelope instead.
func EncodeResult(v any) []byte {
	var raw json.RawMessage
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	case nil:
		raw = json.RawMessage("null")
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return EncodeError(Errorf(CodeInternal, "encoding the result: %v", err))
		}
		raw = b
	}
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	if !json.Valid(raw) {
		return EncodeError(Errorf(CodeInternal, "the result is not valid JSON"))
	}
	b, err := json.Marshal(Response{OK: true, Result: raw})
	if err != nil {
		return EncodeError(Errorf(CodeInternal, "encoding the result: %v", err))
	}
	if len(b) > MaxPayload {
		return EncodeError(Errorf(CodeTooLarge, "the response is %d bytes, over the %d-byte limit", len(b), MaxPayload))
	}
	return b
}

// EncodeError returns the envelope of a failed call. A nil e is an
// internal error; a message longer than 4 KiB is cut.
func EncodeError(e *Error) []byte {
	if e == nil {
		e = &Error{Code: CodeInternal, Message: "unknown error"}
	}
	msg := e.Message
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
		msg += "..."
	}
	b, _ := json.Marshal(Response{Error: &Error{Code: e.Code, Message: msg}}) // strings always encode
	return b
}

const maxMessage = 4 << 10

// DecodeResponse decodes an envelope. It returns the result of a
// successful call, or an *Error: the call's own, or one with code
// [CodeInvalid] for an envelope that is malformed, too large or too deep.
func DecodeResponse(b []byte) (json.RawMessage, error) {
	var r Response
	if err := Decode(b, &r); err != nil {
		return nil, Errorf(CodeInvalid, "malformed response: %v", err)
	}
	if !r.OK {
		if r.Error == nil || r.Error.Code == "" {
			return nil, Errorf(CodeInvalid, "malformed response: ok is false but there is no error code")
		}
		return nil, r.Error
	}
	if r.Error != nil {
		return nil, Errorf(CodeInvalid, "malformed response: ok is true but there is an error")
	}
	if len(r.Result) == 0 {
		r.Result = json.RawMessage("null")
	}
	return r.Result, nil
}

// Errors of [Decode] and [CheckJSON].
var (
	ErrTooLarge = errors.New("payload too large")
	ErrTooDeep  = errors.New("payload nested too deeply")
)

// Decode decodes the JSON value b into v after [CheckJSON]. Unknown object
// keys are ignored, so that a newer peer may add optional fields.
func Decode(b []byte, v any) error {
	if err := CheckJSON(b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// CheckJSON reports whether b is one valid JSON value of at most
// [MaxPayload] bytes, nested at most [MaxDepth] deep. Its errors match
// [ErrTooLarge] or [ErrTooDeep] with errors.Is, or say what is malformed.
func CheckJSON(b []byte) error {
	if len(b) > MaxPayload {
		return fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrTooLarge, len(b), MaxPayload)
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxDepth)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	if !json.Valid(b) {
		var v any
		err := json.NewDecoder(bytes.NewReader(b)).Decode(&v)
		if err == nil {
			err = errors.New("trailing data after the JSON value")
		}
		return fmt.Errorf("not valid JSON: %w", err)
	}
	return nil
}

// Requests and results of the host functions. docs/contracts/abi.md describes each.

// LogRequest is the request of [FuncLog]. Level is debug, info, warn or
// error ("" is info).
type LogRequest struct {
	Level string `json:"level,omitempty"`
	Msg   string `json:"msg"`
}

// OutputResult is the result of [FuncOutput].
type OutputResult struct {
	Written int `json:"written"`
}

// ToolCallRequest is the request of [FuncToolCall].
type ToolCallRequest struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is the result of [FuncToolCall], [FuncSkillRun] and
// [FuncMCPCall]. IsError marks a failure of the tool's own work; the call
// itself succeeded.
type ToolResult struct {
	Content    string          `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
}

// SearchRequest is the request of [FuncSkillsSearch]. Limit 0 means 10.
type SearchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// SkillInfo is one skill of a [FuncSkillsSearch] result (level 1).
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// SearchResult is the result of [FuncSkillsSearch].
type SearchResult struct {
	Skills []SkillInfo `json:"skills"`
}

// ActivateRequest is the request of [FuncSkillActivate].
type ActivateRequest struct {
	Name string `json:"name"`
}

// ActivateResult is the result of [FuncSkillActivate] (level 2).
type ActivateResult struct {
	Body  string   `json:"body"`
	Files []string `json:"files"`
}

// ReadRequest is the request of [FuncSkillRead]: a slash-separated path
// relative to the calling skill's root.
type ReadRequest struct {
	Path string `json:"path"`
}

// ReadResult is the result of [FuncSkillRead] (level 3): Text holds a file
// that is valid UTF-8, Base64 any other.
type ReadResult struct {
	Text   *string `json:"text,omitempty"`
	Base64 []byte  `json:"base64,omitempty"`
}

// Bytes returns the file's contents.
func (r *ReadResult) Bytes() []byte {
	if r.Text != nil {
		return []byte(*r.Text)
	}
	return r.Base64
}

// NewReadResult returns the result for a file's contents.
func NewReadResult(data []byte) *ReadResult {
	if utf8.Valid(data) {
		s := string(data)
		return &ReadResult{Text: &s}
	}
	return &ReadResult{Base64: data}
}

// RunRequest is the request of [FuncSkillRun].
type RunRequest struct {
	Skill  string          `json:"skill"`
	Script string          `json:"script"`
	Input  json.RawMessage `json:"input,omitempty"`
}

// ExecRequest is the request of [FuncExec]: start a program as another
// run in the caller's sandbox, as a shell starts one: an interpreter
// skillrun ships (python3, node, sh/bash), one of the shell's commands
// (run by the shell) or a script file. Args[0] names it; the rest are its arguments,
// paths as the caller sees them. Dir is the working directory (a guest
// path) and Env the environment ("KEY=VALUE") the caller gives it.
//
// The streams go through files of the caller's private /tmp, so their
// size is bounded by the run's limits, not by MaxPayload: StdinFile is a
// file there the caller wrote ("" with InheritStdin false: empty input),
// and the output the caller does not inherit comes back in new files
// there, named by the result, which the caller reads and removes.
// InheritStdin, InheritStdout and InheritStderr connect the new run to the
// caller's own streams instead.
type ExecRequest struct {
	Args          ByteStrings `json:"args"`
	Dir           string      `json:"dir,omitempty"`
	Env           ByteStrings `json:"env,omitempty"`
	StdinFile     string      `json:"stdin_file,omitempty"`
	InheritStdin  bool        `json:"inherit_stdin,omitempty"`
	InheritStdout bool        `json:"inherit_stdout,omitempty"`
	InheritStderr bool        `json:"inherit_stderr,omitempty"`
	// StderrToStdout sends the run's standard error where its standard
	// output goes (2>&1): one stream, in the order written.
	StderrToStdout bool `json:"stderr_to_stdout,omitempty"`
	// TimeoutMS ends the run after so many milliseconds (0: only the
	// caller's own limit), as a shell's timeout command ends what it
	// runs: the run stops with status 143 (SIGTERM's) and no message;
	// the caller's timeout command reports it.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// ExecResult is the result of [FuncExec]: the run's exit code and the
// /tmp files holding what it wrote to the streams it did not inherit.
type ExecResult struct {
	ExitCode   int    `json:"exit_code"`
	StdoutFile string `json:"stdout_file,omitempty"`
	StderrFile string `json:"stderr_file,omitempty"`
}

// MCPRequest is the request of [FuncMCPCall].
type MCPRequest struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// FetchRequest is the request of [FuncHTTPFetch].
type FetchRequest struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

// FetchResponse is the result of [FuncHTTPFetch].
type FetchResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}
