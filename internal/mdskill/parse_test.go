package mdskill

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/skills"
)

const examples = "../../examples/achilles"

// TestLoadExamples: the example of each kind loads without a problem.
func TestLoadExamples(t *testing.T) {
	list, problems := LoadDir(examples)
	require.Empty(t, problems)
	kinds := map[string]Kind{}
	for _, s := range list {
		kinds[s.Name] = s.Kind
	}
	assert.Equal(t, map[string]Kind{"summarize": KindSkill, "csv-total": KindCodeGen, "tutor": KindInteractive,
		"region-report": KindMCP, "brief": KindOrchestrator, "contacts": KindTable}, kinds)
}

func TestParseSkill(t *testing.T) {
	s, problems := Load(examples + "/.AchillesSkills/summarize.skill.md")
	require.Empty(t, problems)
	assert.Equal(t, "summarize", s.Name)
	assert.Equal(t, "skill_summarize", s.ToolName())
	assert.Equal(t, "Summarise a text in a given number of sentences.", s.Description)
	assert.True(t, strings.HasPrefix(s.SystemPrompt, "You summarise texts faithfully."))
	require.Len(t, s.Parameters, 2)
	assert.Equal(t, Param{Name: "text", Type: "string", Required: true, Description: "The text to summarise.", Line: 10}, s.Parameters[0])
	assert.False(t, s.Parameters[1].Required)
	assert.Equal(t, "claude-sonnet-4-5", s.Config.Model)
	require.NotNil(t, s.Config.Temperature)
	assert.InDelta(t, 0.2, *s.Config.Temperature, 1e-9)
	assert.Equal(t, 512, s.Config.MaxTokens)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(s.InputSchema(), &schema))
	assert.Equal(t, []any{"text"}, schema["required"])
	assert.Equal(t, false, schema["additionalProperties"])
	assert.Equal(t, "integer", schema["properties"].(map[string]any)["sentences"].(map[string]any)["type"])
}

func TestParseOrchestration(t *testing.T) {
	s, problems := Load(examples + "/.AchillesSkills/region-report.mskill.md")
	require.Empty(t, problems)
	assert.Equal(t, []string{"workspace_read", "workspace_list"}, s.Tools)
	require.Len(t, s.Steps, 2)
	assert.Equal(t, Step{Tool: "workspace_read", Params: map[string]any{"path": "{{input.file}}"}, Output: "content", Line: 18}, s.Steps[1])
	assert.Equal(t, s.Description, s.SystemPrompt, "no ## System Prompt: the description")
}

