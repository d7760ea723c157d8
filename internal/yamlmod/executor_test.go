package yamlmod

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
)

// executorModules is a folder in the ADR's layout: a tool with a script
// per action, and a skill whose executor.py calls it.
var executorModules = map[string]string{
	"tools/text/tool.yaml": `tool:
  id: text
  actions:
    - name: count
      description: Counts words.
      parameters:
        - {name: text, type: string, required: true}
    - name: upper
      description: Upper-cases.
      parameters:
        - {name: text, type: string, required: true}
`,
	"tools/text/count.py": "import json, sys\nprint(json.dumps({'words': len(json.load(sys.stdin)['text'].split())}))\n",
	"tools/text/upper.py": "import json, sys\nprint(json.load(sys.stdin)['text'].upper())\n",
	"skills/report/skill.yaml": `skill:
  id: report
  triggers: [report]
  input_schema:
    type: object
    properties: {text: {type: string}}
    required: [text]
  output_schema:
    type: object
    properties: {words: {type: integer}, title: {type: string}}
    required: [words, title]
  methodology:
    - step: count
      description: Count the words.
      tools: [text]
`,
	"skills/report/executor.py": `from ..base import BaseSkill

class Report(BaseSkill):
    def execute(self, input, tools):
        words = tools.text.count(text=input["text"])["words"]
        title = tools["text"].invoke("upper", {"text": input["text"].split()[0]}).strip()
        return {"words": words, "title": title}
`,
	"skills/asyncrep/skill.yaml": "skill:\n  id: asyncrep\n  triggers: [async]\n  methodology:\n    - {description: Count., tools: [text.count]}\n",
	"skills/asyncrep/executor.py": `async def execute(input, tools):
    r = await tools.invoke("text", "count", {"text": input.get("text", "a b")})
    try:
        await tools.call("text__upper", {"text": "x"})
        escaped = "yes"
    except Exception as e:
        escaped = type(e).__name__ + ": " + str(e)
    return {"words": r["words"], "outside": escaped}
`,
	"skills/badout/skill.yaml":  "skill:\n  id: badout\n  triggers: [bad]\n  output_schema: {type: object, required: [n]}\n  methodology:\n    - {description: Nothing.}\n",
	"skills/badout/executor.py": "def execute(input, tools):\n    return {'m': 1}\n",
}

// executorRegistry serves the folder's actions and executors, the
// executors' tool calls reaching the same registry, under the grants
// given by skill (or tool) id.
func executorRegistry(t *testing.T, dir string, grants map[string]capabilities.Set) *host.Registry {
	t.Helper()
	set, problems := Load(dir)
	require.Empty(t, problems.Errors())
	reg := host.NewRegistry()
	for _, tool := range set.Tools {
		for _, ht := range tool.HostTools(runner(t), grants[tool.ID], nil) {
			require.NoError(t, reg.Add(ht))
		}
	}
	opts := &scripts.ToolOptions{Services: host.Services{Tools: reg}}
	for _, sk := range set.Skills {
		if sk.HasExecutor() {
			require.NoError(t, reg.Add(sk.HostTool(runner(t), grants[sk.ID], opts)))
		}
	}
	return reg
}

func TestExecutor(t *testing.T) {
	requirePython(t)
	dir := writeModules(t, executorModules)
	set, problems := Load(dir)
	require.Empty(t, problems.Errors())
	assert.True(t, set.Skill("report").HasExecutor())
	declared := set.Skill("report").ExecutorSkill().Manifest.Capabilities.Tools
	assert.Equal(t, []string{"text__count", "text__upper"}, declared, "the executor declares its methodology's tools")

	grants := map[string]capabilities.Set{
		"report":   {Tools: []string{"text__count", "text__upper"}},
		"asyncrep": {Tools: []string{"text__count", "text__upper"}}, // only text__count is declared
	}
	reg := executorRegistry(t, dir, grants)

	res := call(t, reg, "report__execute", `{"text": "hello big world"}`)
	require.False(t, res.IsError, res.Content)
	assert.JSONEq(t, `{"words": 3, "title": "HELLO"}`, string(res.Structured))

	res = call(t, reg, "asyncrep__execute", `{"text": "a b c d"}`)
	require.False(t, res.IsError, res.Content)
	var got map[string]any
	require.NoError(t, json.Unmarshal(res.Structured, &got))
	assert.Equal(t, float64(4), got["words"])
	assert.Contains(t, got["outside"], "ToolError", "a tool the methodology does not name is refused, whatever the grant")
	assert.Contains(t, got["outside"], "text__upper")

	res = call(t, reg, "badout__execute", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "output does not match the skill's output_schema")
}

// TestExecutorDenied: without a grant the executor runs, but every tool
// call is refused (deny by default) and the failure names the grant.
func TestExecutorDenied(t *testing.T) {
	requirePython(t)
	dir := writeModules(t, executorModules)
	reg := executorRegistry(t, dir, nil)
	res, err := reg.Call(context.Background(), "report__execute", json.RawMessage(`{"text": "x"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "ToolError")
	assert.Contains(t, res.Content, "text__count")
	assert.Contains(t, res.Content, "not granted")

	res, err = reg.Call(context.Background(), "report__execute", json.RawMessage(`[1]`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "want object", "the registry checks the input against the skill's input_schema")
}
