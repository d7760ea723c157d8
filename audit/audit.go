package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
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
	// Value is what was used or denied, in skill.toml's words (as a
	// capabilities.DeniedError names it): "workspace/data/in.csv",
	// "api.example.com:443", "github/create_issue".
	Value string `json:"value,omitempty"`
	// Decision says whether it was allowed.
	Decision Decision `json:"decision"`
	// Reason explains a denial (usually a capabilities.DeniedError's
	// message) or adds detail to other events.
	Reason string `json:"reason,omitempty"`
	// Truncated reports that a field above was cut. The auditors of this
	// package ([NewJSONLAuditor], [NewSlogAuditor], [LimitAuditor]) keep
	// each string field within 1 KiB: a longer one is cut (on a UTF-8
	// boundary) and ends with "…[truncated N bytes]": most of these strings come from the guest
	// (a search query, a URL, a path), and a guest must not decide how
	// large the audit log grows.
	Truncated bool `json:"truncated,omitempty"`
}

// maxEventField bounds each string field of an [Event] an auditor of this
// package records; see [Event.Truncated].
const maxEventField = 1 << 10

// bounded returns e with every string field cut to maxEventField bytes,
// as [Event.Truncated] describes.
func (e Event) bounded() Event {
	for _, f := range []*string{&e.Skill, &e.Script, &e.Kind, &e.Value, &e.Reason} {
		if len(*f) <= maxEventField {
			continue
		}
		// Keep room for the marker, so the field stays within the bound
		// and a bounded event passes a second auditor unchanged.
		s := *f
		i := maxEventField - len("…[truncated 18446744073709551615 bytes]")
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		*f = s[:i] + "…[truncated " + strconv.Itoa(len(s)-i) + " bytes]"
		e.Truncated = true
	}
	return e
}

// size estimates the bytes e takes in an audit log: its strings and the
// JSON around them.
func (e Event) size() int64 {
	return int64(len(e.Skill)+len(e.Script)+len(e.Kind)+len(e.Value)+len(e.Reason)) + 128
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
	e = e.bounded()
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
// ones left out; truncated=true when [Event.Truncated]). A nil l discards. The auditor is as safe for concurrent
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
		e = e.bounded()
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
		if e.Truncated {
			r.AddAttrs(slog.Bool("truncated", true))
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

// Default bounds of [LimitAuditor].
const (
	defaultMaxRunEvents = 10_000
	defaultMaxRunBytes  = 4 << 20
)

// A LimitedAuditor passes events on to another [Auditor] up to a bound,
// then drops them and counts them; [LimitAuditor] makes one. It is safe
// for concurrent use when the auditor it passes to is.
type LimitedAuditor struct {
	next      Auditor
	maxEvents int
	maxBytes  int64

	mu      sync.Mutex
	events  int
	bytes   int64
	full    bool
	dropped int64
}

// LimitAuditor returns an auditor for one run that passes each event,
// bounded as [Event.Truncated] describes, to a, until maxEvents events or
// about maxBytes bytes have passed (0 means 10,000 events, 4 MiB). Then
// it passes one last event (kind "limit", value "audit", decision deny)
// that says so, and drops the rest, counting them ([LimitedAuditor.Dropped]).
// Events of kind "run" (a run starting or ending) always pass, uncounted:
// the runtime makes them, not the guest, and they say how the run ended.
//
// Why: a guest decides how many events its run makes (a failed open, a
// search, a denied fetch each make one), and without a bound a few
// million cheap calls fill the operator's disk through the audit log.
// It panics if maxEvents or maxBytes is negative.
func LimitAuditor(a Auditor, maxEvents int, maxBytes int64) *LimitedAuditor {
	if maxEvents < 0 || maxBytes < 0 {
		panic(fmt.Sprintf("audit.LimitAuditor: negative bound (%d events, %d bytes)", maxEvents, maxBytes))
	}
	if a == nil {
		a = Discard
	}
	if maxEvents == 0 {
		maxEvents = defaultMaxRunEvents
	}
	if maxBytes == 0 {
		maxBytes = defaultMaxRunBytes
	}
	return &LimitedAuditor{next: a, maxEvents: maxEvents, maxBytes: maxBytes}
}

// Audit passes e on, or drops it once the bound is reached.
func (l *LimitedAuditor) Audit(ctx context.Context, e Event) {
	e = e.bounded()
	if e.Kind == "run" {
		l.next.Audit(ctx, e)
		return
	}
	l.mu.Lock()
	switch {
	case l.full:
		l.dropped++
		l.mu.Unlock()
		return
	case l.events+1 >= l.maxEvents || l.bytes+e.size() > l.maxBytes:
		// This event's place goes to the notice, so the log holds at most
		// maxEvents of this run's events besides its "run" events.
		l.full = true
		l.dropped++
		l.mu.Unlock()
		l.next.Audit(ctx, Event{Time: e.Time, Skill: e.Skill, Script: e.Script, Kind: "limit", Value: "audit",
			Decision: Deny, Reason: fmt.Sprintf("audit limit reached (%d events or %d bytes a run); further events of this run dropped", l.maxEvents, l.maxBytes)})
		return
	}
	l.events++
	l.bytes += e.size()
	l.mu.Unlock()
	l.next.Audit(ctx, e)
}

// Dropped returns how many events were dropped after the bound.
func (l *LimitedAuditor) Dropped() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
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
