package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// csvStats is the csv-stats example, copied and built once for the tests.
var csvStats struct {
	once sync.Once
	dir  string
	err  error
}

// exampleSkill returns a loaded copy of examples/csv-stats with its Go
// script built from source, and the examples workspace.
func exampleSkill(t *testing.T) (*skills.Skill, string) {
	t.Helper()
	csvStats.once.Do(func() {
		dir, err := os.MkdirTemp("", "skillrun-agent-test-")
		if err != nil {
			csvStats.err = err
			return
		}
		csvStats.dir = filepath.Join(dir, "csv-stats")
		if err := os.CopyFS(csvStats.dir, os.DirFS("../examples/csv-stats")); err != nil {
			csvStats.err = err
			return
		}
		// Built in its own module, the example's (a copy would do too).
		cmd := exec.Command("go", "build", "-o", filepath.Join(csvStats.dir, "scripts", "stats.wasm"), ".")
		cmd.Dir = "../examples/csv-stats/src/stats"
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			csvStats.err = fmt.Errorf("%s: %w\n%s", cmd, err, out)
		}
	})
	require.NoError(t, csvStats.err)
	s, err := skills.Load(csvStats.dir, nil)
	require.NoError(t, err)
	ws, err := filepath.Abs("../examples/workspace")
	require.NoError(t, err)
	return s, ws
}

var sharedRunner = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Sandbox: &sandbox.Options{NoCache: true}})
})

func newRunner(t *testing.T) *scripts.Runner {
	r, err := sharedRunner()
	require.NoError(t, err)
	return r
}

// scriptsOf runs a session's scripts as skillrun's front ends do
// (package toolset), over the workspace ws, with shell the shell tool's
// grant (zero: no shell tool) and auditor receiving the runs' events.
func scriptsOf(t *testing.T, ws string, shell capabilities.Set, auditor audit.Auditor) agent.Scripts {
	return scriptsWith(t, newRunner(t), ws, shell, auditor)
}

func scriptsWith(t *testing.T, r *scripts.Runner, ws string, shell capabilities.Set, auditor audit.Auditor) agent.Scripts {
	t.Helper()
	set, err := toolset.New(context.Background(), toolset.Of(nil), &toolset.Config{Runner: r, Workspace: ws, WorkspaceGrant: shell, Auditor: auditor})
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	return set
}

func plan(t *testing.T, src string) *agent.Plan {
	t.Helper()
	p, err := agent.ParsePlan([]byte(src), "plan.toml")
	require.NoError(t, err)
	return p
}

// readTranscript parses a transcript and checks that every line is one
// JSON event, numbered in order, the last a session_end.
func readTranscript(t *testing.T, data []byte) []agent.TranscriptEvent {
	t.Helper()
	var events []agent.TranscriptEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agent.TranscriptEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "line %q", sc.Text())
		require.Equal(t, int64(len(events)+1), e.Seq)
		events = append(events, e)
	}
	require.NotEmpty(t, events)
	require.Equal(t, agent.EventSessionStart, events[0].Type)
	require.Equal(t, agent.EventSessionEnd, events[len(events)-1].Type)
	return events
}

