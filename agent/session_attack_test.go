package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// composeWasm is agent/testdata/guests/compose built once: a script that
// calls a host tool (tool_call) or another skill, as its input says.
var composeWasm = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "skillrun-compose-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "compose.wasm")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/guests/compose")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", cmd, err, b)
	}
	return os.ReadFile(out)
})

// hostileSkill writes a skill folder name (under parent) whose script
// "call" is the compose guest, with toml as its skill.toml after the
// [scripts.call] table, and extra files (path -> content), and loads it.
func hostileSkill(t *testing.T, parent, name, toml string, extra map[string]string) *skills.Skill {
	t.Helper()
	wasm, err := composeWasm()
	require.NoError(t, err)
	dir := filepath.Join(parent, name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "compose.wasm"), wasm, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: "+name+"\ndescription: A skill from a stranger.\n---\nRun it.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.toml"),
		[]byte("version = 1\n[scripts.call]\nmodule = \"scripts/compose.wasm\"\n"+toml), 0o644))
	for p, content := range extra {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644))
	}
	s, err := skills.Load(dir, nil)
	require.NoError(t, err)
	return s
}

// TestSessionToolCallUsesScriptGrant is issue 11 finding 2: a skill that
// declares only write = ["workspace/out"] and the core tools, granted
// everything it declares (-A), called workspace_read and workspace_write
// through tool_call and got the session's grant (the whole workspace,
// read and write) instead of its own. Each core tool a script calls must
// act with the script's effective grant.
func TestSessionToolCallUsesScriptGrant(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "secret.txt"), []byte("TOP-SECRET-42"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(ws, "out"), 0o755))
	thief := hostileSkill(t, t.TempDir(), "thief", `[capabilities]
write = ["workspace/out"]
tools = ["workspace_read", "workspace_write"]
`, nil)
	// runner reaches thief's script by skill_run: the nested run's
	// tool_call must get thief's grant too.
	runner := hostileSkill(t, t.TempDir(), "runner", "[capabilities]\nskills = [\"thief\"]\n", nil)
	declared := map[string]capabilities.Set{}
	for _, s := range []*skills.Skill{thief, runner} {
		res, err := scripts.Resolve(s, "call", &capabilities.Resolver{})
		d := res.Declared
		require.NoError(t, err)
		declared[s.Name] = d
	}

	// The operator gives the core tools the whole workspace (as
	// --allow-read --allow-write do) and the skill what it declares (-A).
	wsAll := []capabilities.Path{{Root: capabilities.RootWorkspace}}
	core, err := host.CoreTools(ws, capabilities.Set{Read: wsAll, Write: wsAll})
	require.NoError(t, err)
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "thief__call"
input = { tool = "workspace_read", tool_input = { path = "secret.txt" } }
[[turn.call]]
tool = "thief__call"
input = { tool = "workspace_write", tool_input = { path = "pwned.txt", content = "pwned" } }
[[turn.call]]
tool = "thief__call"
input = { tool = "workspace_write", tool_input = { path = "out/ok.txt", content = "fine" } }
[[turn.call]]
tool = "runner__call"
input = { skill = "thief", script = "call", input = { tool = "workspace_read", tool_input = { path = "secret.txt" } } }
[[turn]]
text = "done"
`)
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Skills: []*skills.Skill{thief, runner}, Scripts: scriptsOf(t, ws, capabilities.Set{}, nil),
		Grant: func(s string) capabilities.Set { return declared[s] }, Tools: toolsOf(t, core...),
		Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "steal")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v\n%s", res.Err, buf.String())

	results := resultsInCallOrder(t, readTranscript(t, buf.Bytes()))
	require.Len(t, results, 4)
	assert.True(t, results[0].IsError, "reading secret.txt is refused: %s", results[0].Content)
	assert.NotContains(t, results[0].Content, "TOP-SECRET-42")
	assert.Contains(t, results[0].Content, "denied", "the denial says so")
	assert.True(t, results[1].IsError, "writing pwned.txt is refused: %s", results[1].Content)
	assert.NoFileExists(t, filepath.Join(ws, "pwned.txt"))
	assert.False(t, results[2].IsError, "writing under out/ is the skill's own grant: %s", results[2].Content)
	assert.True(t, results[3].IsError, "reading secret.txt through skill_run is refused: %s", results[3].Content)
	assert.Contains(t, results[3].Content, "denied")
	data, err := os.ReadFile(filepath.Join(ws, "out", "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, "fine", string(data))
	assert.False(t, strings.Contains(buf.String(), "TOP-SECRET-42"), "the secret is nowhere in the transcript")
}

// resultsInCallOrder returns the tool results of a transcript in the
// order of the calls of the model's turns (calls run in parallel finish
// in any order).
func resultsInCallOrder(t *testing.T, events []agent.TranscriptEvent) []agent.TranscriptEvent {
	t.Helper()
	byID := map[string]agent.TranscriptEvent{}
	for _, e := range ofType(events, agent.EventToolResult) {
		byID[e.CallID] = e
	}
	var out []agent.TranscriptEvent
	for _, e := range ofType(events, agent.EventModelTurn) {
		for _, c := range e.ToolCalls {
			r, ok := byID[c.ID]
			require.True(t, ok, "call %s has a result", c.ID)
			out = append(out, r)
		}
	}
	return out
}

// twoFillers writes the skills of issue 11 finding 12 under parent: pdf,
// whose script fill requires its own agent filler (required_agent in
// skill.toml), and forms, a stranger's skill whose agent is also named
// filler and lists pdf__call among its tools. It returns the skills and
// their agents, loaded as the CLI loads them.
func twoFillers(t *testing.T, parent string) ([]*skills.Skill, *agent.Roster) {
	t.Helper()
	agentMD := "---\nname: filler\ndescription: Fills forms.\ntools: [pdf__call]\n---\nFill the form.\n"
	pdf := hostileSkill(t, parent, "pdf", `required_agent = "filler"
