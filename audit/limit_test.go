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
		if len(line) > 16<<10 {
			t.Errorf("%s: a record of %d bytes, want a few KiB at most", name, len(line))
		}
		if !bytes.Contains(line, []byte(`"truncated":true`)) {
			t.Errorf("%s: the record does not say it was truncated: %.300s", name, line)
		}
		if !bytes.Contains(line, []byte(fmt.Sprintf("[truncated %d bytes]", len("search:"+huge)-keep))) {
			t.Errorf("%s: the value does not say how much was cut: %.300s", name, line)
		}
	}
	if len(got) != 1 {
		t.Fatalf("LimitAuditor passed %d events, want 1", len(got))
	}
	b := got[0]
	if !b.Truncated || b.Skill != "me" || b.Kind != "skills" {
		t.Errorf("LimitAuditor passed %+v, want the event bounded and marked truncated", b)
	}
	for _, f := range []string{b.Value, b.Reason} {
		if len(f) > maxEventField || !utf8.ValidString(f) {
			t.Errorf("field of %d bytes, valid UTF-8 %v; want at most %d, cut on a rune boundary",
				len(f), utf8.ValidString(f), maxEventField)
		}
	}
	if again := b.bounded(); again != b {
		t.Errorf("bounding a bounded event changed it: %.200q", again.Value)
	}
	// A short event is untouched.
	short := Event{Time: auditTime, Kind: "read", Value: "workspace/a", Decision: Allow}
	if short.bounded() != short {
		t.Errorf("bounded changed a short event: %+v", short.bounded())
	}
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
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				kinds[e.Kind]++
				if e.Kind == "limit" && (e.Value != "audit" || e.Decision != Deny ||
					!strings.Contains(e.Reason, "audit limit reached") || !strings.Contains(e.Reason, "further events of this run dropped")) {
					t.Errorf("the notice is %+v", e)
				}
			}
			want := map[string]int{"run": 2, "read": tt.wantPass, "limit": 1}
			if fmt.Sprint(kinds) != fmt.Sprint(want) {
				t.Errorf("the log holds %v, want %v", kinds, want)
			}
			if got, want := l.Dropped(), int64(workers*each-tt.wantPass); got != want {
				t.Errorf("Dropped() = %d, want %d", got, want)
			}
		})
	}
}

func TestLimitAuditorPanicsOnNegativeBounds(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a negative bound")
		}
	}()
	LimitAuditor(Discard, -1, 0)
}
