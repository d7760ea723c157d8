package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/skills"
)

// fakeTool is a Tool that returns a fixed result, or echoes its input.
type fakeTool struct {
	def ToolDef
	res *ToolResult
	err error
}

func (f *fakeTool) Definition() ToolDef { return f.def }

func (f *fakeTool) Call(_ context.Context, input json.RawMessage) (*ToolResult, error) {
	if f.res != nil || f.err != nil {
		return f.res, f.err
	}
	return &ToolResult{Content: string(input)}, nil
}

func tool(name, source, plugin string) *fakeTool {
	return &fakeTool{def: ToolDef{Name: name, Source: source, Plugin: plugin, Description: "test tool " + name}}
}

func TestRegistryAdd(t *testing.T) {
	tests := []struct {
		name    string
		tools   []*fakeTool // all but the last must be accepted
		wantErr string      // for the last; "" means accepted
	}{
		{"core", []*fakeTool{tool("workspace_read", SourceCore, "")}, ""},
		{"skill", []*fakeTool{tool(SkillToolName("pdf", "extract"), SourceSkill, "pdf")}, ""},
		{"mcp", []*fakeTool{tool(MCPToolName("github", "create_issue"), SourceMCP, "")}, ""},
		{"other source namespaced", []*fakeTool{tool("plugin__x", "custom", "")}, ""},
		{"128 bytes", []*fakeTool{tool("a__"+strings.Repeat("b", 125), SourceSkill, "")}, ""},
		{"129 bytes", []*fakeTool{tool("a__"+strings.Repeat("b", 126), SourceSkill, "")}, "1 to 128"},
		{"empty name", []*fakeTool{tool("", SourceCore, "")}, "1 to 128"},
		{"space", []*fakeTool{tool("a b", SourceCore, "")}, "1 to 128"},
		{"dot", []*fakeTool{tool("a.b", SourceCore, "")}, "1 to 128"},
		{"non-ASCII", []*fakeTool{tool("données__x", SourceSkill, "")}, "1 to 128"},
		{"no source", []*fakeTool{tool("x", "", "")}, "no source"},
		{"duplicate", []*fakeTool{tool("pdf__x", SourceSkill, "pdf"), tool("pdf__x", SourceSkill, "pdf")}, "already registered"},
		{"skill takes a core name", []*fakeTool{tool("workspace_read", SourceSkill, "")}, "only core tools have bare names"},
		{"mcp takes a core name", []*fakeTool{tool("workspace_read", SourceMCP, "")}, "only core tools have bare names"},
		{"core takes a namespaced name", []*fakeTool{tool("a__b", SourceCore, "")}, `hold no "__"`},
		{"skill in another skill's namespace", []*fakeTool{tool("pdf__x", SourceSkill, "csv")}, `tool of skill "csv" is named "csv__SCRIPT"`},
		{"skill in the mcp namespace", []*fakeTool{tool("mcp__github__x", SourceSkill, "")}, "reserved for MCP"},
		{"mcp without prefix", []*fakeTool{tool("github__x", SourceMCP, "")}, `start with "mcp__"`},
		{"sanitized collision", []*fakeTool{
			tool(SkillToolName("données", "x"), SourceSkill, "données"),
			tool(SkillToolName("donn_es", "x"), SourceSkill, "donn_es"),
		}, "already registered by skill données"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			for i, tl := range tt.tools {
				err := r.Add(tl)
				if i < len(tt.tools)-1 {
					if err != nil {
						t.Fatalf("Add(%q): %v", tl.def.Name, err)
					}
					continue
				}
				switch {
				case tt.wantErr == "" && err != nil:
					t.Errorf("Add(%q): %v", tl.def.Name, err)
				case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
					t.Errorf("Add(%q) error = %v, want one containing %q", tl.def.Name, err, tt.wantErr)
				}
			}
		})
	}
}

func TestRegistryAddDuplicateIs(t *testing.T) {
	r := NewRegistry()
	if err := r.Add(tool("x", SourceCore, "")); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tool("x", SourceCore, "")); !errors.Is(err, errToolExists) {
		t.Errorf("second Add error = %v, want errToolExists", err)
	}
	if err := r.Add(nil); err == nil {
		t.Error("Add(nil) succeeded")
	}
}