func ofType(events []agent.TranscriptEvent, typ agent.EventType) []agent.TranscriptEvent {
	var out []agent.TranscriptEvent
	for _, e := range events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// checkOneResultPerCall checks that every tool call the model made got
// exactly one result, in the transcript.
func checkOneResultPerCall(t *testing.T, events []agent.TranscriptEvent) {
	t.Helper()
	results := map[string]int{}
	for _, e := range ofType(events, agent.EventToolResult) {
		results[e.CallID]++
	}
	calls := 0
	for _, e := range ofType(events, agent.EventModelTurn) {
		for _, c := range e.ToolCalls {
			calls++
			assert.Equal(t, 1, results[c.ID], "call %s (%s) must have exactly one result", c.ID, c.Name)
		}
	}
	require.NotZero(t, calls, "the model made no calls: nothing was checked")
	assert.Len(t, results, calls)
}

const csvPlan = `
task = "Summarise sales.csv"

[[turn]]
text = "Let me find a skill for CSV files."
[[turn.call]]
tool = "skill_search"
input = { query = "csv statistics" }

[[turn]]
expect = ["csv-stats"]
[[turn.call]]
tool = "skill_activate"
input = { name = "csv-stats" }

[[turn]]
expect = ["csv-stats__stats"]
[[turn.call]]
tool = "csv-stats__stats"
input = { args = ["sales.csv"] }

[[turn]]
expect = ["10 rows", "74.63"]
text = "sales.csv has 10 rows; mean revenue is 74.63."
`

// TestSessionRunsSkillScript is the whole loop: the model searches the
// catalog, activates a skill (which offers its script), runs the real
// Wasm script on the workspace and answers.
func TestSessionRunsSkillScript(t *testing.T) {
	s, ws := exampleSkill(t)
	var buf bytes.Buffer
	var seen []agent.EventType
	var requests []*agent.Request
	prov := recording(agent.NewScripted(plan(t, csvPlan)), &requests)
	audit := &auditLog{}
	sess := &agent.Session{
		Provider: prov, Skills: []*skills.Skill{s}, Scripts: scriptsOf(t, ws, capabilities.Set{}, audit),
		Grant: func(string) capabilities.Set {
			return capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
		},
		Transcript: agent.NewTranscript(&buf),
		Observe:    func(e agent.TranscriptEvent) { seen = append(seen, e.Type) },
	}
	res, err := sess.Run(context.Background(), "Summarise sales.csv")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, "sales.csv has 10 rows; mean revenue is 74.63.", res.Text)

	events := readTranscript(t, buf.Bytes())
	assert.Len(t, seen, len(events), "the observer sees every event")
	checkOneResultPerCall(t, events)
	end := events[len(events)-1]
	assert.Equal(t, agent.OutcomeCompleted, end.Outcome)
	assert.Equal(t, 4, end.Totals.Turns)
	assert.Equal(t, 3, end.Totals.ToolCalls)
	assert.Zero(t, end.Totals.ToolErrors)
	assert.Positive(t, end.Totals.Usage.InputTokens)
	assert.Equal(t, res.Totals, *end.Totals)

	// The catalog is in the system prompt; the script is deferred until
	// the skill is activated.
	require.Len(t, requests, 4)
	assert.Contains(t, requests[0].System, "<name>\ncsv-stats\n</name>")
	assert.NotContains(t, toolNames(requests[0].Tools), "csv-stats__stats")
	assert.Contains(t, toolNames(requests[0].Tools), "skill_activate")
	assert.Contains(t, toolNames(requests[2].Tools), "csv-stats__stats")
	loaded := ofType(events, agent.EventToolsLoaded)
	require.Len(t, loaded, 1)
	assert.Equal(t, []string{"csv-stats__stats"}, loaded[0].Tools)
	assert.Equal(t, "skill_activate", loaded[0].Via)

	// The script ran in the sandbox, audited.
	assert.Contains(t, audit.String(), "run csv-stats:stats allow")
}

func toolNames(specs []agent.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// recording wraps a provider and keeps every request.
func recording(p agent.Provider, reqs *[]*agent.Request) agent.Provider {
	var mu sync.Mutex
	return providerFunc(func(ctx context.Context, r *agent.Request) (*agent.Response, error) {
		mu.Lock()
		*reqs = append(*reqs, r)
		mu.Unlock()
		return p.Complete(ctx, r)
	})
}

type providerFunc func(ctx context.Context, r *agent.Request) (*agent.Response, error)

func (providerFunc) Name() string { return "test" }
func (f providerFunc) Complete(ctx context.Context, r *agent.Request) (*agent.Response, error) {
	return f(ctx, r)
}

type auditLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (a *auditLog) Audit(_ context.Context, e audit.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.b.WriteString(e.Kind + " " + e.Value + " " + string(e.Decision) + "\n")
}

func (a *auditLog) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.b.String()
}

// TestSessionPermissions: a script that declares more than its grant is
// denied without an Asker, runs once with allow-once (asked again next
// time), and is asked only once with allow-always; every decision is in
// the transcript.
func TestSessionPermissions(t *testing.T) {
	s, ws := exampleSkill(t)
	const twoRuns = `
[[turn]]
[[turn.call]]
tool = "csv-stats__stats"
input = { args = ["sales.csv"] }
[[turn]]
[[turn.call]]
tool = "csv-stats__stats"
input = { args = ["sales.csv"] }
[[turn]]
text = "done"
`
	for _, tc := range []struct {
		name      string
		answer    agent.Answer // "" = no asker
		asks      int
		errors    int
		decisions []agent.Answer
	}{
		{"no terminal", "", 0, 2, []agent.Answer{agent.Deny, agent.Deny}},
		{"deny", agent.Deny, 2, 2, []agent.Answer{agent.Deny, agent.Deny}},
		{"once", agent.AllowOnce, 2, 0, []agent.Answer{agent.AllowOnce, agent.AllowOnce}},
		{"always", agent.AllowAlways, 1, 0, []agent.Answer{agent.AllowAlways}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var asks atomic.Int32
			sess := &agent.Session{
				Provider: agent.NewScripted(plan(t, twoRuns)), Skills: []*skills.Skill{s},
				Scripts: scriptsOf(t, ws, capabilities.Set{}, nil), Transcript: agent.NewTranscript(&buf),
			}
			if tc.answer != "" {
				sess.Asker = agent.AskerFunc(func(_ context.Context, req agent.PermissionRequest) (agent.Answer, error) {
					asks.Add(1)
					assert.Equal(t, "csv-stats", req.Skill)
					assert.Equal(t, "stats", req.Script)
					assert.Equal(t, []capabilities.Path{{Root: capabilities.RootWorkspace}}, req.Missing.Read)
					return tc.answer, nil
				})
			}
			res, err := sess.Run(context.Background(), "stats")
			require.NoError(t, err)
			assert.Equal(t, agent.OutcomeCompleted, res.Outcome)
			assert.Equal(t, tc.asks, int(asks.Load()))
			assert.Equal(t, tc.errors, res.Totals.ToolErrors)
			events := readTranscript(t, buf.Bytes())
			var decisions []agent.Answer
			for _, e := range ofType(events, agent.EventPermission) {
				decisions = append(decisions, e.Decision)
				assert.Equal(t, "read=workspace", e.Requested)
			}
			assert.Equal(t, tc.decisions, decisions)
			results := ofType(events, agent.EventToolResult)
			require.NotZero(t, res.Totals.ToolCalls)
			require.Len(t, results, res.Totals.ToolCalls, "one result record per call")
			for _, e := range results {
				if e.IsError {
					assert.Contains(t, e.Content, "--allow-read=workspace", "a denial names the flag")
					assert.Contains(t, e.Content, "did not run")
				} else {
					assert.Contains(t, e.Content, "10 rows")
				}
			}
		})
	}
}

