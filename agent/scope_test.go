package agent

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/host"
)

// registry is the tools a session might have: core tools, two plugins'
// skill scripts and an MCP server's tools.
var registry = []host.ToolDef{
	{Name: "workspace_read", Source: "core"},
	{Name: "workspace_write", Source: "core"},
	{Name: "shell", Source: "core"},
	{Name: "pdf__extract", Source: "skill", Plugin: "pdf"},
	{Name: "pdf__fill", Source: "skill", Plugin: "pdf", RequiredAgent: "pdf:filler"},
	{Name: "review__lint", Source: "skill", Plugin: "review"},
	{Name: "mcp__github__search", Source: "mcp"},
}

func names(tools []host.ToolDef) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func TestScope(t *testing.T) {
	tests := []struct {
		name   string
		src    Source
		plugin string
		tools  string // the frontmatter tools line, "" for none
		want   []string
	}{
		{
			name: "explicit list gives exactly those, in registry order",
			src:  SourceUser, tools: "tools: [mcp__github__search, workspace_read]",
			want: []string{"workspace_read", "mcp__github__search"},
		},
		{
			name: "explicit list on a plugin agent reaches beyond its plugin",
			src:  SourcePlugin, plugin: "pdf", tools: "tools: [review__lint]",
			want: []string{"review__lint"},
		},
		{
			name: "explicit empty list gives no tools",
			src:  SourceUser, tools: "tools: []",
			want: []string{},
		},
		{
			name: "plugin agent default: core and its own plugin",
			src:  SourcePlugin, plugin: "pdf",
			want: []string{"workspace_read", "workspace_write", "shell", "pdf__extract", "pdf__fill"},
		},
		{
			name: "other plugin's agent default",
			src:  SourcePlugin, plugin: "review",
			want: []string{"workspace_read", "workspace_write", "shell", "review__lint"},
		},
		{
			name: "plugin without tools of its own gets core only",
			src:  SourcePlugin, plugin: "empty",
			want: []string{"workspace_read", "workspace_write", "shell"},
		},
		{
			name: "user agent default: all",
			src:  SourceUser,
			want: names(registry),
		},
		{
			name: "builtin agent default: all",
			src:  SourceBuiltin,
			want: names(registry),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDefinition([]byte("---\nname: a\n"+tt.tools+"\n---\n"), "a.md", tt.src, tt.plugin)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Scope(registry)
			if err != nil {
				t.Fatal(err)
			}
			assert.Equal(t, tt.want, names(got))
		})
	}
}

func TestScopeDoesNotAlias(t *testing.T) {
	d := &Definition{Name: "a", Source: SourceUser}
	got, err := d.Scope(registry)
	if err != nil {
		t.Fatal(err)
	}
	got[0].Name = "changed"
	if registry[0].Name != "workspace_read" {
		t.Error("Scope returned the caller's slice")
	}
}

func TestScopeUnknownTools(t *testing.T) {
	d, err := ParseDefinition([]byte("---\nname: reviewer\ntools: [workspace_read, nope, pdf__extract, also_nope]\n---\n"),
		"pack/reviewer.md", SourcePlugin, "pack")
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Scope(registry)
	if got != nil {
		t.Errorf("Scope returned tools with an error: %v", names(got))
	}
	e, ok := errors.AsType[*UnknownToolsError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want *UnknownToolsError", err, err)
	}
	assert.Equal(t, []string{"nope", "also_nope"}, e.Names, "Names")
	const want = `pack/reviewer.md: agent "pack:reviewer" lists unknown tools: nope, also_nope`
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}

	one := &UnknownToolsError{Agent: "a", Names: []string{"x"}}
	if got, want := one.Error(), `agent "a" lists unknown tool: x`; got != want {
		t.Errorf("err = %q, want %q", got, want)
	}
}

func TestCheckRequiredAgent(t *testing.T) {
	fill := host.ToolDef{Name: "pdf__fill", Source: "skill", Plugin: "pdf", RequiredAgent: "pdf:filler"}
	userOnly := host.ToolDef{Name: "pdf__fill", Source: "skill", Plugin: "pdf", RequiredAgent: "filler"}
	core := host.ToolDef{Name: "shell", Source: "core", RequiredAgent: "admin"}
	tests := []struct {
		name  string
		tool  host.ToolDef
		agent string
		want  string // "" for allowed
	}{
		{"no requirement", host.ToolDef{Name: "workspace_read", Source: "core"}, "anyone", ""},
		{"no requirement, no agent", host.ToolDef{Name: "workspace_read", Source: "core"}, "", ""},
		{"required agent", fill, "pdf:filler", ""},
		{"a user agent of that bare name", fill, "filler", `tool "pdf__fill" requires agent "pdf:filler"; called by agent "filler"`},
		{"user agent required", userOnly, "filler", ""},
		{"plugin agent for a user agent", userOnly, "pdf:filler", `tool "pdf__fill" requires agent "filler"; called by agent "pdf:filler"`},
		{"core tool, required agent", core, "admin", ""},
		{"other agent", fill, "general", `tool "pdf__fill" requires agent "pdf:filler"; called by agent "general"`},
		{"another plugin's agent of that name", fill, "forms:filler", `tool "pdf__fill" requires agent "pdf:filler"; called by agent "forms:filler"`},
		{"no agent", fill, "", `tool "pdf__fill" requires agent "pdf:filler"; called with no agent`},
		{"core tool, other agent", core, "general", `tool "shell" requires agent "admin"; called by agent "general"`},
		{"core tool, qualified lookalike", core, ":admin", `tool "shell" requires agent "admin"; called by agent ":admin"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckRequiredAgent(tt.tool, tt.agent)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			e, ok := errors.AsType[*RequiredAgentError](err)
			if !ok {
				t.Fatalf("err = %v (%T), want *RequiredAgentError", err, err)
			}
			if e.Tool != tt.tool.Name || e.Required != tt.tool.RequiredAgent || e.Agent != tt.agent {
				t.Errorf("err = %+v", e)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q, want %q", err, tt.want)
			}
		})
	}
}
