package toolset_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// TestAchillesFolders: a .AchillesSkills folder in the folder layout is
// served beside the flat files: each skill folder's descriptor is the
// tool skill_<folder>, a SKILL.md folder is an Agent Skill of the
// catalog (found once, whether the root holds the folder or is it), and
// an oskill without steps runs a session over the skills it allows,
// whose calls reach the workspace.
func TestAchillesFolders(t *testing.T) {
	rt, err := sharedRunner()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../internal/mdskill/testdata/folders")))
	md := filepath.Join(dir, ".AchillesSkills")
	plan := `[[turn]]
[[turn.call]]
tool = "skill_notes"
input = {operation = "insert", values = {text = "ACME: export broken"}}

[[turn]]
expect = ['{"id":1}']
text = "Filed as a note; urgency high."
`
	require.NoError(t, os.WriteFile(filepath.Join(md, "triage.toml"), []byte(plan), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(md, "models.json"),
		[]byte(`{"default": {"provider": "scripted", "model": "scripted", "plan": "triage.toml"}}`), 0o644))

	for _, root := range []string{dir, md} {
		cat := toolset.Discover([]skills.Root{{Dir: root, Origin: skills.OriginPath}}, nil)
		assert.Equal(t, []string{"guide"}, skillNames(cat.Skills()), "the Agent Skill of %s", root)
	}

	cat := toolset.Discover([]skills.Root{{Dir: dir, Origin: skills.OriginPath}}, nil)
	ws := t.TempDir()
	r := &capabilities.Resolver{All: true}
	set, err := toolset.New(context.Background(), cat, &toolset.Config{Runner: rt, Workspace: ws,
		WorkspaceGrant: r.Workspace(), Grant: toolset.Resolve(r, nil)})
	require.NoError(t, err)
	defer set.Close()
	served := names(set.Served().List())
	for _, want := range []string{"skill_invoices", "skill_notes", "skill_slugify", "skill_standup", "skill_ticket-triage", "skill_todo"} {
		assert.Contains(t, served, want)
	}
	assert.NotContains(t, served, "skill_legacy-calc", "a dcgskill is left out")

	res, err := set.Tools.Call(context.Background(), "skill_ticket-triage", json.RawMessage(`{"prompt": "The export button does nothing."}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "Filed as a note; urgency high.", res.Content)
	res, err = set.Tools.Call(context.Background(), "skill_notes", json.RawMessage(`{"operation": "query"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Content, "ACME: export broken", "the session's call wrote the workspace's notes.db")
	_, err = os.Stat(filepath.Join(ws, "notes.db"))
	require.NoError(t, err)
}