func TestRegistryAddSchemas(t *testing.T) {
	tests := []struct {
		name, in, out, wantErr string
	}{
		{"valid", `{"type":"object"}`, `{"type":"object"}`, ""},
		{"null", `null`, ``, ""},
		{"not JSON", `{`, ``, "input schema is not valid JSON"},
		{"bad keyword value", `{"type":"objekt"}`, ``, "invalid input schema"},
		{"bad output", ``, `{"minLength":"x"}`, "invalid output schema"},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, ``, "invalid input schema"},
		{"http ref", `{"$ref":"http://127.0.0.1:1/s.json"}`, ``, "invalid input schema"},
		{"too big", `{"description":"` + strings.Repeat("x", MaxSchemaSize) + `"}`, ``, "over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tool("t", SourceCore, "")
			tl.def.InputSchema = json.RawMessage(tt.in)
			tl.def.OutputSchema = json.RawMessage(tt.out)
			err := NewRegistry().Add(tl)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Add: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Add error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRegistryListLookupRemove(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"c", "a", "b"} {
		if err := r.Add(tool(n, SourceCore, "")); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, d := range r.List() {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names, "List")
	if tl, ok := r.Lookup("b"); !ok || tl.Definition().Name != "b" {
		t.Errorf("Lookup(b) = %v, %v", tl, ok)
	}
	r.Remove("b")
	r.Remove("nope")
	if _, ok := r.Lookup("b"); ok {
		t.Error("Lookup(b) after Remove found it")
	}
	if _, err := r.Call(context.Background(), "b", nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Call(b) after Remove error = %v, want ErrUnknownTool", err)
	}
	if err := r.Add(tool("b", SourceCore, "")); err != nil {
		t.Errorf("Add after Remove: %v", err)
	}
}

const pointSchema = `{
  "type": "object",
  "properties": {
    "x": {"type": "integer", "minimum": 0},
    "name": {"type": "string", "maxLength": 3}
  },
  "required": ["x"],
  "additionalProperties": false
}`

func TestRegistryCall(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name    string
		tool    *fakeTool
		ctx     context.Context
		input   string
		want    *ToolResult // nil: an error is expected
		wantErr error
		// wantIn lists substrings of an IsError result's content.
		wantIn []string
	}{
		{name: "unknown", tool: nil, input: `{}`, wantErr: ErrUnknownTool},
		{name: "echo", tool: tool("t", SourceCore, ""), input: `{"a":1}`, want: &ToolResult{Content: `{"a":1}`}},
		{name: "empty input is {}", tool: tool("t", SourceCore, ""), input: ``, want: &ToolResult{Content: `{}`}},
		{name: "no schema, not an object", tool: tool("t", SourceCore, ""), input: `[1]`, wantIn: []string{"must be a JSON object"}},
		{name: "no schema, not JSON", tool: tool("t", SourceCore, ""), input: `{`, wantIn: []string{"not valid JSON"}},
		{name: "too big", tool: tool("t", SourceCore, ""), input: `"` + strings.Repeat("x", maxInputSize) + `"`, wantIn: []string{"over the 1048576-byte limit"}},
		{name: "valid input", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{"x":1}`, want: &ToolResult{Content: `{"x":1}`}},
		{name: "missing field", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{}`, wantIn: []string{"tool t: invalid input", "missing property 'x'"}},
		{name: "wrong type", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{"x":"1"}`, wantIn: []string{"at /x:", "want integer"}},
		{name: "two problems", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{"x":-1,"name":"long"}`, wantIn: []string{"at /x:", "at /name:"}},
		{name: "extra field", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{"x":1,"y":2}`, wantIn: []string{"additional properties 'y'"}},
		{name: "bad JSON with schema", tool: withSchema(tool("t", SourceCore, ""), pointSchema, ""), input: `{"x":`, wantIn: []string{"not valid JSON"}},
		{name: "required agent, none", tool: withAgent(tool("t", SourceCore, ""), "reviewer"), input: `{}`, wantIn: []string{`agent "reviewer"`, `agent "(none)"`}},
		{name: "required agent, other", tool: withAgent(tool("t", SourceCore, ""), "reviewer"), ctx: WithCaller(ctx, Caller{Agent: "coder"}), input: `{}`, wantIn: []string{`agent "reviewer"`, `agent "coder"`}},
		{name: "required agent, right", tool: withAgent(tool("t", SourceCore, ""), "reviewer"), ctx: WithCaller(ctx, Caller{Agent: "reviewer"}), input: `{}`, want: &ToolResult{Content: `{}`}},
		{name: "tool error", tool: &fakeTool{def: ToolDef{Name: "t", Source: SourceCore}, err: boom}, input: `{}`, wantErr: boom},
		{name: "no result", tool: &fakeTool{def: ToolDef{Name: "t", Source: SourceCore}, res: nil, err: nil}, input: `{}`, want: &ToolResult{Content: `{}`}},
		{name: "good output", tool: withResult(withSchema(tool("t", SourceCore, ""), "", pointSchema), `{"x":2}`, false), input: `{}`, want: &ToolResult{Content: "ok", Structured: json.RawMessage(`{"x":2}`)}},
		{name: "bad output", tool: withResult(withSchema(tool("t", SourceCore, ""), "", pointSchema), `{"x":"2"}`, false), input: `{}`, wantIn: []string{"tool t returned output that does not match its schema: at /x:"}},
		{name: "bad output of an error is kept", tool: withResult(withSchema(tool("t", SourceCore, ""), "", pointSchema), `{"x":"2"}`, true), input: `{}`, want: &ToolResult{Content: "ok", Structured: json.RawMessage(`{"x":"2"}`), IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			name := "t"
			if tt.tool != nil {
				if err := r.Add(tt.tool); err != nil {
					t.Fatal(err)
				}
			}
			c := tt.ctx
			if c == nil {
				c = ctx
			}
			got, err := r.Call(c, name, json.RawMessage(tt.input))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Call error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if tt.wantIn != nil {
				if !got.IsError {
					t.Fatalf("Call = %+v, want an IsError result", got)
				}
				for _, s := range tt.wantIn {
					if !strings.Contains(got.Content, s) {
						t.Errorf("content %q does not contain %q", got.Content, s)
					}
				}
				return
			}
			assert.Equal(t, tt.want, got, "Call")
		})
	}
}

func TestRegistryCallNilResult(t *testing.T) {
	r := NewRegistry()
	nilTool := &nilResultTool{ToolDef{Name: "t", Source: SourceCore}}
	if err := r.Add(nilTool); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Call(context.Background(), "t", nil); err == nil {
		t.Error("Call of a tool returning (nil, nil) succeeded")
	}
}

type nilResultTool struct{ def ToolDef }

func (n *nilResultTool) Definition() ToolDef { return n.def }
func (n *nilResultTool) Call(context.Context, json.RawMessage) (*ToolResult, error) {
	return nil, nil
}

func withSchema(f *fakeTool, in, out string) *fakeTool {
	if in != "" {
		f.def.InputSchema = json.RawMessage(in)
	}
	if out != "" {
		f.def.OutputSchema = json.RawMessage(out)
	}
	return f
}

func withAgent(f *fakeTool, agent string) *fakeTool {
	f.def.RequiredAgent = agent
	return f
}

func withResult(f *fakeTool, structured string, isErr bool) *fakeTool {
	f.res = &ToolResult{Content: "ok", Structured: json.RawMessage(structured), IsError: isErr}
	return f
}

func TestSkillToolName(t *testing.T) {
	tests := []struct{ skill, script, want string }{
		{"pdf-extract", "run", "pdf-extract__run"},
		{"données", "stats", "donn_es__stats"},
		{"a.b c", "x/y", "a_b_c__x_y"},
	}
	for _, tt := range tests {
		if got := SkillToolName(tt.skill, tt.script); got != tt.want {
			t.Errorf("SkillToolName(%q, %q) = %q, want %q", tt.skill, tt.script, got, tt.want)
		}
	}
	if got := MCPToolName("github", "create_issue"); got != "mcp__github__create_issue" {
		t.Errorf("MCPToolName = %q", got)
	}
}

// TestRegistryHammer adds, removes, calls and searches one registry from
// many goroutines at once; run it with -race.
func TestRegistryHammer(t *testing.T) {
	r := NewRegistry()
	stable := withSchema(tool("stable", SourceCore, ""), pointSchema, "")
	if err := r.Add(stable); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				name := fmt.Sprintf("s%d__tool%d", g, i%5)
				switch i % 4 {
				case 0:
					tl := tool(name, SourceSkill, "")
					tl.def.Description = "hammer test pdf"
					_ = r.Add(tl) // may exist already
				case 1:
					if _, err := r.Call(ctx, name, nil); err != nil && !errors.Is(err, ErrUnknownTool) {
						t.Errorf("Call(%s): %v", name, err)
					}
				case 2:
					ms, err := r.Search("hammer pdf", &skills.SearchOptions{Limit: -1})
					if err != nil {
						t.Errorf("Search: %v", err)
					}
					for _, m := range ms {
						if m.Definition.Name == "" {
							t.Errorf("empty match %+v", m)
						}
					}
				case 3:
					r.Remove(name)
				}
				res, err := r.Call(ctx, "stable", json.RawMessage(`{"x":1}`))
				if err != nil || res.IsError {
					t.Errorf("Call(stable) = %+v, %v", res, err)
				}
				_ = r.List()
			}
		})
	}
	wg.Wait()
}

// TestRegistrySharedSchema: tools (in two registries) with the same schema
// share one compiled copy, and each still names itself when input fails.
func TestRegistrySharedSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	r1, r2 := NewRegistry(), NewRegistry()
	a, b := tool("alpha", SourceCore, ""), tool("beta", SourceCore, "")
	a.def.InputSchema, b.def.InputSchema = schema, schema
	for _, add := range []error{r1.Add(a), r2.Add(b)} {
		if add != nil {
			t.Fatal(add)
		}
	}
	if r1.tools["alpha"].in == nil || r1.tools["alpha"].in != r2.tools["beta"].in {
		t.Error("the same schema was compiled twice")
	}
	for _, c := range []struct {
		r    *Registry
		name string
	}{{r1, "alpha"}, {r2, "beta"}} {
		res, err := c.r.Call(context.Background(), c.name, json.RawMessage(`{"n":"x"}`))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "tool "+c.name+": invalid input: at /n:") {
			t.Errorf("%s with a bad input: %+v %v", c.name, res, err)
		}
		res, err = c.r.Call(context.Background(), c.name, json.RawMessage(`{"n":1}`))
		if err != nil || res.IsError {
			t.Errorf("%s with a good input: %+v %v", c.name, res, err)
		}
	}
}
