package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/scripts"
)

const examples = "../../../examples/achilles"

var sharedScripts = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.InstalledInterpreters("")})
})

func load(t *testing.T, name string) *mdskill.Skill {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examples, ".AchillesSkills", name+".*.md"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	s, problems := mdskill.Load(files[0])
	require.Empty(t, problems)
	return s
}

// replies is a provider whose every call answers the next text, and
// records the requests.
type replies struct {
	mu    sync.Mutex
	texts []string
	reqs  []*agent.Request
}

func (r *replies) Name() string { return "replies" }
func (r *replies) Complete(_ context.Context, req *agent.Request) (*agent.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if len(r.texts) == 0 {
		return nil, &agent.ProviderError{Provider: "replies", Kind: agent.ErrBadRequest, Message: "no more replies"}
	}
	t := r.texts[0]
	r.texts = r.texts[1:]
	return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Text: t}, StopReason: agent.StopEndTurn,
		Usage: agent.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

func newRunner(t *testing.T, p *replies) *Runner {
	t.Helper()
	sr, err := sharedScripts()
	require.NoError(t, err)
	return &Runner{Provider: func(string) (agent.Provider, error) { return p, nil }, Scripts: sr}
}

func call(t *testing.T, tool host.Tool, input string) *host.ToolResult {
	t.Helper()
	res, err := tool.Call(context.Background(), json.RawMessage(input))
	require.NoError(t, err)
	return res
}

