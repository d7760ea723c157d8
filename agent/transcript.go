package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// EventType names a transcript record.
type EventType string

const (
	// EventSessionStart opens a transcript: task, provider, model, agent,
	// the tools offered and the skills in the catalog.
	EventSessionStart EventType = "session_start"
	// EventModelTurn is one reply of the model: text, tool calls, stop
	// reason, usage.
	EventModelTurn EventType = "model_turn"
	// EventRetry is a failed provider call that will be tried again.
	EventRetry EventType = "retry"
	// EventToolCall is a tool call starting.
	EventToolCall EventType = "tool_call"
	// EventToolResult is the one result of a tool call.
	EventToolResult EventType = "tool_result"
	// EventPermission is a capability a skill asked for beyond its grant,
	// and what was decided.
	EventPermission EventType = "permission"
	// EventToolsLoaded is deferred tools becoming visible to the model
	// (after a skill's activation or a tool search).
	EventToolsLoaded EventType = "tools_loaded"
	// EventSessionEnd closes a transcript with the outcome and totals.
	EventSessionEnd EventType = "session_end"
	// EventCallsDropped is the calls of one reply beyond
	// [Limits.MaxCallsPerTurn]: how many (Dropped), the first names
	// (Tools), and the note the model got (Content). They were not run.
	EventCallsDropped EventType = "calls_dropped"
	// EventToolSkipped is a tool (or a whole MCP server) left out of the
	// session because it is broken: Tool names it, Error says why. The
	// session goes on without it.
	EventToolSkipped EventType = "tool_skipped"
)

// A TranscriptEvent is one record of a session, as written to its transcript and
// given to its observer. Only the fields of its Type are set.
type TranscriptEvent struct {
	Type EventType `json:"type"`
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	Turn int       `json:"turn,omitempty"`

	// session_start
	Task     string   `json:"task,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Model    string   `json:"model,omitempty"`
	Agent    string   `json:"agent,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	Skills   []string `json:"skills,omitempty"`

	// model_turn
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Dropped counts the calls of the reply (model_turn, calls_dropped)
	// beyond [Limits.MaxCallsPerTurn], which are not listed in ToolCalls.
	Dropped       int        `json:"dropped,omitempty"`
	StopReason    StopReason `json:"stop_reason,omitempty"`
	RawStopReason string     `json:"raw_stop_reason,omitempty"`
	Usage         *Usage     `json:"usage,omitempty"`

	// tool_call, tool_result
	CallID  string          `json:"call_id,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Content string          `json:"content,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// Tier (tool_result) says where the call's scripts ran: "wasm",
	// "native" (confined host processes: a skill the operator trusts
	// with the native tier), "wasm+native", or nothing when no script
	// ran ([host.RecordTiers]).
	Tier string `json:"tier,omitempty"`

	// retry
	Attempt int    `json:"attempt,omitempty"`
	Error   string `json:"error,omitempty"`
	WaitMS  int64  `json:"wait_ms,omitempty"`

	// permission
	Skill     string `json:"skill,omitempty"`
	Script    string `json:"script,omitempty"`
	Requested string `json:"requested,omitempty"`
	Decision  Answer `json:"decision,omitempty"`

	// tools_loaded: Tools, and Via says why
	Via string `json:"via,omitempty"`

	// session_end (and the duration of model_turn and tool_result)
	Outcome    Outcome `json:"outcome,omitempty"`
	Totals     *Totals `json:"totals,omitempty"`
	DurationMS int64   `json:"duration_ms,omitempty"`

	// Truncated marks a record cut to 64 KiB: some of its
	// text, inputs or lists are shortened or left out.
	Truncated bool `json:"truncated,omitempty"`
}

// Totals sum up a session.
type Totals struct {
	Turns      int `json:"turns"`
	ToolCalls  int `json:"tool_calls"`
	ToolErrors int `json:"tool_errors"`
	// DroppedCalls counts the calls of replies beyond
	// [Limits.MaxCallsPerTurn]: not run, not in ToolCalls.
	DroppedCalls int   `json:"dropped_calls,omitempty"`
	Usage        Usage `json:"usage"`
	DurationMS   int64 `json:"duration_ms"`
}

// maxTranscriptContent bounds the text of one field of a record (a tool
// result, a model's text); longer text is cut, marked with "…".
const maxTranscriptContent = 64 << 10

