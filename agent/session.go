package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Outcome says how a session ended.
type Outcome string

const (
	// OutcomeCompleted: the model finished its answer.
	OutcomeCompleted Outcome = "completed"
	// OutcomeMaxTurns: the model was called [Limits.MaxTurns] times.
	OutcomeMaxTurns Outcome = "max_turns"
	// OutcomeMaxTokens: the session spent [Limits.MaxTokens].
	OutcomeMaxTokens Outcome = "max_tokens"
	// OutcomeTruncated: a reply hit its token limit with no tool call in
	// it, so there is nothing to continue with.
	OutcomeTruncated Outcome = "truncated"
	// OutcomeRefused: the model declined.
	OutcomeRefused Outcome = "refused"
	// OutcomeLoop: the model repeated the same calls with the same results
	// [Limits.LoopRepeats] turns in a row.
	OutcomeLoop Outcome = "loop"
	// OutcomeDeadline: [Limits.Deadline] passed.
	OutcomeDeadline Outcome = "deadline"
	// OutcomeCancelled: the caller cancelled the session (Ctrl-C).
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeAuthError: the provider refused the key.
	OutcomeAuthError Outcome = "auth_error"
	// OutcomeProviderError: the provider failed in a way retries did not
	// fix, or its reply was malformed.
	OutcomeProviderError Outcome = "provider_error"
	// OutcomeHostError: the host itself failed running a tool (the
	// sandbox could not start a script, a tool broke), as opposed to a
	// tool reporting an error, which goes back to the model.
	OutcomeHostError Outcome = "host_error"
)

// Limits bound a session. Zero fields take the defaults in parentheses.
type Limits struct {
	// MaxTurns is the most calls to the model (20).
	MaxTurns int
	// MaxTokens is the most tokens of every kind, summed over the
	// session (no limit).
	MaxTokens int64
	// Deadline is the longest the session may take (no limit; the
	// caller's context may still end it).
	Deadline time.Duration
	// LoopRepeats is how many turns in a row with the same tool calls
	// and the same results end the session as a loop (3).
	LoopRepeats int
	// MaxParallel bounds the tool calls of one turn run at once (4).
	MaxParallel int
	// MaxCallsPerTurn bounds the tool calls of one reply that are run
	// (64). Model output is untrusted and a reply could ask for
	// thousands: the rest are dropped, not only left unrun. They are not
	// kept in the history re-sent to the model (the last result kept
	// carries one note saying how many were dropped) and the transcript
	// gets one calls_dropped record for them all.
	MaxCallsPerTurn int
	// MaxHistoryBytes bounds the conversation re-sent to the model each
	// turn: the text, tool inputs and tool results of every message (4
	// MiB). Over it, the oldest turns are dropped first (the task is
	// kept, with a note), then the latest turn's largest parts are cut.
	MaxHistoryBytes int
	// MaxReplyTokens bounds each reply (the provider's default).
	MaxReplyTokens int
}

// DefaultLimits are the limits a zero [Limits] stands for.
var DefaultLimits = Limits{MaxTurns: 20, LoopRepeats: 3, MaxParallel: 4, MaxCallsPerTurn: 64, MaxHistoryBytes: 4 << 20}

func (l Limits) withDefaults() Limits {
	if l.MaxTurns <= 0 {
		l.MaxTurns = DefaultLimits.MaxTurns
	}
	if l.LoopRepeats <= 0 {
		l.LoopRepeats = DefaultLimits.LoopRepeats
	}
	if l.MaxParallel <= 0 {
		l.MaxParallel = DefaultLimits.MaxParallel
	}
	if l.MaxCallsPerTurn <= 0 {
		l.MaxCallsPerTurn = DefaultLimits.MaxCallsPerTurn
	}
	if l.MaxHistoryBytes <= 0 {
		l.MaxHistoryBytes = DefaultLimits.MaxHistoryBytes
	}
	return l
}