// TestSessionToolFailuresGoBackToTheModel: an unknown tool, input that is
// not JSON, input the schema refuses, a failing script and a tool's own
// error all become error results; the session goes on.
func TestSessionToolFailuresGoBackToTheModel(t *testing.T) {
	s, ws := exampleSkill(t)
	reg := host.NewRegistry()
	require.NoError(t, reg.Add(&fakeTool{name: "flaky", result: host.ErrorResult("flaky: upstream said no")}))
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "no_such_tool"
[[turn.call]]
tool = "skill_activate"
input_json = '{"name": '
[[turn.call]]
tool = "skill_activate"
input = { name = 7 }
[[turn.call]]
tool = "csv-stats__stats"
input = { args = ["missing.csv"] }
[[turn.call]]
tool = "flaky"
[[turn]]
expect = ["unknown tool \"no_such_tool\"", "not valid JSON", "/name", "exited with status", "upstream said no"]
text = "I could not do it."
`)
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Skills: []*skills.Skill{s}, Scripts: scriptsOf(t, ws, capabilities.Set{}, nil),
		Grant: func(string) capabilities.Set {
			return capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
		},
		Tools: reg, Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "try things")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, 5, res.Totals.ToolErrors)
	events := readTranscript(t, buf.Bytes())
	checkOneResultPerCall(t, events)
	// Results are in call order.
	var order []string
	for _, e := range ofType(events, agent.EventToolResult) {
		order = append(order, e.CallID)
	}
	assert.Equal(t, []string{"call_1_1", "call_1_2", "call_1_3", "call_1_4", "call_1_5"}, order)
}

// fakeTool is a host.Tool with a fixed result, or a function.
type fakeTool struct {
	name     string
	parallel bool
	required string
	result   *host.ToolResult
	call     func(ctx context.Context) (*host.ToolResult, error)
}

func (f *fakeTool) Definition() host.ToolDef {
	return host.ToolDef{Name: f.name, Description: "test tool " + f.name, Source: host.SourceCore, Parallel: f.parallel, RequiredAgent: f.required}
}

func (f *fakeTool) Call(ctx context.Context, _ json.RawMessage) (*host.ToolResult, error) {
	if f.call != nil {
		return f.call(ctx)
	}
	return f.result, nil
}

func toolsOf(t *testing.T, tools ...host.Tool) *host.Registry {
	reg := host.NewRegistry()
	for _, tool := range tools {
		require.NoError(t, reg.Add(tool))
	}
	return reg
}

// repeatProvider calls the tool "ping" forever, with the turn number in
// the input unless same is set.
func repeatProvider(same bool) agent.Provider {
	return providerFunc(func(_ context.Context, r *agent.Request) (*agent.Response, error) {
		n := len(r.Messages)
		input := json.RawMessage(`{}`)
		if !same {
			input, _ = json.Marshal(map[string]int{"n": n})
		}
		return &agent.Response{
			Message:    agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c" + string(rune('a'+n%26)), Name: "ping", Input: input}}},
			StopReason: agent.StopToolUse, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10},
		}, nil
	})
}

// TestSessionStopConditions: each limit ends the session with its own
// outcome, after giving every call a result.
func TestSessionStopConditions(t *testing.T) {
	ping := &fakeTool{name: "ping", result: &host.ToolResult{Content: "pong"}}
	for _, tc := range []struct {
		name    string
		prov    agent.Provider
		limits  agent.Limits
		outcome agent.Outcome
		turns   int
	}{
		{"max turns", repeatProvider(false), agent.Limits{MaxTurns: 3}, agent.OutcomeMaxTurns, 3},
		{"loop", repeatProvider(true), agent.Limits{MaxTurns: 50}, agent.OutcomeLoop, 3},
		{"loop of 5", repeatProvider(true), agent.Limits{MaxTurns: 50, LoopRepeats: 5}, agent.OutcomeLoop, 5},
		{"max tokens", repeatProvider(false), agent.Limits{MaxTokens: 250}, agent.OutcomeMaxTokens, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			sess := &agent.Session{Provider: tc.prov, Tools: toolsOf(t, ping), Limits: tc.limits, Transcript: agent.NewTranscript(&buf)}
			res, err := sess.Run(context.Background(), "ping forever")
			require.NoError(t, err)
			assert.Equal(t, tc.outcome, res.Outcome)
			assert.Error(t, res.Err)
			assert.Equal(t, tc.turns, res.Totals.Turns)
			events := readTranscript(t, buf.Bytes())
			checkOneResultPerCall(t, events)
			assert.Equal(t, tc.outcome, events[len(events)-1].Outcome)
		})
	}
}

// TestSessionStopReasons: a reply cut at its token limit with nothing to
// run, or a refusal, ends the session with that outcome.
func TestSessionStopReasons(t *testing.T) {
	for reason, want := range map[agent.StopReason]agent.Outcome{
		agent.StopMaxTokens: agent.OutcomeTruncated,
		agent.StopRefusal:   agent.OutcomeRefused,
		agent.StopOther:     agent.OutcomeCompleted,
		agent.StopEndTurn:   agent.OutcomeCompleted,
	} {
		prov := providerFunc(func(context.Context, *agent.Request) (*agent.Response, error) {
			return &agent.Response{Message: agent.Message{Text: "partial"}, StopReason: reason}, nil
		})
		res, err := (&agent.Session{Provider: prov}).Run(context.Background(), "x")
		require.NoError(t, err)
		assert.Equal(t, want, res.Outcome, "stop reason %s", reason)
		assert.Equal(t, "partial", res.Text)
	}
}

// TestSessionCancelMidTool: cancelling while a tool runs ends the session
// as cancelled; the running call and the ones after it all get results.
func TestSessionCancelMidTool(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	slow := &fakeTool{name: "slow", call: func(ctx context.Context) (*host.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	after := &fakeTool{name: "after", result: &host.ToolResult{Content: "must not run"}}
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "slow"
[[turn.call]]
tool = "after"
[[turn]]
text = "never"
`)
	go func() { <-started; cancel() }()
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Tools: toolsOf(t, slow, after), Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(ctx, "go")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCancelled, res.Outcome)
	assert.ErrorIs(t, res.Err, context.Canceled)
	events := readTranscript(t, buf.Bytes())
	checkOneResultPerCall(t, events)
	results := ofType(events, agent.EventToolResult)
	require.Len(t, results, 2)
	assert.Contains(t, results[0].Content, "cancelled")
	assert.Contains(t, results[1].Content, "not run")
	assert.Equal(t, 1, res.Totals.Turns)
}