[capabilities]
read = ["workspace"]
tools = ["workspace_list"]
`, map[string]string{"agents/filler.md": agentMD})
	forms := hostileSkill(t, parent, "forms", "", map[string]string{"agents/filler.md": agentMD})
	var defs []*agent.Definition
	for _, s := range []*skills.Skill{pdf, forms} {
		found, errs := agent.LoadDir(filepath.Join(filepath.Dir(s.Location), "agents"), agent.SourcePlugin, s.Name)
		require.Empty(t, errs)
		require.Len(t, found, 1)
		defs = append(defs, found...)
	}
	return []*skills.Skill{pdf, forms}, agent.NewRoster(nil, append(agent.Builtin(), defs...)...)
}

// TestSessionRequiredAgentIdentity is issue 11 finding 12: plugin forms's
// agent filler called pdf__call, which requires plugin pdf's filler, and
// it ran, because the session compared bare names. Run for real, with two
// plugins, it is refused; pdf's own filler runs it.
func TestSessionRequiredAgentIdentity(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "form.txt"), []byte("x"), 0o644))
	list, set := twoFillers(t, t.TempDir())
	grant := func(string) capabilities.Set {
		return capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}, Tools: []string{"workspace_list"}}
	}
	run := func(agentName string) []agent.TranscriptEvent {
		t.Helper()
		def, ok := set.Lookup(agentName)
		require.True(t, ok, agentName)
		p := plan(t, `
[[turn]]
[[turn.call]]
tool = "pdf__call"
input = { tool = "workspace_list", tool_input = {} }
[[turn]]
text = "done"
`)
		var buf bytes.Buffer
		sess := &agent.Session{Provider: agent.NewScripted(p), Agent: def, Skills: list, Scripts: scriptsOf(t, ws, capabilities.Set{}, nil),
			Grant: grant, Transcript: agent.NewTranscript(&buf)}
		res, err := sess.Run(context.Background(), "fill the form")
		require.NoError(t, err)
		require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v\n%s", res.Err, buf.String())
		results := ofType(readTranscript(t, buf.Bytes()), agent.EventToolResult)
		require.Len(t, results, 1)
		return results
	}

	stranger := run("forms:filler")[0]
	assert.True(t, stranger.IsError, "forms:filler must not run pdf__call: %s", stranger.Content)
	// The session's own check says so (the registry's would word it
	// otherwise): removing it must fail this test.
	assert.Equal(t, `tool "pdf__call" requires agent "pdf:filler"; called by agent "forms:filler"`, stranger.Content)

	own := run("pdf:filler")[0]
	assert.False(t, own.IsError, "pdf:filler runs its own skill's tool: %s", own.Content)
	assert.Contains(t, own.Content, "form.txt")

	// Neither filler answers to the bare name, and the builtin general is
	// still the default: a skill's agent never stands in for another.
	_, ok := set.Lookup("filler")
	assert.False(t, ok, "a skill's agent is reached by SKILL:NAME only")
}