// maxTranscriptRecord bounds one whole record, as written (one JSON line
// with its newline). A record over it is cut to fit (see [TranscriptEvent.Truncated]):
// its fields bound each text, but a reply of many calls, each within the
// bound, or a model's huge tool names would make a record of megabytes.
const maxTranscriptRecord = 64 << 10

// A Transcript writes a session's events as JSON lines, one Write per
// record as it happens (a Session run again on the same Transcript
// continues it, numbering on), so a session that is killed leaves every record
// up to that moment. It numbers and stamps the events. A Transcript is
// safe for concurrent use; the first write error is kept and later
// records are dropped (the session goes on: a transcript is a record, not
// a reason to stop working).
type Transcript struct {
	mu  sync.Mutex
	w   io.Writer
	seq int64
	err error
	now func() time.Time
}

// NewTranscript returns a Transcript writing to w (usually a file opened
// with O_APPEND).
func NewTranscript(w io.Writer) *Transcript { return &Transcript{w: w, now: time.Now} }

// record numbers, stamps and writes e, and returns it as written.
func (t *Transcript) record(e TranscriptEvent) TranscriptEvent {
	if t == nil {
		return e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	e.Seq, e.Time = t.seq, t.now().UTC()
	if t.err != nil {
		return e
	}
	b, err := fitRecord(e)
	if err == nil {
		_, err = t.w.Write(append(b, '\n'))
	}
	if err != nil {
		t.err = err
	}
	return e
}

// Err returns the first error writing the transcript.
func (t *Transcript) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// fitRecord returns e as JSON of less than maxTranscriptRecord bytes
// (leaving room for the newline). A record over the bound is cut in
// steps, each marked Truncated, until it fits: first every text, input
// and list to a share of the bound, then to a small fixed size without
// the calls' inputs, and last to the bare record (type, seq, time, turn)
// with an error saying how large it was. Only the record is cut: the
// session itself saw the whole event.
func fitRecord(e TranscriptEvent) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil || len(b) < maxTranscriptRecord {
		return b, err
	}
	size := len(b)
	for _, budget := range []int{maxTranscriptRecord / 8, 1 << 10} {
		c := cutEvent(e, budget)
		if b, err = json.Marshal(c); err != nil || len(b) < maxTranscriptRecord {
			return b, err
		}
	}
	return json.Marshal(TranscriptEvent{Type: e.Type, Seq: e.Seq, Time: e.Time, Turn: e.Turn, Truncated: true,
		Error: fmt.Sprintf("a record of %d bytes, over the %d-byte bound, left out", size, maxTranscriptRecord)})
}

// cutEvent returns e with every string cut to budget bytes, the calls'
// inputs and the name lists sharing budget between them, and Truncated
// set. JSON escaping can make a string up to six times its bytes, which
// the steps of fitRecord allow for.
func cutEvent(e TranscriptEvent, budget int) TranscriptEvent {
	e.Truncated = true
	for _, p := range []*string{&e.Task, &e.Text, &e.Content, &e.Error, &e.Model, &e.Agent, &e.Provider,
		&e.RawStopReason, &e.CallID, &e.Tool, &e.Skill, &e.Script, &e.Requested, &e.Via} {
		*p = Truncate(*p, budget)
	}
	if len(e.Input) > budget {
		e.Input = safeJSONWithin(e.Input, budget)
	}
	if n := len(e.ToolCalls); n > 0 {
		share := budget / n
		calls := make([]ToolCall, n)
		for i, c := range e.ToolCalls {
			c.ID, c.Name = Truncate(c.ID, min(share, 256)), Truncate(c.Name, min(share, 256))
			if len(c.Input) > share {
				c.Input = safeJSONWithin(c.Input, share)
			}
			calls[i] = c
		}
		e.ToolCalls = calls
	}
	e.Tools = cutList(e.Tools, budget)
	e.Skills = cutList(e.Skills, budget)
	return e
}

// cutList keeps the first names of list that fit in budget bytes, and
// says how many more there were.
func cutList(list []string, budget int) []string {
	n := 0
	for i, s := range list {
		if n += len(s) + 3; n > budget {
			return append(list[:i:i], fmt.Sprintf("… and %d more", len(list)-i))
		}
	}
	return list
}

// safeJSONWithin is raw as a JSON string cut to n bytes (raw itself, if
// it is valid JSON of at most n bytes).
func safeJSONWithin(raw json.RawMessage, n int) json.RawMessage {
	if len(raw) <= n && json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(Truncate(string(raw), n))
	return b
}
