package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
)

func TestParsePlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"empty", ``, []string{"plan.toml: plan has no turns"}},
		{"not toml", "[[turn]\n", []string{"plan.toml:2: invalid TOML"}},
		{"unknown top key", "tsk = \"x\"\n[[turn]]\ntext = \"hi\"\n", []string{`plan.toml:1: unknown key "tsk"; did you mean "task"?`}},
		{"unknown turn key", "[[turn]]\ntxt = \"hi\"\n", []string{`plan.toml:2: unknown key "turn.txt"; did you mean "text"?`}},
		{"unknown call key", "[[turn]]\n[[turn.call]]\ntool = \"a\"\ninptu = {}\n", []string{`plan.toml:4: unknown key "turn.call.inptu"; did you mean "input"?`}},
		{"no tool", "[[turn]]\n[[turn.call]]\ninput = {}\n", []string{"turn 1 call 1: no tool"}},
		{"both inputs", "[[turn]]\n[[turn.call]]\ntool = \"a\"\ninput = {}\ninput_json = \"{}\"\n", []string{"give input or input_json, not both"}},
		{"too big", "text = \"" + strings.Repeat("x", agent.MaxPlanSize) + "\"", []string{"larger than the limit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := agent.ParsePlan([]byte(tc.src), "plan.toml")
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// Any keys inside an input table; usage overrides the estimate.
	p, err := agent.ParsePlan([]byte("[[turn]]\nusage = { input_tokens = 7, output_tokens = 3 }\n[[turn.call]]\ntool = \"a\"\ninput = { anything = { deep = [1, 2] } }\n"), "plan.toml")
	require.NoError(t, err)
	resp, err := agent.NewScripted(p).Complete(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Text: "go"}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"anything":{"deep":[1,2]}}`, string(resp.Message.ToolCalls[0].Input))
	assert.Equal(t, agent.StopToolUse, resp.StopReason)
	assert.Equal(t, agent.Usage{InputTokens: 7, OutputTokens: 3}, resp.Usage)
}

// TestScriptedExpectAndOverrun: a turn whose expectation fails, and a
// session that asks for more turns than the plan has, end the session as
// a provider error naming the plan.
func TestScriptedExpectAndOverrun(t *testing.T) {
	p, err := agent.ParsePlan([]byte("[[turn]]\n[[turn.call]]\ntool = \"tool_search\"\ninput = { query = \"x\" }\n[[turn]]\nexpect = [\"never there\"]\ntext = \"ok\"\n"), "demo.toml")
	require.NoError(t, err)
	res, err := (&agent.Session{Provider: agent.NewScripted(p)}).Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeProviderError, res.Outcome)
	assert.ErrorContains(t, res.Err, `demo.toml: turn 2 expects "never there"`)

	p, err = agent.ParsePlan([]byte("[[turn]]\n[[turn.call]]\ntool = \"tool_search\"\ninput = { query = \"x\" }\n"), "short.toml")
	require.NoError(t, err)
	res, err = (&agent.Session{Provider: agent.NewScripted(p)}).Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeProviderError, res.Outcome)
	assert.ErrorContains(t, res.Err, "short.toml: the plan has 1 turns and the session asked for turn 2")
}

// FuzzParsePlan: any input parses or fails with an error; a plan that
// parses replays without panicking.
func FuzzParsePlan(f *testing.F) {
	f.Add([]byte("task = \"t\"\n[[turn]]\ntext = \"hi\"\n"))
	f.Add([]byte("[[turn]]\n[[turn.call]]\ntool = \"a\"\ninput = { x = [1, {y = 2}] }\n[[turn]]\nexpect = [\"z\"]\n"))
	f.Add([]byte("[[turn]]\n[[turn.call]]\ntool = \"a\"\ninput_json = '{'\nusage = { input_tokens = 1 }\n"))
	f.Add([]byte(`{"task": "t", "turns": [{"calls": [{"tool": "a", "input": {"x": [1]}}]}, {"text": "ok"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := agent.ParsePlan(data, "fuzz.toml")
		if err != nil {
			return
		}
		prov := agent.NewScripted(p)
		req := &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Text: "x"}}}
		for range len(p.Turns) + 1 {
			resp, err := prov.Complete(context.Background(), req)
			if err != nil {
				return
			}
			req.Messages = append(req.Messages, resp.Message)
		}
	})
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestTranscriptWriteFailure: a transcript that cannot be written does not
// stop the session; the error is kept for the caller.
func TestTranscriptWriteFailure(t *testing.T) {
	p, err := agent.ParsePlan([]byte("[[turn]]\ntext = \"ok\"\n"), "p.toml")
	require.NoError(t, err)
	tr := agent.NewTranscript(failingWriter{})
	res, err := (&agent.Session{Provider: agent.NewScripted(p), Transcript: tr}).Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, res.Outcome)
	assert.ErrorContains(t, tr.Err(), "disk full")
}

// TestParsePlanJSON: the JSON form means the same as the TOML form, and
// its mistakes are named.
func TestParsePlanJSON(t *testing.T) {
	fromTOML, err := agent.ParsePlan([]byte(`task = "t"
[[turn]]
text = "searching"
[[turn.call]]
tool = "skill_search"
input = { query = "csv" }
[[turn]]
expect = ["csv-stats"]
text = "done"
`), "p.toml")
	require.NoError(t, err)
	fromJSON, err := agent.ParsePlan([]byte(`  {"task": "t", "turns": [
  {"text": "searching", "calls": [{"tool": "skill_search", "input": {"query": "csv"}}]},
  {"expect": ["csv-stats"], "text": "done"}]}`), "p.json")
	require.NoError(t, err)
	req := &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Text: "t"}}}
	a, err := agent.NewScripted(fromTOML).Complete(context.Background(), req)
	require.NoError(t, err)
	b, err := agent.NewScripted(fromJSON).Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Equal(t, "t", fromJSON.Task)
	assert.Equal(t, []string{"csv-stats"}, fromJSON.Turns[1].Expect)

	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "{\"turns\": [\n{\"text\": }]}", "p.json:2: invalid JSON"},
		{"unknown field", `{"turns": [{"txt": "x"}]}`, `unknown field "txt"`},
		{"no turns", `{"task": "t"}`, "plan has no turns"},
		{"input not an object", `{"turns": [{"calls": [{"tool": "a", "input": [1]}]}]}`, "input must be a JSON object"},
		{"both inputs", `{"turns": [{"calls": [{"tool": "a", "input": {}, "input_json": "{"}]}]}`, "give input or input_json, not both"},
		{"no tool", `{"turns": [{"calls": [{"input": {}}]}]}`, "turn 1 call 1: no tool"},
	} {
		_, err := agent.ParsePlan([]byte(tc.src), "p.json")
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
}
