package guest

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/skillrun/skillrun/internal/abi"
)

// ErrNotInSandbox is returned by every function when the program is not a
// wasip1 module run by skillrun.
var ErrNotInSandbox = errors.New("guest: not running inside skillrun (build with GOOS=wasip1 GOARCH=wasm)")

// An Error is a failed host call: Code is one of the Code constants and
// Message says what went wrong, naming the grant a denial needs.
type Error = abi.Error

// Error codes of [Error].
const (
	CodeDenied      = abi.CodeDenied
	CodeInvalid     = abi.CodeInvalid
	CodeNotFound    = abi.CodeNotFound
	CodeTooLarge    = abi.CodeTooLarge
	CodeUnavailable = abi.CodeUnavailable
	CodeInternal    = abi.CodeInternal
)

// Types of requests and results.
type (
	// A ToolResult is what a tool, a skill run or an MCP tool returned.
	// IsError marks a failure of the tool's own work.
	ToolResult = abi.ToolResult
	// A SkillInfo is one skill found by [SearchSkills].
	SkillInfo = abi.SkillInfo
	// A FetchRequest is an HTTP request for [Fetch].
	FetchRequest = abi.FetchRequest
	// A FetchResponse is the answer to a [FetchRequest].
	FetchResponse = abi.FetchResponse
)

// MaxPayload bounds every request and response, in bytes.
const MaxPayload = abi.MaxPayload

// mu serializes host calls: the host keeps one pending response per run.
var mu sync.Mutex

// call makes one host call with a raw request and decodes the envelope.
func call(fn string, req []byte) (json.RawMessage, error) {
	if len(req) > MaxPayload {
		return nil, abi.Errorf(abi.CodeTooLarge, "%s: the request is %d bytes, over the %d-byte limit", fn, len(req), MaxPayload)
	}
	mu.Lock()
	resp, err := hostCall(fn, req)
	mu.Unlock()
	if err != nil {
		return nil, err
	}
	return abi.DecodeResponse(resp)
}

// callJSON encodes req, makes the call and decodes the result into res
// (unless res is nil).
func callJSON(fn string, req, res any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return abi.Errorf(abi.CodeInvalid, "%s: encoding the request: %v", fn, err)
	}
	raw, err := call(fn, b)
	if err != nil || res == nil {
		return err
	}
	if err := abi.Decode(raw, res); err != nil {
		return abi.Errorf(abi.CodeInvalid, "%s: decoding the result: %v", fn, err)
	}
	return nil
}

// marshalInput turns an input value into JSON; a json.RawMessage or
// []byte is taken as JSON already, nil as {}.
func marshalInput(fn string, v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalid, "%s: encoding the input: %v", fn, err)
	}
	return b, nil
}

// Input returns the run's input, a JSON value ("null" when there is none).
func Input() ([]byte, error) {
	return call(abi.FuncInput, nil)
}

// Output writes b to the run's output (not stdout: the result the caller
// of the script receives). The host caps the total size.
func Output(b []byte) error {
	_, err := call(abi.FuncOutput, b)
	return err
}

// Log writes a line to the host's log at level debug, info, warn or
// error. It reports no error: logging must not fail a script.
func Log(level, msg string) {
	_ = callJSON(abi.FuncLog, abi.LogRequest{Level: level, Msg: msg}, nil)
}

// CallTool calls the host tool name with input (any value that encodes
// as JSON; json.RawMessage and []byte are sent as they are). It needs the
// tools grant for name.
func CallTool(name string, input any) (*ToolResult, error) {
	in, err := marshalInput(abi.FuncToolCall, input)
	if err != nil {
		return nil, err
	}
	var res ToolResult
	if err := callJSON(abi.FuncToolCall, abi.ToolCallRequest{Name: name, Input: in}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SearchSkills returns at most limit skills (0 means 10) that match query:
// level 1 of progressive disclosure.
func SearchSkills(query string, limit int) ([]SkillInfo, error) {
	var res abi.SearchResult
	if err := callJSON(abi.FuncSkillsSearch, abi.SearchRequest{Query: query, Limit: limit}, &res); err != nil {
		return nil, err
	}
	return res.Skills, nil
}

// ActivateSkill returns the instructions (SKILL.md body) of the skill name
// and the list of its files: level 2.
func ActivateSkill(name string) (body string, files []string, err error) {
	var res abi.ActivateResult
	if err := callJSON(abi.FuncSkillActivate, abi.ActivateRequest{Name: name}, &res); err != nil {
		return "", nil, err
	}
	return res.Body, res.Files, nil
}

// ReadResource reads a file of the script's own skill, path relative to
// the skill root ("references/guide.md"): level 3.
func ReadResource(path string) ([]byte, error) {
	var res abi.ReadResult
	if err := callJSON(abi.FuncSkillRead, abi.ReadRequest{Path: path}, &res); err != nil {
		return nil, err
	}
	return res.Bytes(), nil
}

// RunSkill runs script of skill with input. It needs the skills grant for
// skill, and runs nest a few levels deep at most.
func RunSkill(skill, script string, input any) (*ToolResult, error) {
	in, err := marshalInput(abi.FuncSkillRun, input)
	if err != nil {
		return nil, err
	}
	var res ToolResult
	if err := callJSON(abi.FuncSkillRun, abi.RunRequest{Skill: skill, Script: script, Input: in}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CallMCP calls tool on the MCP server server with args. It needs the mcp
// grant "server/tool" or "server/*".
func CallMCP(server, tool string, args any) (*ToolResult, error) {
	in, err := marshalInput(abi.FuncMCPCall, args)
	if err != nil {
		return nil, err
	}
	var res ToolResult
	if err := callJSON(abi.FuncMCPCall, abi.MCPRequest{Server: server, Tool: tool, Args: in}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Fetch makes an HTTP request through the host. It needs the net grant
// for the URL's host, checked again at every redirect.
func Fetch(req *FetchRequest) (*FetchResponse, error) {
	if req == nil {
		return nil, abi.Errorf(abi.CodeInvalid, "http_fetch: nil request")
	}
	var res FetchResponse
	if err := callJSON(abi.FuncHTTPFetch, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ExecRequest and ExecResult are the request and result of [Exec].
type (
	ExecRequest = abi.ExecRequest
	ExecResult  = abi.ExecResult
)

// Exec starts another interpreter run (python3, node) in this run's
// sandbox, with this run's mounts, grant and limits, and waits for it:
// what skillrun's shell does for `python3 x.py`. Streams the request does
// not inherit go through files of this run's /tmp (see [ExecRequest]).
func Exec(req *ExecRequest) (*ExecResult, error) {
	if req == nil {
		return nil, abi.Errorf(abi.CodeInvalid, "exec: nil request")
	}
	var res ExecResult
	if err := callJSON(abi.FuncExec, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
