package toolset_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

var sharedRunner = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Sandbox: &sandbox.Options{NoCache: true}})
})

func names(defs []host.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

func skillNames(list []*skills.Skill) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// TestSameTools: a session's tools and a server's are the same set for
// the same folder: every kind of skill is in the catalog, and every
// script, Markdown skill and YAML action is a tool of both; they differ
// only where they must (a session has the core workspace tools, a
// server leaves them to the client).
func TestSameTools(t *testing.T) {
	rt, err := sharedRunner()
	require.NoError(t, err)
	dir := testkit.MixedFolder(t, "../examples")
	cat := toolset.Discover([]skills.Root{{Dir: dir, Origin: skills.OriginPath}}, nil)
	assert.Equal(t, []string{"py-csv-report", "text-report"}, skillNames(cat.Skills()), "an Agent Skill and a YAML skill module")

	ws := t.TempDir()
	r := &capabilities.Resolver{All: true}
	set, err := toolset.New(context.Background(), cat, &toolset.Config{Runner: rt, Workspace: ws,
		WorkspaceGrant: r.Workspace(), Grant: toolset.Resolve(r, nil)})
	require.NoError(t, err)
	defer set.Close()

	reg := host.NewRegistry()
	for _, tl := range set.Tools.List() {
		if !host.IsWorkspaceTool(tl.Name) {
			tool, _ := set.Tools.Lookup(tl.Name)
			require.NoError(t, reg.Add(tool))
		}
	}
	for _, tl := range set.ScriptTools(&agent.Gate{Skills: set.Skills(), Grant: set.Grant}) {
		require.NoError(t, reg.Add(tl))
	}
	session := names(reg.List())
	served := names(set.Served().List())
	assert.Equal(t, served, session)
	for _, want := range []string{"py-csv-report__report", "text-tools__count_words", "shell"} {
		assert.Contains(t, served, want)
	}
	var markdown int
	for _, d := range set.Served().List() {
		if d.Source == host.SourceMarkdown {
			markdown++
		}
	}
	assert.Positive(t, markdown, "the Markdown skills are tools")
	for _, d := range set.Tools.List() {
		if host.IsWorkspaceTool(d.Name) {
			assert.NotContains(t, served, d.Name, "a server leaves the workspace tools to its client")
		}
	}
}