// A Session is an agent loop: the model gets the task, the agent's
// system prompt with the skills catalog (level 1), and tools; it calls
// tools, gets their results, and goes on until it answers or a limit
// ends the session. Everything that happens is a [TranscriptEvent] in the
// transcript.
//
// The tools are: skill_search, skill_activate and skill_read (levels 1 to
// 3 of progressive disclosure, when there are skills), every script of
// every skill as "<skill>__<script>" (run in the sandbox under the grant
// Grant gives its skill) and skill_run, which runs any of them by skill
// and script name, the tools of Tools (core workspace tools, MCP
// tools), and tool_search when some tools are deferred. Without an
// explicit tools list in the agent's definition, skill scripts are
// deferred until their skill is activated (or found by tool_search), and
// so are MCP tools when there are more than 16; a
// deferred tool that is in scope may still be called.
//
// Set the fields, then call Run; a Session may be run more than once, one
// run at a time.
type Session struct {
	Provider Provider
	// Agent is who the model is told it is; nil means the builtin
	// "general" agent. Its tools list scopes the tools, its model,
	// temperature and reasoning effort are used unless Model overrides
	// the model.
	Agent *Definition
	Model string

	// Skills are the skills in the catalog.
	Skills []*skills.Skill
	// Scripts makes the tools that run the skills' scripts and the shell
	// tool (nil: skills are instructions only). A session runs no script
	// itself: package toolset makes these for skillrun's front ends.
	Scripts Scripts
	// Grant says what the operator grants each skill's scripts (nil:
	// nothing). A call of a script that declares more asks Asker, or is
	// denied when Asker is nil.
	Grant func(skill string) capabilities.Set
	Asker Asker

	// Tools are the other tools the model may call: core workspace tools,
	// tools bridged from MCP servers. Names must not collide with the
	// session's own tools. Scripts reach them through tool_call too, as
	// their grant's tools list allows.
	Tools *host.Registry

	// Allow, if set, keeps only the tools it accepts among those the
	// agent's scope gives (tool_search excepted): the rest are neither
	// offered nor callable. A benchmark's plugin set says which tools a
	// trial may use.
	Allow func(host.ToolDef) bool

	Limits Limits
	Retry  RetryPolicy
	// Transcript receives every event (nil: none).
	Transcript *Transcript
	// Observe, if set, sees every event as it is recorded (a live view).
	// It is called from the session's goroutines, one event at a time.
	Observe func(TranscriptEvent)

	// Skipped is what the caller left out of Tools because it was broken
	// (an MCP server that did not start, a tool whose name the registry
	// refused); each is recorded as a tool_skipped event after
	// session_start, beside the tools the session itself leaves out.
	Skipped []Skip
	// Logger receives a warning for each tool the session leaves out
	// (nil: discard).
	Logger *slog.Logger
}

// A Skip is a tool, or a whole MCP server, left out of a session because
// it is broken: the session goes on without it.
type Skip struct {
	// Name is the tool's name, or "mcp server NAME".
	Name string
	// Reason says what was wrong.
	Reason string
}

func (s *Session) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// A Result is how a session ended.
type Result struct {
	Outcome Outcome
	// Text is the model's last text.
	Text   string
	Totals Totals
	// Err is the cause of an outcome other than completed.
	Err error
}

// maxEagerMCPTools is the most MCP tools offered up front; with more,
// they are found through tool_search.
const maxEagerMCPTools = 16

// Names of the session's own tools. The disclosure tools are host's
// ([host.DisclosureTools]), the same in `skillrun mcp`.
const (
	toolSkillSearch   = host.ToolSkillSearch
	toolSkillActivate = host.ToolSkillActivate
	toolSkillRead     = host.ToolSkillRead
	toolSkillRun      = "skill_run"
	toolSearch        = "tool_search"
)

// errDeadline is the cause of a session context that passed its deadline.
var errDeadline = errors.New("session deadline passed")

// Run runs the session on task until it ends, and returns how. The error
// is for a session that cannot start (no provider, a tools list naming
// unknown tools); a tool that cannot be offered (its name is refused or
// taken) is left out with a tool_skipped event, and every failure after
// the start is an outcome, recorded in the transcript's session_end.
func (s *Session) Run(ctx context.Context, task string) (*Result, error) {
	if s.Provider == nil {
		return nil, errors.New("agent: session has no provider")
	}
	if strings.TrimSpace(task) == "" {
		return nil, errors.New("agent: empty task")
	}
	r, err := s.newRun()
	if err != nil {
		return nil, err
	}
	limits := s.Limits.withDefaults()
	if limits.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, limits.Deadline, errDeadline)
		defer cancel()
	}
	r.limits = limits
	return r.loop(ctx, task), nil
}