// TestParseBadInput: each mistake is an error on its line.
func TestParseBadInput(t *testing.T) {
	const head = "# x\n\nDoes x.\n\n"
	cases := []struct{ name, file, src, want string }{
		{"unknown kind", "x.zskill.md", head, `unknown kind "zskill"`},
		{"no kind", "x.md", head, "names no kind"},
		{"bad name", "a b.skill.md", head, "letters, digits"},
		{"no title", "x.skill.md", "Does x.\n", "x.skill.md:1: no `# x` heading"},
		{"no description", "x.skill.md", "# x\n\n## Parameters\n", "x.skill.md:1: no description"},
		{"bad param line", "x.skill.md", head + "## Parameters\n- text (string, required): no backticks\n", "x.skill.md:6: not a parameter line"},
		{"bad param type", "x.skill.md", head + "## Parameters\n- `a` (str, required): x\n", `x.skill.md:6: parameter a: type "str"`},
		{"neither required nor optional", "x.skill.md", head + "## Parameters\n- `a` (string, maybe): x\n", "neither required nor optional"},
		{"duplicate param", "x.skill.md", head + "## Parameters\n- `a` (string, required): x\n- `a` (number, optional): y\n", "x.skill.md:7: parameter a again (first on line 6)"},
		{"config not fenced", "x.skill.md", head + "## Config\n{\"model\": \"m\"}\n", "fenced ```json block"},
		{"config bad JSON", "x.skill.md", head + "## Config\n```json\n{\"model\": \"m\",\n \"temperature\": }\n```\n", "x.skill.md:8: invalid JSON"},
		{"config unknown key", "x.skill.md", head + "## Config\n```json\n{\"modle\": \"m\"}\n```\n", `unknown config key "modle"`},
		{"config bad temperature", "x.skill.md", head + "## Config\n```json\n{\"temperature\": 9}\n```\n", "outside 0 to 2"},
		{"mskill without tools", "x.mskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n```\n", "needs a ## Tools section"},
		{"mskill without steps", "x.mskill.md", head + "## Tools\n- a\n", "needs an ## Orchestration section"},
		{"step tool not listed", "x.mskill.md", head + "## Tools\n- a\n## Orchestration\n```yaml\nsteps:\n  - tool: b\n```\n", "x.skill.md"},
		{"unknown step", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n    params: {x: \"{{steps.nope}}\"}\n```\n", "x.oskill.md:8: template {{steps.nope}} names no earlier step's output"},
		{"later step", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n    params: {x: \"{{steps.b}}\"}\n  - tool: b\n    output: b\n```\n", "names no earlier step's output"},
		{"unknown input", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n    params: {x: \"{{input.q}}\"}\n```\n", "template {{input.q}} names no parameter"},
		{"unknown template root", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n    params: {x: \"{{env.HOME}}\"}\n```\n", "only {{input.NAME}} and {{steps.NAME}}"},
		{"yaml alias", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - &s {tool: a}\n  - *s\n```\n", "anchors and aliases"},
		{"unknown step key", "x.oskill.md", head + "## Orchestration\n```yaml\nsteps:\n  - tool: a\n    when: x\n```\n", `unknown step key "when"`},
		{"duplicate section", "x.skill.md", head + "## Config\n```json\n{}\n```\n## Config\n```json\n{}\n```\n", "a second ## Config section"},
		{"tskill without fields", "x.tskill.md", head, "x.tskill.md:1: a tskill needs a ## Fields section"},
		{"tskill bad column", "x.tskill.md", head + "## Fields\n- `e-mail` (string, required): x\n", `x.tskill.md:6: field "e-mail": a column name`},
		{"tskill id field", "x.tskill.md", head + "## Fields\n- `id` (integer, required): x\n", "x.tskill.md:6: field id: every row has an id already"},
		{"tskill bad field line", "x.tskill.md", head + "## Fields\n- name: text\n", "x.tskill.md:6: not a field line"},
		{"tskill database outside", "x.tskill.md", head + "## Fields\n- `a` (string, required): x\n## Database\n../x.db\n", `x.tskill.md:8: "../x.db" leads outside the workspace`},
		{"tskill database absolute", "x.tskill.md", head + "## Fields\n- `a` (string, required): x\n## Database\n/etc/x.db\n", "relative to the workspace"},
		{"tskill database two lines", "x.tskill.md", head + "## Fields\n- `a` (string, required): x\n## Database\na.db\nb.db\n", "## Database is one line"},
		{"too big", "x.skill.md", head + strings.Repeat("a", MaxFile), "over the"},
		{"not UTF-8", "x.skill.md", "# x\n\n\xff\xfe\n", "not UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, problems := Parse([]byte(c.src), c.file)
			assert.Nil(t, s)
			require.NotEmpty(t, problems.Errors())
			var msgs []string
			for _, p := range problems {
				msgs = append(msgs, p.Error())
			}
			joined := strings.Join(msgs, "\n")
			if c.name == "step tool not listed" {
				assert.Contains(t, joined, "step calls b, which ## Tools does not list")
				return
			}
			assert.Contains(t, joined, c.want)
		})
	}
}

// TestParseHeadingsInCode: a heading inside a fenced block is text, and
// warnings (an unknown section, a title that is not the name) leave the
// skill valid.
func TestParseHeadingsInCode(t *testing.T) {
	src := "# Another Title\n\nDoes x.\n\n## System Prompt\nWrite:\n```md\n## Parameters\n- not a param\n```\n## Notes\nfree text\n"
	s, problems := Parse([]byte(src), "x.skill.md")
	require.NotNil(t, s, "%v", problems)
	assert.Contains(t, s.SystemPrompt, "## Parameters")
	assert.Empty(t, s.Parameters)
	require.Len(t, problems, 2)
	for _, p := range problems {
		assert.Equal(t, skills.Warning, p.Severity)
	}
}

// TestExpand: templates take the input's and earlier steps' values, once;
// a value holding a template is not expanded again.
func TestExpand(t *testing.T) {
	input := map[string]any{"file": "a.csv", "n": 3.0, "evil": "{{steps.secret}}"}
	steps := map[string]any{"listing": "a.csv\nb.csv", "secret": "s3cr3t", "obj": map[string]any{"k": 1.0}}
	got, err := Expand(map[string]any{
		"path":   "{{input.file}}",
		"count":  "{{ input.n }}",
		"text":   "files: {{steps.listing}} and {{steps.obj}}",
		"nested": []any{map[string]any{"q": "{{input.evil}}"}},
		"plain":  7,
		"absent": "{{input.none}}",
	}, input, steps)
	require.NoError(t, err)
	assert.Equal(t, "a.csv", got["path"])
	assert.Equal(t, 3.0, got["count"], "a template alone keeps the value's type")
	assert.Equal(t, `files: a.csv`+"\n"+`b.csv and {"k":1}`, got["text"])
	assert.Equal(t, "{{steps.secret}}", got["nested"].([]any)[0].(map[string]any)["q"], "no second expansion")
	assert.Equal(t, 7, got["plain"])
	assert.Nil(t, got["absent"])
	_, err = Expand(map[string]any{"x": "{{steps.nope}}"}, input, steps)
	require.ErrorContains(t, err, "no such step output")
}
