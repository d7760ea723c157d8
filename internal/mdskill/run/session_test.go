package run

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

const folders = "../testdata/folders/.AchillesSkills/"

func loadFile(t *testing.T, file string) *mdskill.Skill {
	t.Helper()
	s, problems := mdskill.Load(file)
	require.NotNil(t, s, "%v", problems)
	return s
}

// turns is a provider whose every call answers the next message (text
// and tool calls), and records the requests.
type turns struct {
	mu   sync.Mutex
	msgs []agent.Message
	reqs []*agent.Request
}

func (p *turns) Name() string { return "turns" }
func (p *turns) Complete(_ context.Context, req *agent.Request) (*agent.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	if len(p.msgs) == 0 {
		return nil, &agent.ProviderError{Provider: "turns", Kind: agent.ErrBadRequest, Message: "no more turns"}
	}
	m := p.msgs[0]
	p.msgs = p.msgs[1:]
	m.Role = agent.RoleAssistant
	stop := agent.StopEndTurn
	if len(m.ToolCalls) > 0 {
		stop = agent.StopToolUse
	}
	return &agent.Response{Message: m, StopReason: stop, Usage: agent.Usage{InputTokens: 7, OutputTokens: 3}}, nil
}

// stub is a served tool that answers its name and records its inputs.
type stub struct {
	def host.ToolDef
	mu  sync.Mutex
	got []string
}

func newStub(name, source string) *stub {
	return &stub{def: host.ToolDef{Name: name, Description: "The " + name + " tool.", Source: source,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"prompt": {"type": "string"}}}`)}}
}

func (s *stub) Definition() host.ToolDef { return s.def }
func (s *stub) Call(_ context.Context, in json.RawMessage) (*host.ToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, string(in))
	return &host.ToolResult{Content: s.def.Name + " answered"}, nil
}

func toolNames(specs []agent.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestSessionOskill: an oskill without steps runs a model session whose
// system prompt holds its description, instructions and preparation,
// whose tools are exactly the skills it allows (called through Tools),
// and whose answer is the model's last text.
func TestSessionOskill(t *testing.T) {
	triage := loadFile(t, folders+"ticket-triage/oskill.md")
	notes, slug, other := newStub("skill_notes", host.SourceMarkdown), newStub("skill_slugify", host.SourceMarkdown),
		newStub("skill_other", host.SourceMarkdown)
	p := &turns{msgs: []agent.Message{
		{Text: "Looking it up.", ToolCalls: []agent.ToolCall{{ID: "1", Name: "skill_notes", Input: json.RawMessage(`{"prompt": "tickets of ACME"}`)}}},
		{ToolCalls: []agent.ToolCall{{ID: "2", Name: "skill_slugify", Input: json.RawMessage(`{"prompt": "export broken"}`)}}},
		{Text: "Urgency: high.\nDraft: we are on it."},
	}}
	r := &Runner{Provider: func(string) (agent.Provider, error) { return p, nil }, Timeout: 10 * time.Second}
	reg := host.NewRegistry()
	tool := r.Tool(triage)
	for _, tl := range []host.Tool{notes, slug, other, tool} {
		require.NoError(t, reg.Add(tl))
	}
	r.Tools = reg

	res, err := reg.Call(context.Background(), "skill_ticket-triage", json.RawMessage(`{"prompt": "The export button does nothing."}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "Urgency: high.\nDraft: we are on it.", res.Content)
	var st map[string]any
	require.NoError(t, json.Unmarshal(res.Structured, &st))
	assert.Equal(t, "completed", st["outcome"])
	assert.EqualValues(t, 3, st["turns"])
	assert.EqualValues(t, 2, st["tool_calls"])
	assert.Equal(t, []any{"skill_notes", "skill_slugify"}, st["tools"])

	assert.Equal(t, []string{`{"prompt": "tickets of ACME"}`}, notes.got)
	assert.Equal(t, []string{`{"prompt": "export broken"}`}, slug.got)
	assert.Empty(t, other.got)
	require.Len(t, p.reqs, 3)
	first := p.reqs[0]
	assert.Equal(t, "The export button does nothing.", first.Messages[0].Text, "the prompt is the task")
	assert.Equal(t, []string{"skill_notes", "skill_slugify"}, toolNames(first.Tools), "only the skills it allows")
	for _, want := range []string{"You run the skill ticket-triage: Sort an incoming support ticket",
		"# Instructions\n\nRead the ticket.", "Before the task itself: Look up the customer's recent tickets",
		"Not available here, though the instructions may name them: the agents supportAgent, billingAgent."} {
		assert.Contains(t, first.System, want)
	}
	assert.Contains(t, p.reqs[1].Messages[2].ToolResults[0].Content, "skill_notes answered")
}