// TestSessionDeadline: the deadline ends a session stuck in a tool.
func TestSessionDeadline(t *testing.T) {
	stuck := &fakeTool{name: "stuck", call: func(ctx context.Context) (*host.ToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	p := plan(t, "[[turn]]\n[[turn.call]]\ntool = \"stuck\"\n[[turn]]\ntext = \"never\"\n")
	sess := &agent.Session{Provider: agent.NewScripted(p), Tools: toolsOf(t, stuck), Limits: agent.Limits{Deadline: 50 * time.Millisecond}}
	res, err := sess.Run(context.Background(), "go")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeDeadline, res.Outcome)
}

// TestSessionHostError: a tool failing as a host (not as a result) ends
// the session with host_error; the call still has its result.
func TestSessionHostError(t *testing.T) {
	broken := &fakeTool{name: "broken", call: func(context.Context) (*host.ToolResult, error) {
		return nil, errors.New("sandbox could not start")
	}}
	p := plan(t, "[[turn]]\n[[turn.call]]\ntool = \"broken\"\n[[turn]]\ntext = \"never\"\n")
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Tools: toolsOf(t, broken), Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "go")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeHostError, res.Outcome)
	assert.ErrorContains(t, res.Err, "sandbox could not start")
	checkOneResultPerCall(t, readTranscript(t, buf.Bytes()))
}