// run is the state of one [Session.Run].
type run struct {
	s      *Session
	def    *Definition
	limits Limits
	tr     *Transcript
	reg    *host.Registry
	scope  map[string]host.ToolDef // the tools the agent may call
	order  []string                // scope's names, sorted
	start  time.Time

	skipped []Skip // tools left out at the start

	mu        sync.Mutex
	activated []*skills.Skill // skills activated so far, for the shell tool
	loaded    map[string]bool // tools offered to the model
	always    map[string]capabilities.Set
	askMu     sync.Mutex // one permission question at a time
	totals    Totals
	history   []Message
}

func (s *Session) newRun() (*run, error) {
	def := s.Agent
	if def == nil {
		def = builtinGeneral()
	}
	r := &run{s: s, def: def, tr: s.Transcript, loaded: map[string]bool{}, always: map[string]capabilities.Set{}}
	if r.tr == nil {
		r.tr = NewTranscript(io.Discard)
	}
	reg, err := r.registry()
	if err != nil {
		return nil, err
	}
	r.reg = reg
	scoped, err := def.Scope(reg.List())
	if err != nil {
		return nil, err
	}
	if s.Allow != nil {
		scoped = slices.DeleteFunc(scoped, func(d host.ToolDef) bool { return d.Name != toolSearch && !s.Allow(d) })
	}
	r.scope = make(map[string]host.ToolDef, len(scoped))
	mcpCount := 0
	for _, d := range scoped {
		r.scope[d.Name] = d
		r.order = append(r.order, d.Name)
		if d.Source == host.SourceMCP {
			mcpCount++
		}
	}
	deferred := 0
	for _, d := range scoped {
		defer_ := def.Tools == nil && (d.Source == host.SourceSkill || d.Source == host.SourceMarkdown || d.Source == host.SourceYAML ||
			d.Source == host.SourceMCP && mcpCount > maxEagerMCPTools)
		if defer_ {
			deferred++
		} else {
			r.loaded[d.Name] = true
		}
	}
	if deferred == 0 {
		delete(r.loaded, toolSearch) // nothing to search for
	}
	return r, nil
}

// builtinGeneral is the builtin "general" agent, parsed once (a
// Definition is not modified once shared).
var builtinGeneral = sync.OnceValue(func() *Definition {
	for _, d := range Builtin() {
		if d.Name == "general" {
			return d
		}
	}
	panic("agent: no builtin general agent")
})

// emit records e in the transcript and shows it to the observer.
func (r *run) emit(e TranscriptEvent) {
	e = r.tr.record(e)
	if r.s.Observe != nil {
		r.s.Observe(e)
	}
}

// toolSpecs returns the tools offered to the model now, in name order.
func (r *run) toolSpecs() []ToolSpec {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ToolSpec
	for _, name := range r.order {
		if !r.loaded[name] {
			continue
		}
		d := r.scope[name]
		schema := d.InputSchema
		if len(schema) == 0 {
			schema = []byte(`{"type":"object"}`)
		}
		out = append(out, ToolSpec{Name: d.Name, Description: d.Description, InputSchema: schema})
	}
	return out
}

// load offers the named tools (those in scope) from now on, and records
// which were new.
func (r *run) load(names []string, via string) []string {
	r.mu.Lock()
	var added []string
	for _, n := range names {
		if _, ok := r.scope[n]; ok && !r.loaded[n] {
			r.loaded[n] = true
			added = append(added, n)
		}
	}
	r.mu.Unlock()
	if len(added) > 0 {
		r.emit(TranscriptEvent{Type: EventToolsLoaded, Tools: added, Via: via})
	}
	return added
}

// systemPrompt is the agent's prompt, then the skills catalog if the
// agent may activate skills.
func (r *run) systemPrompt() string {
	var b strings.Builder
	b.WriteString(r.def.Prompt)
	if _, ok := r.scope[toolSkillActivate]; ok && len(r.s.Skills) > 0 {
		b.WriteString("\n\n# Skills\n\nSkills are packaged instructions and scripts for particular tasks. " +
			"When one fits the task, call " + toolSkillActivate + " with its name and follow the instructions it returns; " +
			"its scripts then become tools named <skill>__<script>. Read a skill's other files with " + toolSkillRead + ".\n\n")
		b.WriteString(skills.Prompt(r.s.Skills))
	}
	return b.String()
}

