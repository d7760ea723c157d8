package yamlmod

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// TestActionResultBounded: an action whose script floods its output,
// as a JSON object or as text, and one that floods and then fails, each
// return a result within host.MaxResultContent, content and structured
// value, the cut marked, and the failure still says why.
func TestActionResultBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: three actions that flood their output (2 s); the full suite runs it")
	}
	dir := writeModules(t, map[string]string{
		"tools/flood/tool.yaml": `tool:
  id: flood
  actions:
    - {name: text, description: Floods text.}
    - {name: object, description: Floods a JSON object.}
    - {name: fail, description: Floods and fails.}
`,
		"tools/flood/text.sh":   "yes 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' | head -c 3000000\n",
		"tools/flood/object.sh": "printf '{\"a\": \"'; yes '<' | tr -d '\\n' | head -c 3000000; printf '\"}'\n",
		"tools/flood/fail.sh":   "yes 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' | head -c 3000000; echo 'the real reason' >&2; exit 3\n",
	})
	_, reg := registry(t, dir, capabilities.Set{}, nil)
	for _, action := range []string{"text", "object", "fail"} {
		res := call(t, reg, "flood__"+action, `{}`)
		assert.LessOrEqual(t, len(res.Content), host.MaxResultContent, action)
		assert.LessOrEqual(t, len(res.Structured), host.MaxResultContent, action)
		assert.Contains(t, res.Content, "more bytes]", action)
		if action == "fail" {
			require.True(t, res.IsError)
			assert.Contains(t, res.Content, "exited with status 3")
			assert.Contains(t, res.Content, "the real reason", "the tail of stderr survives the cut")
		}
	}
}

// TestSkillDisclosureBounded: a skill.yaml of a few kilobytes whose
// steps name, again and again, a tool of many long-named actions would
// make tens of megabytes of SKILL.md (each reference lists every
// action); loading it stops at the bound of a SKILL.md, with a problem
// that says what to do, and allocates little.
func TestSkillDisclosureBounded(t *testing.T) {
	files := map[string]string{}
	var tool, skill strings.Builder
	tool.WriteString("tool:\n  id: wide\n  actions:\n")
	for i := range 64 {
		name := fmt.Sprintf("a%02d_%s", i, strings.Repeat("x", 56))
		fmt.Fprintf(&tool, "    - {name: %s, description: x}\n", name)
		files["tools/wide/"+name+".sh"] = "echo x\n"
	}
	files["tools/wide/tool.yaml"] = tool.String()
	skill.WriteString("skill:\n  id: amplified\n  triggers: [wide]\n  methodology:\n")
	for range 64 {
		skill.WriteString("    - description: use it\n      tools: [" + strings.TrimSuffix(strings.Repeat("wide, ", 64), ", ") + "]\n")
	}
	files["skills/amplified/skill.yaml"] = skill.String()
	require.Less(t, len(skill.String()), 64<<10)
	dir := writeModules(t, files)

	var problems skills.Problems
	var set *Set
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	set, problems = load(dir, fakeInterpreters)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(20<<20), "bytes allocated loading (62 MB before the bound)")
	assert.Nil(t, set.Skill("amplified"))
	assert.Contains(t, fmt.Sprint(problems), "would be over")
	assert.Contains(t, fmt.Sprint(problems), "methodology step")
}
