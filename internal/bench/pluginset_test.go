package bench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
)

// TestParseADEPluginSets: a file in ADE-bench's format parses unchanged,
// every field where ADE-bench puts it.
func TestParseADEPluginSets(t *testing.T) {
	ps, err := LoadPluginSets("testdata/ade-plugin-sets.yaml")
	require.NoError(t, err)
	require.Len(t, ps.Sets, 3)
	base, vendor, mcp := ps.Sets[0], ps.Sets[1], ps.Sets[2]
	assert.Equal(t, "baseline", base.Name)
	assert.True(t, base.Default)
	assert.Nil(t, base.Agents, "no agents key: every agent")
	assert.Equal(t, []string{"Bash", "Edit", "Write", "Read", "Glob", "Grep"}, base.AllowedTools)
	assert.Equal(t, []string{"example-org/agent-skills"}, vendor.Skills)
	assert.False(t, vendor.Default)
	assert.Equal(t, "You can use the vendor skills.", vendor.PromptSuffix)
	assert.Equal(t, []string{"claude", "codex"}, mcp.Agents)
	assert.Equal(t, MCPServer{Command: "uvx", Args: []string{"vendor-mcp@latest"},
		Env: map[string]string{"DISABLE_SEMANTIC_LAYER": "true", "DISABLE_SQL": "true"}}, mcp.MCPServers["vendor"])
	assert.Equal(t, 21, mcp.Line)
}

func TestSelectPluginSets(t *testing.T) {
	ps, err := LoadPluginSets("testdata/ade-plugin-sets.yaml")
	require.NoError(t, err)
	got, err := ps.Select(nil, "claude")
	require.NoError(t, err)
	assert.Equal(t, []string{"baseline", "vendor-mcp"}, setNames(got), "no name: the default sets")
	got, err = ps.Select(nil, "general")
	require.NoError(t, err)
	assert.Equal(t, []string{"baseline"}, setNames(got), "a default set for other agents is left out")
	got, err = ps.Select([]string{"vendor-skills", "baseline", "vendor-skills"}, "general")
	require.NoError(t, err)
	assert.Equal(t, []string{"vendor-skills", "baseline"}, setNames(got), "in the order named, each once")

	_, err = ps.Select([]string{"nope"}, "general")
	require.ErrorContains(t, err, `unknown plugin set "nope"; available: baseline, vendor-skills, vendor-mcp`)
	_, err = ps.Select([]string{"vendor-mcp"}, "general")
	require.ErrorContains(t, err, `ade-plugin-sets.yaml:21: plugin set "vendor-mcp" is for agents claude, codex, not "general"`)
	only, err := ParsePluginSets([]byte("sets:\n  - name: a\n"), "f.yaml")
	require.NoError(t, err)
	_, err = only.Select(nil, "general")
	require.ErrorContains(t, err, "no default set")
}

// TestParsePluginSetsBadInput: each mistake is an error naming file:line.
func TestParsePluginSetsBadInput(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown key", "sets:\n  - name: a\n    skils: []\n", `f.yaml:3: unknown key "skils" in a set`},
		{"unknown top key", "sets: []\nsetz: []\n", `f.yaml:2: unknown key "setz" in the file`},
		{"duplicate name", "sets:\n  - name: a\n  - name: a\n", `f.yaml:3: duplicate set name "a" (first on line 2)`},
		{"wrong type default", "sets:\n  - name: a\n    default: yes please\n", "f.yaml:3: default must be true or false"},
		{"wrong type skills", "sets:\n  - name: a\n    skills: one\n", "f.yaml:3: skills must be a list"},
		{"list of maps", "sets:\n  - name: a\n    allowed_tools: [{a: 1}]\n", "f.yaml:3: each of allowed_tools must be a string"},
		{"tab", "sets:\n\t- name: a\n", "f.yaml:2: a tab in the indentation"},
		{"alias", "x: &a [1]\nsets: *a\n", "anchors and aliases"},
		{"no name", "sets:\n  - description: x\n", "f.yaml:2: a set needs a name"},
		{"name with slash", "sets:\n  - name: a/b\n", "cannot name a results folder"},
		{"server without command", "sets:\n  - name: a\n    mcp_servers:\n      s:\n        args: [x]\n", "MCP server s needs a command"},
		{"server bad name", "sets:\n  - name: a\n    mcp_servers:\n      \"s s\":\n        command: x\n", `MCP server name "s s"`},
		{"server unknown key", "sets:\n  - name: a\n    mcp_servers:\n      s:\n        command: x\n        cwd: /\n", `unknown key "cwd" in MCP server s`},
		{"no sets", "other: 1\n", "unknown key"},
		{"empty", "", "empty"},
		{"sets not a list", "sets: {}\n", "sets must be a list"},
		{"not YAML", "sets: [\n", "f.yaml"},
		{"too big", "sets: []\n" + strings.Repeat("#", maxSetsFile), "over the"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePluginSets([]byte(c.src), "f.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// Every problem is reported, not just the first.
	_, err := ParsePluginSets([]byte("sets:\n  - name: a\n    x: 1\n  - name: b\n    y: 2\n"), "f.yaml")
	require.ErrorContains(t, err, "f.yaml:3")
	require.ErrorContains(t, err, "f.yaml:5")
}

// TestToolFilter: Claude Code's names map to skillrun's tools; globs
// match skillrun's names; Skill allows every skill tool.
func TestToolFilter(t *testing.T) {
	allow, notes := ToolFilter([]string{"Bash", "Read", "Edit", "Glob", "Grep", "Skill", "mcp__dbt__*", "WebFetch"})
	require.NotNil(t, allow)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "WebFetch")
	yes := []host.ToolDef{{Name: "shell"}, {Name: "workspace_read"}, {Name: "workspace_edit"}, {Name: "workspace_glob"},
		{Name: "workspace_search"}, {Name: "skill_activate"}, {Name: "skill_run"}, {Name: "mcp__dbt__list_models"},
		{Name: "csv-stats__stats", Source: host.SourceSkill}}
	no := []host.ToolDef{{Name: "workspace_write"}, {Name: "mcp__other__x"}, {Name: "mcp__dbtx__y"}, {Name: "csv-stats__stats"}}
	for _, d := range yes {
		assert.True(t, allow(d), d.Name)
	}
	for _, d := range no {
		assert.False(t, allow(d), d.Name)
	}
	none, _ := ToolFilter([]string{"Bash"})
	assert.False(t, none(host.ToolDef{Name: "skill_activate"}), "no Skill: no skill activation")
	all, _ := ToolFilter(nil)
	assert.Nil(t, all, "an empty list allows every tool")
}

func setNames(sets []*PluginSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Name)
	}
	return out
}