// TestSessionParallelCalls: tools that allow it run at the same time
// (each waits for the other), and results stay in call order.
func TestSessionParallelCalls(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	mk := func(name string) host.Tool {
		return &fakeTool{name: name, parallel: true, call: func(ctx context.Context) (*host.ToolResult, error) {
			arrived.Done()
			select {
			case <-both:
				return &host.ToolResult{Content: name + " done"}, nil
			case <-time.After(10 * time.Second):
				return host.ErrorResult(name + ": the other call never ran alongside"), nil
			}
		}}
	}
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "second"
[[turn.call]]
tool = "first"
[[turn]]
expect = ["second done\nfirst done"]
text = "ok"
`)
	sess := &agent.Session{Provider: agent.NewScripted(p), Tools: toolsOf(t, mk("first"), mk("second"))}
	res, err := sess.Run(context.Background(), "go")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Zero(t, res.Totals.ToolErrors)
}

// TestSessionRetries: rate limits and server errors are retried (each
// retry in the transcript); auth and malformed replies end the session.
func TestSessionRetries(t *testing.T) {
	fail := func(errs ...error) (agent.Provider, *atomic.Int32) {
		var calls atomic.Int32
		return providerFunc(func(context.Context, *agent.Request) (*agent.Response, error) {
			n := int(calls.Add(1))
			if n <= len(errs) {
				return nil, errs[n-1]
			}
			return &agent.Response{Message: agent.Message{Text: "ok"}, StopReason: agent.StopEndTurn}, nil
		}), &calls
	}
	perr := func(k agent.ErrorKind, status int) error {
		return &agent.ProviderError{Provider: "test", Kind: k, Status: status, Message: "nope"}
	}
	fast := agent.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	for _, tc := range []struct {
		name    string
		errs    []error
		outcome agent.Outcome
		calls   int
		retries int
	}{
		{"429 then 500 then ok", []error{perr(agent.ErrRateLimit, 429), perr(agent.ErrServer, 500)}, agent.OutcomeCompleted, 3, 2},
		{"connection lost", []error{perr(agent.ErrConnection, 0)}, agent.OutcomeCompleted, 2, 1},
		{"attempts spent", []error{perr(agent.ErrServer, 503), perr(agent.ErrServer, 503), perr(agent.ErrServer, 503), perr(agent.ErrServer, 503)}, agent.OutcomeProviderError, 4, 3},
		{"auth", []error{perr(agent.ErrAuth, 401)}, agent.OutcomeAuthError, 1, 0},
		{"malformed", []error{perr(agent.ErrMalformed, 200)}, agent.OutcomeProviderError, 1, 0},
		{"bad request", []error{perr(agent.ErrBadRequest, 400)}, agent.OutcomeProviderError, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prov, calls := fail(tc.errs...)
			var buf bytes.Buffer
			sess := &agent.Session{Provider: prov, Retry: fast, Transcript: agent.NewTranscript(&buf)}
			res, err := sess.Run(context.Background(), "x")
			require.NoError(t, err)
			assert.Equal(t, tc.outcome, res.Outcome)
			assert.Equal(t, tc.calls, int(calls.Load()))
			assert.Len(t, ofType(readTranscript(t, buf.Bytes()), agent.EventRetry), tc.retries)
		})
	}

	// Retry-After is honoured (capped by MaxDelay), and cancelling
	// during the wait ends the session at once.
	prov, _ := fail(&agent.ProviderError{Kind: agent.ErrRateLimit, RetryAfter: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	sess := &agent.Session{Provider: prov, Retry: agent.RetryPolicy{MaxDelay: time.Hour},
		Observe: func(e agent.TranscriptEvent) {
			if e.Type == agent.EventRetry {
				assert.Equal(t, time.Hour.Milliseconds(), e.WaitMS)
				cancel()
			}
		}}
	res, err := sess.Run(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCancelled, res.Outcome)
}

// TestSessionAgentScope: an agent's tools list limits what it may call,
// and a tool bound to another agent refuses it.
func TestSessionAgentScope(t *testing.T) {
	s, ws := exampleSkill(t)
	def, err := agent.ParseDefinition([]byte("---\nname: reader\ndescription: Reads.\ntools: [ping, reviewer_only]\n---\nYou read."), "reader.md", agent.SourceUser, "")
	require.NoError(t, err)
	ping := &fakeTool{name: "ping", result: &host.ToolResult{Content: "pong"}}
	bound := &fakeTool{name: "reviewer_only", required: "reviewer", result: &host.ToolResult{Content: "secret"}}
	var reqs []*agent.Request
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "skill_activate"
input = { name = "csv-stats" }
[[turn.call]]
tool = "reviewer_only"
[[turn.call]]
tool = "ping"
[[turn]]
expect = ["not available to agent reader", "reviewer", "pong"]
text = "ok"
`)
	sess := &agent.Session{Provider: recording(agent.NewScripted(p), &reqs), Agent: def, Skills: []*skills.Skill{s},
		Scripts: scriptsOf(t, ws, capabilities.Set{}, nil), Tools: toolsOf(t, ping, bound)}
	res, err := sess.Run(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, 2, res.Totals.ToolErrors)
	assert.Equal(t, []string{"ping", "reviewer_only"}, toolNames(reqs[0].Tools))
	assert.True(t, strings.HasPrefix(reqs[0].System, "You read."), "the agent's prompt is the system prompt")
	assert.NotContains(t, reqs[0].System, "<available_skills>", "no catalog for an agent that cannot activate skills")

	// An agent naming a tool that does not exist cannot start.
	def.Tools = []string{"ping", "nope"}
	_, err = sess.Run(context.Background(), "x")
	var unknown *agent.UnknownToolsError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, []string{"nope"}, unknown.Names)
}

