package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var auditTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestJSONLAuditor(t *testing.T) {
	var buf bytes.Buffer
	a := NewJSONLAuditor(&buf)
	ctx := context.Background()
	a.Audit(ctx, Event{Time: auditTime, Skill: "csv-stats", Script: "stats", Kind: "read", Value: "workspace/data/in.csv", Decision: Allow})
	a.Audit(ctx, Event{Time: auditTime, Kind: "net", Value: "evil.com:443", Decision: Deny, Reason: `net "evil.com:443" denied`})
	want := `{"time":"2026-01-02T03:04:05Z","skill":"csv-stats","script":"stats","kind":"read","value":"workspace/data/in.csv","decision":"allow"}
{"time":"2026-01-02T03:04:05Z","kind":"net","value":"evil.com:443","decision":"deny","reason":"net \"evil.com:443\" denied"}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("JSONL mismatch (-want +got):\n%s", diff)
	}
	if err := a.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

func TestJSONLAuditorFillsTime(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now()
	NewJSONLAuditor(&buf).Audit(context.Background(), Event{Kind: "run", Decision: Allow})
	var e Event
	if err := json.Unmarshal(buf.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if e.Time.Before(before.Truncate(time.Second)) || e.Time.After(time.Now()) {
		t.Errorf("Time = %v, want about now", e.Time)
	}
}

// TestJSONLAuditorConcurrent is a hammer test: 8 goroutines audit at once
// (run it with -race); every line must be one whole, valid event.
func TestJSONLAuditorConcurrent(t *testing.T) {
	const goroutines, events = 8, 200
	var buf bytes.Buffer
	a := NewJSONLAuditor(&buf)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range events {
				a.Audit(context.Background(), Event{
					Time: auditTime, Skill: fmt.Sprintf("skill-%d", g), Kind: "read",
					Value: fmt.Sprintf("workspace/%d/%s", i, strings.Repeat("x", i)), Decision: Allow,
				})
			}
		})
	}
	wg.Wait()
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var e Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d is not one event: %v: %s", lines, err, sc.Text())
		}
		seen[e.Skill]++
	}
	if lines != goroutines*events {
		t.Errorf("%d lines, want %d", lines, goroutines*events)
	}
	for g := range goroutines {
		if n := seen[fmt.Sprintf("skill-%d", g)]; n != events {
			t.Errorf("skill-%d: %d events, want %d", g, n, events)
		}
	}
}

type failingWriter struct {
	n   int // writes that succeed
	got int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.got >= w.n {
		return 0, errors.New("disk full")
	}
	w.got++
	return len(p), nil
}

func TestJSONLAuditorWriteError(t *testing.T) {
	w := &failingWriter{n: 1}
	a := NewJSONLAuditor(w)
	for range 3 {
		a.Audit(context.Background(), Event{Kind: "run", Decision: Allow})
	}
	if err := a.Err(); err == nil || err.Error() != "disk full" {
		t.Errorf("Err() = %v, want disk full", err)
	}
	if w.got != 1 {
		t.Errorf("%d successful writes, want 1", w.got)
	}
}

func TestSlogAuditor(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	a := NewSlogAuditor(l)
	ctx := context.Background()
	a.Audit(ctx, Event{Time: auditTime, Skill: "csv-stats", Script: "stats", Kind: "read", Value: "workspace/data", Decision: Allow})
	a.Audit(ctx, Event{Time: auditTime, Skill: "csv-stats", Kind: "net", Value: "evil.com:443", Decision: Deny, Reason: "not granted"})
	want := `time=2026-01-02T03:04:05.000Z level=INFO msg=capability skill=csv-stats script=stats kind=read value=workspace/data decision=allow
time=2026-01-02T03:04:05.000Z level=WARN msg=capability skill=csv-stats kind=net value=evil.com:443 decision=deny reason="not granted"
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("slog output mismatch (-want +got):\n%s", diff)
	}

	// A handler at Warn keeps only denials.
	buf.Reset()
	a = NewSlogAuditor(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.Audit(ctx, Event{Kind: "env", Value: "LANG", Decision: Allow})
	a.Audit(ctx, Event{Kind: "env", Value: "HOME", Decision: Deny})
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("want exactly one JSON record, got %q: %v", buf.String(), err)
	}
	if rec["level"] != "WARN" || rec["value"] != "HOME" || rec["decision"] != "deny" {
		t.Errorf("record = %v", rec)
	}
	if _, ok := rec["time"]; !ok {
		t.Errorf("record has no time: %v", rec)
	}

	NewSlogAuditor(nil).Audit(ctx, Event{Kind: "env"}) // a nil logger discards
}

func TestMultiAuditor(t *testing.T) {
	var got []string
	rec := func(name string) Auditor {
		return AuditorFunc(func(_ context.Context, e Event) { got = append(got, name+":"+e.Value) })
	}
	MultiAuditor(rec("a"), nil, rec("b")).Audit(context.Background(), Event{Value: "x"})
	if diff := cmp.Diff([]string{"a:x", "b:x"}, got); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	MultiAuditor().Audit(context.Background(), Event{})
	MultiAuditor(nil).Audit(context.Background(), Event{})
}

func TestAuditorContext(t *testing.T) {
	ctx := context.Background()
	if a := AuditorFrom(ctx); a == nil {
		t.Fatal("AuditorFrom(empty ctx) = nil, want Discard")
	}
	AuditorFrom(ctx).Audit(ctx, Event{}) // Discard
	var n int
	a := AuditorFunc(func(context.Context, Event) { n++ })
	ctx = WithAuditor(ctx, a)
	AuditorFrom(ctx).Audit(ctx, Event{})
	if n != 1 {
		t.Errorf("audited %d times, want 1", n)
	}
	if a := AuditorFrom(WithAuditor(ctx, nil)); a == nil {
		t.Error("AuditorFrom(ctx with nil) = nil, want Discard")
	}
}
