package yamlmod

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// TestCheckOutput: an output is checked against the skill's
// output_schema, and the error says where it differs.
func TestCheckOutput(t *testing.T) {
	set, problems := load(example, fakeInterpreters)
	require.Empty(t, problems)
	s := set.Skill("text-report")
	for _, tc := range []struct {
		out, err string
	}{
		{out: `{"words": 3, "sorted": ["a", "b"]}`},
		{out: `{"words": -1, "sorted": []}`, err: "skill text-report: output does not match the skill's output_schema: at /words: minimum: got -1, want 0"},
		{out: `{"words": 3}`, err: "skill text-report: output does not match the skill's output_schema: missing property 'sorted'"},
		{out: `{"words": "3", "sorted": [1], "extra": true}`, err: "skill text-report: output does not match the skill's output_schema: " +
			"additional properties 'extra' not allowed; at /sorted/0: got number, want string; at /words: got string, want integer"},
		{out: `{"words": 3`, err: "skill text-report: output does not match the skill's output_schema: not JSON: unexpected EOF"},
	} {
		err := s.CheckOutput(json.RawMessage(tc.out))
		if tc.err == "" {
			assert.NoError(t, err, tc.out)
			continue
		}
		require.Error(t, err, tc.out)
		assert.ErrorIs(t, err, ErrOutputInvalid)
		assert.Equal(t, tc.err, err.Error())
	}

	// A skill without an output_schema takes any JSON.
	dir := writeModules(t, map[string]string{"skills/free/skill.yaml": "skill:\n  id: free\n  triggers: [x]\n  methodology:\n    - description: x\n"})
	set, problems = load(dir, fakeInterpreters)
	require.Empty(t, problems)
	assert.NoError(t, set.Skill("free").CheckOutput(json.RawMessage(`[1, "two"]`)))
	assert.ErrorIs(t, set.Skill("free").CheckOutput(json.RawMessage(`nope`)), ErrOutputInvalid)
}

// TestSkillMD: the SKILL.md a skill.yaml is disclosed with matches
// testdata/text-report.SKILL.md (go test -update rewrites it).
func TestSkillMD(t *testing.T) {
	set, problems := load(example, fakeInterpreters)
	require.Empty(t, problems)
	sk := set.Skill("text-report").AgentSkill()
	require.Empty(t, sk.Problems, "the generated SKILL.md breaks no rule of the specification")
	got, err := sk.ReadResource("SKILL.md")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "text-report.SKILL.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// TestDisclosure serves a skill.yaml skill with the host's disclosure
// tools, beside an Agent Skill: its triggers find it, activation gives
// its methodology and names its tools, and its skill.yaml can be read.
func TestDisclosure(t *testing.T) {
	set, problems := load(example, fakeInterpreters)
	require.Empty(t, problems)
	other, err := skills.LoadDir("../../examples/word-count", nil)
	require.NoError(t, err)
	tools := host.DisclosureTools(append(set.AgentSkills(), other), nil)
	reg := host.NewRegistry()
	for _, tool := range tools {
		require.NoError(t, reg.Add(tool))
	}
	ctx := context.Background()

	sk := set.AgentSkills()[0]
	assert.Equal(t, "text-report", sk.Name)
	assert.Equal(t, "Use it for: word count; sort lines; text statistics (category: text analysis).", sk.Description)
	assert.Equal(t, []string{"word count", "sort lines", "text statistics"}, sk.Triggers())
	abs, err := filepath.Abs(filepath.Join(example, "skills", "text-report", "skill.yaml"))
	require.NoError(t, err)
	assert.Equal(t, abs, sk.Location)

	res, err := reg.Call(ctx, host.ToolSkillSearch, json.RawMessage(`{"query": "statistics"}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "text-report: "+sk.Description+"\n", res.Content)

	res, err = reg.Call(ctx, host.ToolSkillActivate, json.RawMessage(`{"name": "text-report"}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, "1. **Count the words**: Count the words of the text with the counting tool.\n   - Tools: `text-tools__count_words`\n")
	assert.Contains(t, res.Content, "- `text-tools__sort_lines`: Sort the lines of a text.\n")
	assert.Contains(t, res.Content, "Files of skill text-report (read them with skill_read):\n- SKILL.md\n- skill.toml\n- skill.yaml\n")

	res, err = reg.Call(ctx, host.ToolSkillRead, json.RawMessage(`{"name": "text-report", "path": "skill.yaml"}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	src, err := os.ReadFile(filepath.Join(example, "skills", "text-report", "skill.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(src), res.Content)
}
