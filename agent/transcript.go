package agent

import (
	"encoding/json"
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
)

// An Event is one record of a session, as written to its transcript and
// given to its observer. Only the fields of its Type are set.
type Event struct {
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
	Text          string     `json:"text,omitempty"`
	ToolCalls     []ToolCall `json:"tool_calls,omitempty"`
	StopReason    StopReason `json:"stop_reason,omitempty"`
	RawStopReason string     `json:"raw_stop_reason,omitempty"`
	Usage         *Usage     `json:"usage,omitempty"`

	// tool_call, tool_result
	CallID  string          `json:"call_id,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Content string          `json:"content,omitempty"`
	IsError bool            `json:"is_error,omitempty"`

	// retry
	Attempt int    `json:"attempt,omitempty"`
	Error   string `json:"error,omitempty"`
	WaitMS  int64  `json:"wait_ms,omitempty"`

	// permission
	Skill     string   `json:"skill,omitempty"`
	Script    string   `json:"script,omitempty"`
	Requested string   `json:"requested,omitempty"`
	Decision  Decision `json:"decision,omitempty"`

	// tools_loaded: Tools, and Via says why
	Via string `json:"via,omitempty"`

	// session_end (and the duration of model_turn and tool_result)
	Outcome    Outcome `json:"outcome,omitempty"`
	Totals     *Totals `json:"totals,omitempty"`
	DurationMS int64   `json:"duration_ms,omitempty"`
}

// Totals sum up a session.
type Totals struct {
	Turns      int   `json:"turns"`
	ToolCalls  int   `json:"tool_calls"`
	ToolErrors int   `json:"tool_errors"`
	Usage      Usage `json:"usage"`
	DurationMS int64 `json:"duration_ms"`
}

// MaxTranscriptContent bounds the text of one record (a tool result, a
// model's text); longer text is cut, marked with "…".
const MaxTranscriptContent = 64 << 10

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
func (t *Transcript) record(e Event) Event {
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
	b, err := json.Marshal(e)
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