// TestSessionAllow: a session's Allow keeps only the tools it accepts;
// the others are neither offered nor callable.
func TestSessionAllow(t *testing.T) {
	ping := &fakeTool{name: "ping", result: &host.ToolResult{Content: "pong"}}
	pong := &fakeTool{name: "pong", result: &host.ToolResult{Content: "ping"}}
	var reqs []*agent.Request
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "pong"
[[turn.call]]
tool = "ping"
[[turn]]
expect = ["pong"]
text = "ok"
`)
	sess := &agent.Session{Provider: recording(agent.NewScripted(p), &reqs), Tools: toolsOf(t, ping, pong),
		Allow: func(d host.ToolDef) bool { return d.Name == "ping" }}
	res, err := sess.Run(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, []string{"ping"}, toolNames(reqs[0].Tools))
	assert.Equal(t, 1, res.Totals.ToolErrors, "the call of pong fails")
}

// TestSessionToolSearch: with many MCP tools, they are deferred and found
// through tool_search, which offers them from then on.
func TestSessionToolSearch(t *testing.T) {
	var tools []host.Tool
	for i := range agent.MaxEagerMCPTools + 4 {
		name := host.MCPToolName("srv", "tool"+string(rune('a'+i)))
		tools = append(tools, &mcpTool{name: name, desc: "does thing " + string(rune('a'+i))})
	}
	tools = append(tools, &mcpTool{name: host.MCPToolName("srv", "weather"), desc: "Current weather forecast for a city"})
	var reqs []*agent.Request
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "tool_search"
input = { query = "weather forecast" }
[[turn]]
expect = ["mcp__srv__weather"]
text = "found it"
`)
	var buf bytes.Buffer
	sess := &agent.Session{Provider: recording(agent.NewScripted(p), &reqs), Tools: toolsOf(t, tools...), Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "weather?")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, []string{"tool_search"}, toolNames(reqs[0].Tools))
	assert.Contains(t, toolNames(reqs[1].Tools), "mcp__srv__weather")
	loaded := ofType(readTranscript(t, buf.Bytes()), agent.EventToolsLoaded)
	require.Len(t, loaded, 1)
	assert.Equal(t, "mcp__srv__weather", loaded[0].Tools[0])
}

type mcpTool struct{ name, desc string }

func (m *mcpTool) Definition() host.ToolDef {
	return host.ToolDef{Name: m.name, Description: m.desc, Source: host.SourceMCP, Plugin: "srv"}
}
func (m *mcpTool) Call(context.Context, json.RawMessage) (*host.ToolResult, error) {
	return &host.ToolResult{Content: m.desc}, nil
}

// TestTranscriptWrittenAsItHappens: each event is on disk before the next
// one is made, so a killed session leaves everything up to that moment.
func TestTranscriptWrittenAsItHappens(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "transcript.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	defer f.Close()
	var lines []int
	sess := &agent.Session{
		Provider:   agent.NewScripted(plan(t, "[[turn]]\n[[turn.call]]\ntool = \"tool_search\"\ninput = { query = \"x\" }\n[[turn]]\ntext = \"ok\"\n")),
		Transcript: agent.NewTranscript(f),
		Observe: func(agent.TranscriptEvent) {
			data, err := os.ReadFile(f.Name())
			require.NoError(t, err)
			lines = append(lines, bytes.Count(data, []byte("\n")))
		},
	}
	_, err = sess.Run(context.Background(), "x")
	require.NoError(t, err)
	// start, turn, call, result, turn, end: a loop over nothing would pass.
	require.Len(t, lines, 6)
	for i, n := range lines {
		assert.Equal(t, i+1, n, "event %d is on disk when observed", i+1)
	}
}