// TestSessionOskillOffers: without an allow list the session offers every
// Markdown skill served but itself (not the core tools); a skill it
// allows that is not served is said; none served is an error; Tools that
// cannot list is an error; a session that fails is an error result.
func TestSessionOskillOffers(t *testing.T) {
	standup := loadFile(t, folders+"team/standup/oskill.md")
	p := &turns{msgs: []agent.Message{{Text: "Five lines."}}}
	r := &Runner{Provider: func(string) (agent.Provider, error) { return p, nil }}
	reg := host.NewRegistry()
	for _, tl := range []host.Tool{newStub("skill_notes", host.SourceMarkdown), newStub("workspace_read", "core"),
		newStub("skill_slugify", host.SourceMarkdown), r.Tool(standup)} {
		require.NoError(t, reg.Add(tl))
	}
	r.Tools = reg
	res := call(t, r.Tool(standup), `{"prompt": "yesterday"}`)
	require.False(t, res.IsError, res.Content)
	assert.ElementsMatch(t, []string{"skill_notes", "skill_slugify"}, toolNames(p.reqs[0].Tools))

	partial, problems := mdskill.Parse([]byte("# pick\n\nPicks.\n\n## Allowed Skills\n- notes\n- gone\n"), "pick/oskill.md")
	require.NotNil(t, partial, "%v", problems)
	p = &turns{msgs: []agent.Message{{Text: "ok"}}}
	res = call(t, r.Tool(partial), `{"prompt": "x"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, []string{"skill_notes"}, toolNames(p.reqs[0].Tools))
	assert.Contains(t, p.reqs[0].System, "Not available here, though the instructions may name them: the skills gone.")

	none, _ := mdskill.Parse([]byte("# none\n\nPicks.\n\n## Allowed Skills\n- gone\n"), "none/oskill.md")
	res = call(t, r.Tool(none), `{"prompt": "x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "skill_none: none of the skills it allows is served (gone)")

	p = &turns{} // the provider fails at once
	res = call(t, r.Tool(partial), `{"prompt": "x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "skill_pick: the session ended (provider_error)")

	r.Tools = callerOnly{reg}
	res = call(t, r.Tool(partial), `{"prompt": "x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "no tools to offer its session")
}

// callerOnly calls tools but cannot list them.
type callerOnly struct{ reg *host.Registry }

func (c callerOnly) Call(ctx context.Context, name string, in json.RawMessage) (*host.ToolResult, error) {
	return c.reg.Call(ctx, name, in)
}

// TestSessionNesting: a session's skills run inside its call: a skill
// that calls the session's oskill back is refused as a loop.
func TestSessionNesting(t *testing.T) {
	back, problems := mdskill.Parse([]byte("# back\n\nCalls the session back.\n\n## Orchestration\n```yaml\nsteps:\n  - tool: skill_outer\n    params: {prompt: again}\n```\n"), "back.oskill.md")
	require.NotNil(t, back, "%v", problems)
	outer, problems := mdskill.Parse([]byte("# outer\n\nUses back.\n\n## Allowed Skills\n- back\n"), "outer/oskill.md")
	require.NotNil(t, outer, "%v", problems)
	p := &turns{msgs: []agent.Message{
		{ToolCalls: []agent.ToolCall{{ID: "1", Name: "skill_back", Input: json.RawMessage(`{}`)}}},
		{Text: "gave up"},
	}}
	r := &Runner{Provider: func(string) (agent.Provider, error) { return p, nil }}
	reg := host.NewRegistry()
	require.NoError(t, reg.Add(r.Tool(back)))
	require.NoError(t, reg.Add(r.Tool(outer)))
	r.Tools = reg
	res := call(t, r.Tool(outer), `{"prompt": "go"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "gave up", res.Content)
	require.Len(t, p.reqs, 2)
	result := p.reqs[1].Messages[2].ToolResults[0]
	assert.True(t, result.IsError)
	assert.Contains(t, result.Content, "outer calls itself (outer → back → outer)")
}

// TestCodeKind: a cskill's model is told its sections and specs, and the
// code it writes runs in the sandbox on the input.
func TestCodeKind(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	s := loadFile(t, folders+"slugify/cskill.md")
	code := "```javascript\nreturn input.prompt.toLowerCase().replace(/[^a-z0-9]+/g, \"-\").replace(/^-+|-+$/g, \"\").slice(0, 48);\n```"
	p := &replies{texts: []string{code}}
	res := call(t, newRunner(t, p).Tool(s), `{"prompt": "Export button: broken since Monday!"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "export-button-broken-since-monday", res.Content)
	require.Len(t, p.reqs, 1)
	assert.Equal(t, s.CodePrompt(), p.reqs[0].System)
	assert.Contains(t, p.reqs[0].System, "# Specification specs/index.mjs.md")
}

// TestTableFolderFields: a folder tskill's columns keep what its ###
// fields say: the generated key is the row's id, a unique column refuses
// a second equal value, the enumeration and lengths are checked.
func TestTableFolderFields(t *testing.T) {
	ws, err := host.NewWorkspace(t.TempDir(), readWrite)
	require.NoError(t, err)
	r := &Runner{Workspace: ws, Timeout: 5 * time.Second}
	tool := r.Tool(loadFile(t, folders+"invoices/tskill.md"))
	res := call(t, tool, `{"operation": "insert", "values": {"customer": "ACME", "amount_cents": 1200, "status": "sent", "reference": "PO-1234"}}`)
	require.False(t, res.IsError, res.Content)
	assert.JSONEq(t, `{"id": 1}`, res.Content)

	for input, want := range map[string]string{
		`{"operation": "insert", "values": {"customer": "Beta", "amount_cents": 5, "reference": "PO-1234"}}`: "UNIQUE constraint failed",
		`{"operation": "insert", "values": {"customer": "Beta", "amount_cents": 5, "status": "lost"}}`:       `field status is one of ["draft","sent","paid"]`,
		`{"operation": "insert", "values": {"customer": "B", "amount_cents": 5}}`:                            "field customer is at least 2 characters",
		`{"operation": "insert", "values": {"customer": "Beta"}}`:                                            "values lack the required field(s) amount_cents",
		`{"operation": "update", "values": {"reference": "12"}, "where": {"id": 1}}`:                         "field reference must match",
		`{"operation": "insert", "values": {"invoice_id": 3, "customer": "Beta", "amount_cents": 5}}`:        `"invoice_id" is not a field of invoices`,
	} {
		res := call(t, tool, input)
		assert.True(t, res.IsError, input)
		assert.Contains(t, res.Content, want, input)
	}
	res = call(t, tool, `{"operation": "query", "where": {"status": "sent"}}`)
	require.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, `"customer":"ACME"`)
}