func (r *run) model() string {
	if r.s.Model != "" {
		return r.s.Model
	}
	return r.def.Model
}

// loop is the session proper.
func (r *run) loop(ctx context.Context, task string) *Result {
	r.start = time.Now()
	names := make([]string, 0, len(r.s.Skills))
	for _, sk := range r.s.Skills {
		names = append(names, sk.Name)
	}
	var offered []string
	for _, t := range r.toolSpecs() {
		offered = append(offered, t.Name)
	}
	r.emit(TranscriptEvent{Type: EventSessionStart, Task: task, Provider: r.s.Provider.Name(), Model: r.model(),
		Agent: r.def.QualifiedName(), Tools: offered, Skills: names})
	for _, sk := range slices.Concat(r.s.Skipped, r.skipped) {
		r.emit(TranscriptEvent{Type: EventToolSkipped, Tool: Truncate(sk.Name, 256), Error: Truncate(sk.Reason, maxTranscriptContent)})
	}

	r.history = []Message{{Role: RoleUser, Text: task}}
	system := r.systemPrompt()
	var lastText string
	var loopKey string
	repeats := 0
	for turn := 1; ; turn++ {
		if turn > r.limits.MaxTurns {
			return r.end(OutcomeMaxTurns, lastText, fmt.Errorf("the model was called %d times (--max-turns)", r.limits.MaxTurns))
		}
		if ctx.Err() != nil {
			return r.end(r.ctxOutcome(ctx), lastText, context.Cause(ctx))
		}
		r.history = boundHistory(r.history, r.limits.MaxHistoryBytes)
		req := &Request{
			Model: r.model(), System: system, Messages: slices.Clone(r.history), Tools: r.toolSpecs(),
			MaxTokens: r.limits.MaxReplyTokens, Temperature: r.def.Temperature, ReasoningEffort: r.def.ReasoningEffort,
		}
		t0 := time.Now()
		resp, err := r.s.Retry.complete(ctx, r.s.Provider, req, func(attempt int, pe *ProviderError, wait time.Duration) {
			r.emit(TranscriptEvent{Type: EventRetry, Turn: turn, Attempt: attempt, Error: pe.Error(), WaitMS: wait.Milliseconds()})
		})
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return r.end(r.ctxOutcome(ctx), lastText, context.Cause(ctx))
			case KindOf(err) == ErrAuth:
				return r.end(OutcomeAuthError, lastText, err)
			default:
				return r.end(OutcomeProviderError, lastText, err)
			}
		}
		msg := resp.Message
		msg.Role = RoleAssistant
		r.totals.Turns++
		r.totals.Usage.Add(resp.Usage)
		usage := resp.Usage
		// Calls beyond the bound are dropped here, before they are
		// recorded or kept: only their number survives.
		var dropped []ToolCall
		if len(msg.ToolCalls) > r.limits.MaxCallsPerTurn {
			dropped = msg.ToolCalls[r.limits.MaxCallsPerTurn:]
			msg.ToolCalls = msg.ToolCalls[:r.limits.MaxCallsPerTurn:r.limits.MaxCallsPerTurn]
		}
		r.emit(TranscriptEvent{Type: EventModelTurn, Turn: turn, Model: resp.Model, Text: Truncate(msg.Text, maxTranscriptContent),
			ToolCalls: safeCalls(msg.ToolCalls), Dropped: len(dropped), StopReason: resp.StopReason, RawStopReason: resp.RawStopReason,
			Usage: &usage, DurationMS: time.Since(t0).Milliseconds()})
		if msg.Text != "" {
			lastText = msg.Text
		}
		r.history = append(r.history, msg)
		var dropNote string
		if len(dropped) > 0 {
			dropNote = r.dropCalls(turn, dropped)
		}

		if len(msg.ToolCalls) == 0 {
			switch resp.StopReason {
			case StopMaxTokens:
				return r.end(OutcomeTruncated, lastText, errors.New("the reply hit its token limit with no tool call to continue with"))
			case StopRefusal:
				return r.end(OutcomeRefused, lastText, fmt.Errorf("the model declined (stop reason %q)", resp.RawStopReason))
			}
			return r.end(OutcomeCompleted, lastText, nil)
		}
		if r.limits.MaxTokens > 0 && r.totals.Usage.Total() > r.limits.MaxTokens {
			r.notRun(turn, msg.ToolCalls, "not run: the session's token budget is spent")
			return r.end(OutcomeMaxTokens, lastText, fmt.Errorf("%d tokens used, over the budget of %d (--max-tokens)", r.totals.Usage.Total(), r.limits.MaxTokens))
		}

		results, fatal := r.callTools(ctx, turn, msg.ToolCalls)
		if dropNote != "" {
			results[len(results)-1].Content += "\n\n" + dropNote
		}
		r.history = append(r.history, Message{Role: RoleUser, ToolResults: results})
		if ctx.Err() != nil {
			return r.end(r.ctxOutcome(ctx), lastText, context.Cause(ctx))
		}
		if fatal != nil {
			return r.end(OutcomeHostError, lastText, fatal)
		}
		key := turnKey(msg.ToolCalls, results)
		if key == loopKey {
			repeats++
		} else {
			loopKey, repeats = key, 1
		}
		if repeats >= r.limits.LoopRepeats {
			return r.end(OutcomeLoop, lastText, fmt.Errorf("the same tool calls returned the same results %d turns in a row", repeats))
		}
	}
}

