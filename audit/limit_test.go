package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuditorsBoundEvents feeds each auditor of the package an event whose
// value is a 1 MiB guest-chosen string (as a skills_search query once
// was) and checks the record is bounded, valid UTF-8 and marked truncated.
func TestAuditorsBoundEvents(t *testing.T) {
	huge := strings.Repeat("é<", 1<<19) // 1.5 MiB; "é" is 2 bytes, "<" escapes to 6 in JSON
	keep := 982                         // 1024 less the longest marker (41 bytes), back to a rune start: "search:" + 325×"é<"
	e := Event{Time: auditTime, Skill: "me", Script: "s", Kind: "skills", Value: "search:" + huge,
		Decision: Deny, Reason: strings.Repeat("r", 5000)}

	var jsonl bytes.Buffer
	NewJSONLAuditor(&jsonl).Audit(context.Background(), e)
	var slogged bytes.Buffer
	NewSlogAuditor(slog.New(slog.NewJSONHandler(&slogged, nil))).Audit(context.Background(), e)
	var got []Event
	LimitAuditor(AuditorFunc(func(_ context.Context, e Event) { got = append(got, e) }), 0, 0).Audit(context.Background(), e)

	for name, line := range map[string][]byte{"jsonl": jsonl.Bytes(), "slog": slogged.Bytes()} {
		assert.LessOrEqual(t, len(line), 16<<10, "%s: bytes of a record, want a few KiB at most", name)
		assert.True(t, bytes.Contains(line, []byte(`"truncated":true`)), "%s: the record does not say it was truncated: %.300s", name, line)
		assert.True(t, bytes.Contains(line, []byte(fmt.Sprintf("[truncated %d bytes]", len("search:"+huge)-keep))), "%s: the value does not say how much was cut: %.300s", name, line)
	}
	require.Len(t, got, 1, "events LimitAuditor passed")
	b := got[0]
	assert.True(t, b.Truncated, "LimitAuditor passed %+v, want the event marked truncated", b)
	assert.Equal(t, "me", b.Skill, "skill of the event LimitAuditor passed")
	assert.Equal(t, "skills", b.Kind, "kind of the event LimitAuditor passed")
	for _, f := range []string{b.Value, b.Reason} {
		assert.LessOrEqual(t, len(f), maxEventField, "bytes of a field, want it cut")
		assert.True(t, utf8.ValidString(f), "field not valid UTF-8, want it cut on a rune boundary")
	}
	assert.True(t, b.bounded() == b, "bounding a bounded event changed it: %.200q", b.bounded().Value)
	// A short event is untouched.
	short := Event{Time: auditTime, Kind: "read", Value: "workspace/a", Decision: Allow}
	assert.Equal(t, short, short.bounded(), "bounded changed a short event")
}

// TestLimitAuditorCapsARun makes one run's auditor take far more events
// than its bound, from many goroutines, and checks that what reaches the
// log is the bound, one notice, and the run's own start and end; the rest
// is counted.
func TestLimitAuditorCapsARun(t *testing.T) {
	for _, tt := range []struct {
		name      string
		maxEvents int
		maxBytes  int64
		value     string
		wantPass  int
	}{
		{"events", 100, 0, "workspace/x", 99},
		{"bytes", 0, 10 << 10, strings.Repeat("v", 1000), 8}, // 8 × (1000+12..14+128) ≤ 10 KiB < 9 ×
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			j := NewJSONLAuditor(&buf)
			l := LimitAuditor(j, tt.maxEvents, tt.maxBytes)
			ctx := context.Background()
			l.Audit(ctx, Event{Kind: "run", Value: "me:s", Decision: Allow, Reason: "start"})
			const workers, each = 8, 1000
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						l.Audit(ctx, Event{Skill: "me", Script: "s", Kind: "read", Value: tt.value, Decision: Deny, Reason: fmt.Sprint(w, i)})
					}
				})
			}
			wg.Wait()
			l.Audit(ctx, Event{Kind: "run", Value: "me:s", Decision: Allow, Reason: "end"})

			var kinds = map[string]int{}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			for _, line := range lines {
				var e Event
				require.NoError(t, json.Unmarshal([]byte(line), &e), "line %q", line)
				kinds[e.Kind]++
				if e.Kind == "limit" {
					assert.Equal(t, "audit", e.Value, "the notice is %+v", e)
					assert.Equal(t, Deny, e.Decision, "the notice is %+v", e)
					assert.Contains(t, e.Reason, "audit limit reached", "the notice's reason")
					assert.Contains(t, e.Reason, "further events of this run dropped", "the notice's reason")
				}
			}
			want := map[string]int{"run": 2, "read": tt.wantPass, "limit": 1}
			assert.Equal(t, want, kinds, "the kinds of events the log holds")
			assert.Equal(t, int64(workers*each-tt.wantPass), l.Dropped(), "Dropped()")
		})
	}
}

func TestLimitAuditorPanicsOnNegativeBounds(t *testing.T) {
	assert.Panics(t, func() { LimitAuditor(Discard, -1, 0) }, "no panic for a negative bound")
}
