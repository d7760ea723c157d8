package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/abi"
)

type fakeTools struct{}

func (fakeTools) Call(_ context.Context, name string, input json.RawMessage) (*ToolResult, error) {
	if name == "broken" {
		return nil, errors.New("registry exploded")
	}
	return &ToolResult{Content: name + " got " + string(input)}, nil
}

type fakeSkills struct{}

func (fakeSkills) Search(query string, limit int) ([]SkillInfo, error) {
	return []SkillInfo{{Name: "pdf", Description: "PDFs " + query}, {Name: "csv", Description: "CSVs"}}[:min(limit, 2)], nil
}

func (fakeSkills) Activate(name string) (string, []string, error) {
	if name != "pdf" {
		return "", nil, fs.ErrNotExist
	}
	return "# PDF", []string{"SKILL.md"}, nil
}

func (fakeSkills) ReadResource(skill, p string) ([]byte, error) {
	if p == "references/a.md" {
		return []byte(skill + ":" + p), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func (fakeSkills) RunScript(_ context.Context, skill, script string, input json.RawMessage, depth int) (*ToolResult, error) {
	return &ToolResult{Content: skill + ":" + script + " depth " + string(rune('0'+depth)) + " " + string(input)}, nil
}

type fakeMCP struct{}

func (fakeMCP) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*ToolResult, error) {
	return &ToolResult{Content: server + "/" + tool + string(args), IsError: tool == "fails"}, nil
}

type recorder struct {
	mu     sync.Mutex
	events []audit.Event
}

func (r *recorder) Audit(_ context.Context, e audit.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func testEnv(out *bytes.Buffer, rec *recorder) *Env {
	return &Env{
		Skill: "me", Script: "main",
		Granted: capabilities.Set{Tools: []string{"echo", "broken"}, MCP: []string{"gh/*"}, Skills: []string{"pdf"}},
		Input:   []byte(`{"n":1}`),
		Output:  out, OutputLimit: 10,
		Services: Services{Auditor: rec, Tools: fakeTools{}, Skills: fakeSkills{}, MCP: fakeMCP{}, Fetch: func(_ context.Context, req json.RawMessage) (json.RawMessage, error) {
			var r abi.FetchRequest
			_ = json.Unmarshal(req, &r)
			if strings.Contains(r.URL, "evil") {
				return nil, &capabilities.DeniedError{Kind: "net", Value: "evil.example:443"}
			}
			return json.RawMessage(`{"status":200,"body":"aGk="}`), nil
		}},
	}
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		fn, req string
		want    string // result JSON, or "error:<code>: <message substring>"
	}{
		{"input", "", `{"n":1}`},
		{"output", "hello", `{"written":5}`},
		{"output", "0123456789", "error:too_large: output limit of 10 bytes"},
		{"log", `{"level":"warn","msg":"hi"}`, `null`},
		{"log", `{"level":"loud","msg":"hi"}`, "error:invalid: level"},
		{"log", `garbage`, "error:invalid: log: malformed request"},
		{"tool_call", `{"name":"echo","input":{"a":1}}`, `{"content":"echo got {\"a\":1}"}`},
		{"tool_call", `{"name":"echo"}`, `{"content":"echo got {}"}`},
		{"tool_call", `{"name":"rm_rf"}`, "error:denied: me:main: tools rm_rf denied: not granted (add --allow-tools=rm_rf)"},
		{"tool_call", `{"name":"broken"}`, "error:internal: tool_call: registry exploded"},
		{"tool_call", `{}`, "error:invalid: no tool name"},
		{"skills_search", `{"query":"x","limit":1}`, `{"skills":[{"name":"pdf","description":"PDFs x"}]}`},
		{"skills_search", `{"query":"x","limit":-1}`, "error:invalid: negative limit"},
		{"skill_activate", `{"name":"pdf"}`, `{"body":"# PDF","files":["SKILL.md"]}`},
		{"skill_activate", `{"name":"nope"}`, "error:not_found: skill_activate"},
		{"skill_read", `{"path":"references/a.md"}`, `{"text":"me:references/a.md"}`},
		{"skill_read", `{"path":"missing"}`, "error:not_found: skill_read"},
		{"skill_read", `{"path":"../other/SKILL.md"}`, "error:denied: read skill/../other/SKILL.md denied"},
		{"skill_read", `{"path":"/etc/passwd"}`, "error:denied"},
		{"skill_read", `{"path":"a/./b"}`, "error:denied"},
		{"skill_run", `{"skill":"pdf","script":"x","input":[1]}`, `{"content":"pdf:x depth 1 [1]"}`},
		{"skill_run", `{"skill":"evil","script":"x"}`, "error:denied: me:main: skills evil denied: not granted"},
		{"skill_run", `{"skill":"pdf"}`, "error:invalid"},
		{"mcp_call", `{"server":"gh","tool":"issues","args":{"q":1}}`, `{"content":"gh/issues{\"q\":1}"}`},
		{"mcp_call", `{"server":"gh","tool":"fails"}`, `{"content":"gh/fails{}","is_error":true}`},
		{"mcp_call", `{"server":"slack","tool":"post"}`, "error:denied: me:main: mcp slack/post denied"},
		{"mcp_call", `{"server":"gh/x","tool":"post"}`, "error:denied"},
		{"http_fetch", `{"url":"https://api.example.com/"}`, `{"status":200,"body":"aGk="}`},
		{"http_fetch", `{"url":"https://evil.example/"}`, "error:denied: me:main: net evil.example:443 denied"},
		{"http_fetch", `{}`, "error:invalid: no url"},
		{"nope", ``, "error:not_found: no host function"},
		{"log", `{"msg":"` + strings.Repeat("x", abi.MaxPayload) + `"}`, "error:too_large"},
		{"log", strings.Repeat("[", 100) + strings.Repeat("]", 100), "error:invalid: log: malformed request: payload nested too deeply"},
	}
	var out bytes.Buffer
	rec := &recorder{}
	e := testEnv(&out, rec)
	for _, tt := range tests {
		t.Run(tt.fn+"/"+tt.req[:min(len(tt.req), 30)], func(t *testing.T) {
			got := dispatch(e, tt.fn, tt.req)
			code, msg, isErr := strings.Cut(tt.want, ": ")
			if !strings.HasPrefix(tt.want, "error:") && got != tt.want ||
				strings.HasPrefix(tt.want, "error:") && (!strings.HasPrefix(got, code) || isErr && !strings.Contains(got, msg)) {
				t.Errorf("Dispatch(%s, %.40s) = %s, want %s", tt.fn, tt.req, got, tt.want)
			}
		})
	}
	if out.String() != "hello" {
		t.Errorf("output %q, want hello", out.String())
	}
	var denials int
	for _, ev := range rec.events {
		if ev.Decision == audit.Deny {
			denials++
			if ev.Skill != "me" || ev.Script != "main" {
				t.Errorf("event %+v does not name the script", ev)
			}
		}
	}
	if denials < 8 {
		t.Errorf("%d denials audited, want at least 8: %+v", denials, rec.events)
	}
}

// dispatch calls e.Dispatch and renders the outcome as the table does.
func dispatch(e *Env, fn, req string) string {
	res, err := abi.DecodeResponse(e.Dispatch(context.Background(), fn, []byte(req)))
	if err != nil {
		ae, ok := errors.AsType[*abi.Error](err)
		if !ok {
			return "bad error " + err.Error()
		}
		return "error:" + ae.Code + ": " + ae.Message
	}
	return string(res)
}

func TestDispatchNilProviders(t *testing.T) {
	e := &Env{Granted: capabilities.Set{Tools: []string{"t"}, MCP: []string{"s/t"}, Skills: []string{"k"}}, Skill: "me"}
	for fn, req := range map[string]string{
		"tool_call": `{"name":"t"}`, "skills_search": `{}`, "skill_activate": `{"name":"k"}`,
		"skill_read": `{"path":"a"}`, "skill_run": `{"skill":"k","script":"s"}`,
		"mcp_call": `{"server":"s","tool":"t"}`, "http_fetch": `{"url":"http://x/"}`,
	} {
		if got := dispatch(e, fn, req); !strings.HasPrefix(got, "error:unavailable: "+fn+": this host provides no") {
			t.Errorf("%s: %s", fn, got)
		}
	}
	if got := dispatch(e, "input", ""); got != "null" {
		t.Errorf("input: %s", got)
	}
	if got := dispatch(e, "output", "x"); got != `{"written":1}` {
		t.Errorf("output: %s", got)
	}
	e.Input = []byte("not json")
	if got := dispatch(e, "input", ""); got != `"not json"` {
		t.Errorf("input: %s", got)
	}
}

func TestDispatchDepth(t *testing.T) {
	e := testEnv(&bytes.Buffer{}, &recorder{})
	e.Depth = DefaultMaxDepth
	if got := dispatch(e, "skill_run", `{"skill":"pdf","script":"x"}`); !strings.Contains(got, "error:denied: me:main: skills pdf denied: skill runs nest at most 4 deep") {
		t.Errorf("got %s", got)
	}
	e.Depth, e.MaxDepth = 1, 2
	if got := dispatch(e, "skill_run", `{"skill":"pdf","script":"x"}`); got != `{"content":"pdf:x depth 2 {}"}` {
		t.Errorf("got %s", got)
	}
}

// FuzzDispatch: no request makes Dispatch panic or answer with a
// malformed envelope.
func FuzzDispatch(f *testing.F) {
	for _, fn := range abi.Funcs {
		f.Add(fn, []byte(`{"name":"echo","path":"references/a.md","skill":"pdf","script":"s","server":"gh","tool":"x","url":"http://a/"}`))
	}
	f.Add("log", []byte(`{"level":1}`))
	f.Fuzz(func(t *testing.T, fn string, req []byte) {
		e := testEnv(&bytes.Buffer{}, &recorder{})
		b := e.Dispatch(context.Background(), fn, req)
		if _, err := abi.DecodeResponse(b); err != nil {
			if ae, ok := errors.AsType[*abi.Error](err); !ok || ae.Code == abi.CodeInvalid && strings.HasPrefix(ae.Message, "malformed response") {
				t.Fatalf("Dispatch(%q, %q) = %s", fn, req, b)
			}
		}
	})
}

// TestDispatchUnknownTool: a granted name the registry does not have is
// not_found, not an internal error.
func TestDispatchUnknownTool(t *testing.T) {
	granted := capabilities.Set{Tools: []string{"ghost"}}
	e := &Env{Skill: "s", Script: "x", Granted: granted, Services: Services{Tools: NewRegistry()}}
	_, err := abi.DecodeResponse(e.Dispatch(context.Background(), abi.FuncToolCall, []byte(`{"name":"ghost"}`)))
	var ae *abi.Error
	if !errors.As(err, &ae) || ae.Code != abi.CodeNotFound {
		t.Fatalf("got %v, want code %s", err, abi.CodeNotFound)
	}
}
