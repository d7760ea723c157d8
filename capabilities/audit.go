package capabilities

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"
)

// A Decision is the outcome of a capability check: [Allow] or [Deny].
type Decision string

const (
	// Allow records a use of a grant.
	Allow Decision = "allow"
	// Deny records a denial.
	Deny Decision = "deny"
)

// An Event is one audit record: a script used a grant, was denied one, or
// the runtime did something on its behalf. Its JSON form is one line of an
// audit log ([NewJSONLAuditor]).
type Event struct {
	// Time is when it happened. An auditor fills in the current time when
	// it is zero.
	Time time.Time `json:"time"`
	// Skill and Script name the script concerned, when known.
	Skill  string `json:"skill,omitempty"`
	Script string `json:"script,omitempty"`
	// Kind is a capability kind (read, write, env, net, tools, mcp,
	// skills), or limit (a memory, timeout or output limit took effect),
	// mount (a directory was mounted) or run (a script started or ended).
	Kind string `json:"kind"`
	// Value is what was used or denied, in the words of [DeniedError.Value]:
	// "workspace/data/in.csv", "api.example.com:443", "github/create_issue".
	Value string `json:"value,omitempty"`
	// Decision says whether it was allowed.
	Decision Decision `json:"decision"`
	// Reason explains a denial (usually a [DeniedError]'s message) or adds
	// detail to other events.
	Reason string `json:"reason,omitempty"`
}

// An Auditor records [Event]s. Audit must be safe for concurrent use, must
// not block for long (it runs on the path of the script's host calls), and
// has no way to fail: an auditor that can fail remembers its error, as
// [*JSONLAuditor] does.
type Auditor interface {
	Audit(ctx context.Context, e Event)
}

// An AuditorFunc is a function used as an [Auditor]. It must be safe for
// concurrent use.
type AuditorFunc func(context.Context, Event)

// Audit calls f(ctx, e).
func (f AuditorFunc) Audit(ctx context.Context, e Event) { f(ctx, e) }

// Discard is an [Auditor] that records nothing.
var Discard Auditor = AuditorFunc(func(context.Context, Event) {})

// A JSONLAuditor writes each [Event] as one line of JSON. It is safe for
// concurrent use: each event is encoded first and written with a single
// Write call under a mutex, so lines never interleave. The first write
// error is remembered ([JSONLAuditor.Err]) and later events are dropped,
// since a line after a failed, possibly partial, one would not parse.
type JSONLAuditor struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewJSONLAuditor returns an auditor that writes JSON Lines to w.
func NewJSONLAuditor(w io.Writer) *JSONLAuditor { return &JSONLAuditor{w: w} }

// Audit writes e as one line.
func (a *JSONLAuditor) Audit(_ context.Context, e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(e); err != nil {
		a.fail(err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return
	}
	if _, err := a.w.Write(buf.Bytes()); err != nil {
		a.err = err
	}
}

func (a *JSONLAuditor) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = err
	}
}

// Err returns the first error writing an event, or nil.
func (a *JSONLAuditor) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// NewSlogAuditor returns an auditor that logs each [Event] to l: at Info
// for [Allow] and at Warn for anything else, with the message "capability",
// the event's Time as the record's time (now, when zero), and its other
// fields as attributes (skill, script, kind, value, decision, reason; empty
// ones left out). A nil l discards. The auditor is as safe for concurrent
// use as l's handler, which for every handler in log/slog means safe.
func NewSlogAuditor(l *slog.Logger) Auditor {
	if l == nil {
		return Discard
	}
	h := l.Handler()
	return AuditorFunc(func(ctx context.Context, e Event) {
		level := slog.LevelWarn
		if e.Decision == Allow {
			level = slog.LevelInfo
		}
		if !h.Enabled(ctx, level) {
			return
		}
		if e.Time.IsZero() {
			e.Time = time.Now()
		}
		r := slog.NewRecord(e.Time, level, "capability", 0)
		for _, a := range []struct{ key, value string }{
			{"skill", e.Skill}, {"script", e.Script}, {"kind", e.Kind},
			{"value", e.Value}, {"decision", string(e.Decision)}, {"reason", e.Reason},
		} {
			if a.value != "" {
				r.AddAttrs(slog.String(a.key, a.value))
			}
		}
		_ = h.Handle(ctx, r) // a handler's error has nowhere to go; slog.Logger drops it too
	})
}

// MultiAuditor returns an auditor that passes each event to every one of
// auditors, in order. Nil auditors are skipped. It is safe for concurrent
// use when they all are.
func MultiAuditor(auditors ...Auditor) Auditor {
	var all []Auditor
	for _, a := range auditors {
		if a != nil {
			all = append(all, a)
		}
	}
	switch len(all) {
	case 0:
		return Discard
	case 1:
		return all[0]
	}
	return AuditorFunc(func(ctx context.Context, e Event) {
		for _, a := range all {
			a.Audit(ctx, e)
		}
	})
}

type auditorKey struct{}

// WithAuditor returns a copy of ctx that carries a, for [AuditorFrom].
func WithAuditor(ctx context.Context, a Auditor) context.Context {
	return context.WithValue(ctx, auditorKey{}, a)
}

// AuditorFrom returns the auditor ctx carries ([WithAuditor]), or
// [Discard] when it carries none. It never returns nil.
func AuditorFrom(ctx context.Context) Auditor {
	if a, ok := ctx.Value(auditorKey{}).(Auditor); ok && a != nil {
		return a
	}
	return Discard
}