// TestSkillKind: one model call with the skill's system prompt, model
// settings and the input; the reply's text is the result.
func TestSkillKind(t *testing.T) {
	p := &replies{texts: []string{"A short summary."}}
	s := load(t, "summarize")
	res := call(t, newRunner(t, p).Tool(s), `{"text": "Long text.", "sentences": 1}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "A short summary.", res.Content)
	require.Len(t, p.reqs, 1)
	req := p.reqs[0]
	assert.Equal(t, s.SystemPrompt, req.System)
	assert.Equal(t, "claude-sonnet-4-5", req.Model)
	assert.Equal(t, 512, req.MaxTokens)
	assert.Contains(t, req.Messages[0].Text, `"text": "Long text."`)
	assert.JSONEq(t, `{"text": "A short summary.", "usage": {"input_tokens": 10, "output_tokens": 5}}`, string(res.Structured))

	// A provider failure is the tool's error result, not the host's.
	res = call(t, newRunner(t, &replies{}).Tool(s), `{"text": "x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "no more replies")
}

// TestInteractiveKind: an iskill keeps the conversation by id; another
// skill's id or an unknown one is refused.
func TestInteractiveKind(t *testing.T) {
	p := &replies{texts: []string{"What is 2+2?", "Right, 4."}}
	r := newRunner(t, p)
	tutor := r.Tool(load(t, "tutor"))
	first := call(t, tutor, `{"message": "Teach me sums."}`)
	require.False(t, first.IsError, first.Content)
	var st struct {
		ID    string `json:"conversation_id"`
		Turns int    `json:"turns"`
	}
	require.NoError(t, json.Unmarshal(first.Structured, &st))
	require.NotEmpty(t, st.ID)
	second := call(t, tutor, `{"message": "4", "conversation_id": "`+st.ID+`"}`)
	require.False(t, second.IsError, second.Content)
	assert.Equal(t, "Right, 4.", second.Content)
	require.Len(t, p.reqs, 2)
	msgs := p.reqs[1].Messages
	require.Len(t, msgs, 3, "the whole conversation is sent")
	assert.Equal(t, "Teach me sums.", msgs[0].Text)
	assert.Equal(t, "What is 2+2?", msgs[1].Text)
	assert.Equal(t, "4", msgs[2].Text)

	res := call(t, tutor, `{"message": "hi", "conversation_id": "nope"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, `no conversation "nope"`)
	other := r.Tool(&mdskill.Skill{Name: "other", Kind: mdskill.KindInteractive, Description: "d"})
	res = call(t, other, `{"message": "hi", "conversation_id": "`+st.ID+`"}`)
	assert.True(t, res.IsError, "another skill's conversation is not this one's")
}

// TestCodeGenKind: the model's code runs in the JS sandbox with the input
// and its value is the result; hostile code fails within limits.
func TestCodeGenKind(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	s := load(t, "csv-total")
	input := `{"csv": "region,revenue\nnorth,10.5\nsouth,4.5\n", "column": "revenue"}`
	good := "Here it is:\n```javascript\nconst rows = input.csv.trim().split(\"\\n\").map(l => l.split(\",\"));\n" +
		"const i = rows[0].indexOf(input.column);\nreturn rows.slice(1).reduce((s, r) => s + Number(r[i]), 0);\n```\n"
	res := call(t, newRunner(t, &replies{texts: []string{good}}).Tool(s), input)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "15", res.Content)

	hostile := map[string]struct{ code, want string }{
		"loops forever":  {"while (true) {}", "did not finish in time"},
		"memory bomb":    {"const a = []; for (;;) a.push(new Array(1e6).fill(1));", "skill_csv-total: the generated code "},
		"reads the host": {`return require("fs").readFileSync("/etc/passwd");`, "failed"},
		"throws":         {`throw new Error("boom");`, "boom"},
		"child process":  {`return require("child_process").execSync("cat /etc/passwd").toString();`, "failed"},
	}
	for name, c := range hostile {
		t.Run(name, func(t *testing.T) {
			res := call(t, newRunner(t, &replies{texts: []string{"```js\n" + c.code + "\n```"}}).Tool(s), input)
			assert.True(t, res.IsError, res.Content)
			assert.Contains(t, res.Content, c.want)
		})
	}
}

// stepsTools is a registry of the tools an mskill's steps call.
func stepsTools(t *testing.T, ws string, extra ...host.Tool) *host.Registry {
	t.Helper()
	reg := host.NewRegistry()
	core, err := host.CoreTools(ws, scripts.ShellDeclares())
	require.NoError(t, err)
	for _, c := range append(core, extra...) {
		require.NoError(t, reg.Add(c))
	}
	return reg
}

// TestStepsKinds: an mskill runs its steps over the tools, templates
// expanded; an oskill chains skills; a failing step ends the run with
// the partial results; an oskill calling itself is refused.
func TestStepsKinds(t *testing.T) {
	ws := t.TempDir()
	testkit.WriteFile(t, ws, "sales.csv", "region,revenue\nnorth,1\n")
	p := &replies{texts: []string{"A one-line brief."}}
	r := newRunner(t, p)
	report, summarize, brief := r.Tool(load(t, "region-report")), r.Tool(load(t, "summarize")), r.Tool(load(t, "brief"))
	reg := stepsTools(t, ws, report, summarize, brief)
	r.Tools = reg

	res := call(t, report, `{"file": "sales.csv"}`)
	require.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, "north,1")
	var st struct {
		Steps []stepResult `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(res.Structured, &st))
	require.Len(t, st.Steps, 2)
	assert.Contains(t, st.Steps[0].Content, "sales.csv")

	res = call(t, brief, `{"file": "sales.csv"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "A one-line brief.", res.Content)
	require.Len(t, p.reqs, 1)
	assert.Contains(t, p.reqs[0].Messages[0].Text, "north,1", "the report reached the summary through {{steps.report}}")

	res = call(t, report, `{"file": "missing.csv"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "step 2 (workspace_read) failed")
	require.NoError(t, json.Unmarshal(res.Structured, &st))
	assert.Len(t, st.Steps, 2, "the partial results")

	self, problems := mdskill.Parse([]byte("# loop\n\nCalls itself.\n\n## Orchestration\n```yaml\nsteps:\n  - tool: skill_loop\n```\n"), "loop.oskill.md")
	require.Empty(t, problems)
	loop := r.Tool(self)
	require.NoError(t, reg.Add(loop))
	res = call(t, loop, `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "loop calls itself (loop → loop)")

	// An input holding a template is text, never expanded again.
	res = call(t, report, `{"file": "{{steps.listing}}"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "{{steps.listing}}")
}

// TestOrchestrationDepth: oskills that chain each other stop at
// host.DefaultMaxDepth, with the chain named.
func TestOrchestrationDepth(t *testing.T) {
	r := newRunner(t, &replies{})
	reg := host.NewRegistry()
	r.Tools = reg
	var first host.Tool
	for i := range host.DefaultMaxDepth + 1 {
		src := fmt.Sprintf("# o%d\n\nChains.\n\n## Orchestration\n```yaml\nsteps:\n  - tool: skill_o%d\n```\n", i, i+1)
		s, problems := mdskill.Parse([]byte(src), fmt.Sprintf("o%d.oskill.md", i))
		require.Empty(t, problems)
		tl := r.Tool(s)
		require.NoError(t, reg.Add(tl))
		if i == 0 {
			first = tl
		}
	}
	res := call(t, first, `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, fmt.Sprintf("skills nest deeper than %d (o0 → o1 → o2 → o3 → o4)", host.DefaultMaxDepth))
}

// TestAudit: every call is audited as a run with its end, and a refused
// one (a skill calling itself) as a denial.
func TestAudit(t *testing.T) {
	r := newRunner(t, &replies{})
	reg := host.NewRegistry()
	r.Tools = reg
	self, problems := mdskill.Parse([]byte("# loop\n\nCalls itself.\n\n## Orchestration\n```yaml\nsteps:\n  - tool: skill_loop\n```\n"), "loop.oskill.md")
	require.Empty(t, problems)
	require.NoError(t, reg.Add(r.Tool(self)))
	rec := &recorder{}
	ctx := audit.WithAuditor(context.Background(), rec)
	res, err := reg.Call(ctx, "skill_loop", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.True(t, res.IsError)
	events := rec.all()
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s %s %s", e.Kind, e.Decision, e.Value))
	}
	assert.Equal(t, []string{"run allow skill_loop", "skills deny skill_loop", "run allow skill_loop"}, kinds)
	assert.Contains(t, events[1].Reason, "loop calls itself")
	assert.Contains(t, events[2].Reason, "failed: ")
}