// composerSkill is a skill whose script calls a tool and another skill
// through the host (agent/testdata/guests/compose), declaring both.
func composerSkill(t *testing.T) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "composer")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "scripts", "compose.wasm"), "./testdata/guests/compose")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: composer\ndescription: Calls other tools and skills.\n---\nCompose.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.toml"), []byte("version = 1\n[capabilities]\nread = [\"workspace\"]\ntools = [\"workspace_list\"]\nskills = [\"csv-stats\"]\n[scripts.call]\nmodule = \"scripts/compose.wasm\"\n"), 0o644))
	s, err := skills.Load(dir, nil)
	require.NoError(t, err)
	return s
}

// TestSessionScriptsCompose: a script run as a tool in a session reaches
// the session's tools and other skills through the host, each only as its
// grant allows; the skill it runs gets its own grant, not the caller's.
func TestSessionScriptsCompose(t *testing.T) {
	stats, ws := exampleSkill(t)
	composer := composerSkill(t)
	core, err := host.CoreTools(ws, capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}})
	require.NoError(t, err)
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "composer__call"
input = { tool = "workspace_list", tool_input = {} }
[[turn.call]]
tool = "composer__call"
input = { skill = "csv-stats", script = "stats", input = { args = ["sales.csv"] } }
[[turn.call]]
tool = "composer__call"
input = { tool = "workspace_write", tool_input = { path = "x", content = "y" } }
[[turn]]
expect = ["sales.csv", "10 rows", "denied"]
text = "composed"
`)
	grants := map[string]capabilities.Set{
		// The composer lists the workspace with its own read grant: a core
		// tool it calls acts with the script's grant, not the session's.
		"composer":  {Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}, Tools: []string{"workspace_list"}, Skills: []string{"csv-stats"}},
		"csv-stats": {Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}},
	}
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Skills: []*skills.Skill{stats, composer}, Scripts: scriptsOf(t, ws, capabilities.Set{}, nil), Grant: func(s string) capabilities.Set { return grants[s] }, Tools: toolsOf(t, core...),
		Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "compose")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v\n%s", res.Err, buf.String())
	assert.Equal(t, 1, res.Totals.ToolErrors, "the ungranted tool_call fails")

	// Without csv-stats' own grant, the nested run does not see the
	// workspace, whatever the composer may do.
	delete(grants, "csv-stats")
	p2 := plan(t, `
[[turn]]
[[turn.call]]
tool = "composer__call"
input = { skill = "csv-stats", script = "stats", input = { args = ["sales.csv"] } }
[[turn]]
expect = ["no such file in the workspace"]
text = "refused"
`)
	sess.Provider = agent.NewScripted(p2)
	res, err = sess.Run(context.Background(), "compose")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, 1, res.Totals.ToolErrors)
}

// TestSessionHostileReplies: a reply asking for more tool calls than a
// turn allows gets the rest dropped (not run, not kept, one calls_dropped
// record and one note to the model), and a huge tool input is cut in the
// transcript, whose lines stay valid JSON and bounded.
func TestSessionHostileReplies(t *testing.T) {
	var calls atomic.Int32
	ping := &fakeTool{name: "ping", parallel: true, call: func(context.Context) (*host.ToolResult, error) {
		calls.Add(1)
		return &host.ToolResult{Content: "pong"}, nil
	}}
	huge := `{"blob":"` + strings.Repeat("x", agent.MaxTranscriptContent*2) + `"}`
	var second *agent.Request
	prov := providerFunc(func(_ context.Context, r *agent.Request) (*agent.Response, error) {
		if len(r.Messages) > 1 {
			second = r
			return &agent.Response{Message: agent.Message{Text: "ok"}, StopReason: agent.StopEndTurn}, nil
		}
		var tc []agent.ToolCall
		for i := range 70 {
			tc = append(tc, agent.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "ping", Input: json.RawMessage(`{}`)})
		}
		tc[0].Input = json.RawMessage(huge)
		return &agent.Response{Message: agent.Message{ToolCalls: tc}, StopReason: agent.StopToolUse}, nil
	})
	var buf bytes.Buffer
	res, err := (&agent.Session{Provider: prov, Tools: toolsOf(t, ping), Transcript: agent.NewTranscript(&buf)}).Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, res.Outcome)
	limit := agent.DefaultLimits.MaxCallsPerTurn
	assert.Equal(t, int32(limit), calls.Load())
	assert.Equal(t, limit, res.Totals.ToolCalls)
	assert.Equal(t, 70-limit, res.Totals.DroppedCalls)
	events := readTranscript(t, buf.Bytes())
	checkOneResultPerCall(t, events)
	require.Len(t, ofType(events, agent.EventToolResult), limit, "the dropped calls get no result records")
	dropped := ofType(events, agent.EventCallsDropped)
	require.Len(t, dropped, 1)
	assert.Equal(t, 70-limit, dropped[0].Dropped)
	turns := ofType(events, agent.EventModelTurn)
	require.Len(t, turns, 2)
	assert.Len(t, turns[0].ToolCalls, limit)
	assert.Equal(t, 70-limit, turns[0].Dropped)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, len(events))
	for _, line := range lines {
		assert.Less(t, len(line), agent.MaxTranscriptRecord, "a transcript line is bounded")
	}
	// The model sees only the calls that ran, each with its result, and
	// the note on the last result.
	require.NotNil(t, second)
	require.Len(t, second.Messages, 3)
	assert.Len(t, second.Messages[1].ToolCalls, limit)
	require.Len(t, second.Messages[2].ToolResults, limit)
	assert.Contains(t, second.Messages[2].ToolResults[limit-1].Content, "6 more tool calls of this reply were dropped")
}

// TestSessionSkillRun: skill_run runs a script by skill and script name
// through its own tool (same grant, permissions and schema), and names
// what is wrong otherwise.
func TestSessionSkillRun(t *testing.T) {
	s, ws := exampleSkill(t)
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "skill_run"
input = { skill = "csv-stats", args = ["sales.csv"] }
[[turn.call]]
tool = "skill_run"
input = { skill = "csv-stats", script = "nope" }
[[turn.call]]
tool = "skill_run"
input = { skill = "nope" }
[[turn.call]]
tool = "skill_run"
input = { skill = "csv-stats", script = "stats", input = { args = ["missing.csv"] } }
[[turn]]
expect = ["10 rows", "has no script \"nope\"; its scripts: stats", "no skill \"nope\"", "exited with status"]
text = "ran"
`)
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(p), Skills: []*skills.Skill{s}, Scripts: scriptsOf(t, ws, capabilities.Set{}, nil),
		Grant: func(string) capabilities.Set {
			return capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
		},
		Transcript: agent.NewTranscript(&buf)}
	res, err := sess.Run(context.Background(), "run")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v\n%s", res.Err, buf.String())
	assert.Equal(t, 3, res.Totals.ToolErrors)

	// Without the grant and without a terminal, skill_run is denied like
	// the script's own tool.
	sess.Grant = nil
	sess.Provider = agent.NewScripted(plan(t, `
[[turn]]
[[turn.call]]
tool = "skill_run"
input = { skill = "csv-stats", args = ["sales.csv"] }
[[turn]]
expect = ["--allow-read=workspace", "did not run"]
text = "denied"
`))
	buf.Reset()
	sess.Transcript = agent.NewTranscript(&buf)
	res, err = sess.Run(context.Background(), "run")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Len(t, ofType(readTranscript(t, buf.Bytes()), agent.EventPermission), 1)
}

