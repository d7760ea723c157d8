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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Equal(t, want, buf.String(), "JSONL")
	assert.NoError(t, a.Err(), "Err()")
}

func TestJSONLAuditorFillsTime(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now()
	NewJSONLAuditor(&buf).Audit(context.Background(), Event{Kind: "run", Decision: Allow})
	var e Event
	require.NoError(t, json.Unmarshal(buf.Bytes(), &e))
	assert.WithinRange(t, e.Time, before.Truncate(time.Second), time.Now(), "Time, want about now")
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
	require.NoError(t, a.Err())
	seen := map[string]int{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var e Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&e), "line %d is not one event: %s", lines, sc.Text())
		seen[e.Skill]++
	}
	assert.Equal(t, goroutines*events, lines, "lines")
	for g := range goroutines {
		assert.Equal(t, events, seen[fmt.Sprintf("skill-%d", g)], "skill-%d: events", g)
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
	assert.EqualError(t, a.Err(), "disk full", "Err()")
	assert.Equal(t, 1, w.got, "successful writes")
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
	assert.Equal(t, want, buf.String(), "slog output")

	// A handler at Warn keeps only denials.
	buf.Reset()
	a = NewSlogAuditor(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.Audit(ctx, Event{Kind: "env", Value: "LANG", Decision: Allow})
	a.Audit(ctx, Event{Kind: "env", Value: "HOME", Decision: Deny})
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), "want exactly one JSON record, got %q", buf.String())
	assert.Equal(t, "WARN", rec["level"], "record = %v", rec)
	assert.Equal(t, "HOME", rec["value"], "record = %v", rec)
	assert.Equal(t, "deny", rec["decision"], "record = %v", rec)
	assert.Contains(t, rec, "time", "record has no time")

	NewSlogAuditor(nil).Audit(ctx, Event{Kind: "env"}) // a nil logger discards
}

func TestMultiAuditor(t *testing.T) {
	var got []string
	rec := func(name string) Auditor {
		return AuditorFunc(func(_ context.Context, e Event) { got = append(got, name+":"+e.Value) })
	}
	MultiAuditor(rec("a"), nil, rec("b")).Audit(context.Background(), Event{Value: "x"})
	assert.Equal(t, []string{"a:x", "b:x"}, got, "calls")
	MultiAuditor().Audit(context.Background(), Event{})
	MultiAuditor(nil).Audit(context.Background(), Event{})
}

func TestAuditorContext(t *testing.T) {
	ctx := context.Background()
	require.NotNil(t, AuditorFrom(ctx), "AuditorFrom(empty ctx), want Discard")
	AuditorFrom(ctx).Audit(ctx, Event{}) // Discard
	var n int
	a := AuditorFunc(func(context.Context, Event) { n++ })
	ctx = WithAuditor(ctx, a)
	AuditorFrom(ctx).Audit(ctx, Event{})
	assert.Equal(t, 1, n, "audit calls")
	assert.NotNil(t, AuditorFrom(WithAuditor(ctx, nil)), "AuditorFrom(ctx with nil), want Discard")
}