// ctxOutcome tells a passed deadline from a cancellation.
func (r *run) ctxOutcome(ctx context.Context) Outcome {
	if errors.Is(context.Cause(ctx), errDeadline) {
		return OutcomeDeadline
	}
	return OutcomeCancelled
}

// turnKey identifies a turn's calls and results, for loop detection.
func turnKey(calls []ToolCall, results []ToolOutput) string {
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%t\x01", c.Name, c.Input, results[i].Content, results[i].IsError)
	}
	return b.String()
}

// end records the session_end and returns the result.
func (r *run) end(o Outcome, text string, err error) *Result {
	r.totals.DurationMS = time.Since(r.start).Milliseconds()
	totals := r.totals
	e := TranscriptEvent{Type: EventSessionEnd, Outcome: o, Totals: &totals, Text: Truncate(text, maxTranscriptContent)}
	if err != nil {
		e.Error = err.Error()
	}
	r.emit(e)
	return &Result{Outcome: o, Text: text, Totals: totals, Err: err}
}

// dropCalls records the calls of a reply beyond [Limits.MaxCallsPerTurn]
// in one calls_dropped record (their names, bounded, not their inputs),
// counts them, and returns the note for the model.
func (r *run) dropCalls(turn int, dropped []ToolCall) string {
	note := fmt.Sprintf("[%d more tool calls of this reply were dropped, not run: a reply may make at most %d; make the rest in the next turn]",
		len(dropped), r.limits.MaxCallsPerTurn)
	names := make([]string, 0, min(len(dropped), maxDroppedNames))
	for _, c := range dropped[:min(len(dropped), maxDroppedNames)] {
		names = append(names, Truncate(c.Name, host.MaxToolNameLen))
	}
	r.mu.Lock()
	r.totals.DroppedCalls += len(dropped)
	r.mu.Unlock()
	r.emit(TranscriptEvent{Type: EventCallsDropped, Turn: turn, Dropped: len(dropped), Tools: names, Content: note})
	return note
}

// maxDroppedNames bounds the names a calls_dropped record lists.
const maxDroppedNames = 16

// notRun gives each call a result saying it did not run.
func (r *run) notRun(turn int, calls []ToolCall, why string) []ToolOutput {
	out := make([]ToolOutput, len(calls))
	for i, c := range calls {
		out[i] = ToolOutput{CallID: c.ID, Content: why, IsError: true}
		r.totals.ToolCalls++
		r.totals.ToolErrors++
		r.emit(TranscriptEvent{Type: EventToolResult, Turn: turn, CallID: c.ID, Tool: c.Name, Content: why, IsError: true})
	}
	return out
}

// safeCalls returns calls with every input valid JSON (see [safeJSON])
// and bounded, for the transcript.
func safeCalls(calls []ToolCall) []ToolCall {
	out := slices.Clone(calls)
	for i := range out {
		out[i].Input = safeJSON(out[i].Input)
	}
	return out
}