// TestTranscriptTwoRuns: a Session run twice on one Transcript continues
// it: two session_start/session_end pairs, numbered on.
func TestTranscriptTwoRuns(t *testing.T) {
	var buf bytes.Buffer
	sess := &agent.Session{Provider: agent.NewScripted(plan(t, "[[turn]]\ntext = \"ok\"\n")), Transcript: agent.NewTranscript(&buf)}
	for range 2 {
		res, err := sess.Run(context.Background(), "x")
		require.NoError(t, err)
		require.Equal(t, agent.OutcomeCompleted, res.Outcome)
	}
	events := readTranscript(t, buf.Bytes())
	assert.Len(t, ofType(events, agent.EventSessionStart), 2)
	assert.Len(t, ofType(events, agent.EventSessionEnd), 2)
}

// mdTool is a Markdown skill's tool (skill_<name>).
type mdTool struct{ name, desc string }

func (m *mdTool) Definition() host.ToolDef {
	return host.ToolDef{Name: m.name, Description: m.desc, Source: host.SourceMarkdown, Plugin: strings.TrimPrefix(m.name, "skill_")}
}
func (m *mdTool) Call(context.Context, json.RawMessage) (*host.ToolResult, error) {
	return &host.ToolResult{Content: "done: " + m.desc}, nil
}

// TestSessionMarkdownSkillsDeferred: Markdown skills are offered like
// scripts: not at first, found by tool_search, callable when in scope.
func TestSessionMarkdownSkillsDeferred(t *testing.T) {
	var reqs []*agent.Request
	p := plan(t, `
[[turn]]
[[turn.call]]
tool = "tool_search"
input = { query = "summarise a text" }
[[turn]]
expect = ["skill_summarize"]
[[turn.call]]
tool = "skill_summarize"
input = {}
[[turn]]
expect = ["done: Summarise a text"]
text = "ok"
`)
	sess := &agent.Session{Provider: recording(agent.NewScripted(p), &reqs),
		Tools: toolsOf(t, &mdTool{name: "skill_summarize", desc: "Summarise a text in sentences."})}
	res, err := sess.Run(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v", res.Err)
	assert.Equal(t, []string{"tool_search"}, toolNames(reqs[0].Tools), "deferred at first")
	assert.Contains(t, toolNames(reqs[2].Tools), "skill_summarize", "offered once found")
}
