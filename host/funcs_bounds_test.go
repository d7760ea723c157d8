package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/audit"
)

// TestDispatchBoundsBeforeAudit sends each host function a request whose
// guest-chosen string is far over its bound (issue 11, finding 9: a 1 MiB
// skills_search query went to the audit log whole) and checks that the
// call is refused as invalid, naming the bound, before anything is
// audited or done: the one audit record says how large the field was,
// never what it held.
func TestDispatchBoundsBeforeAudit(t *testing.T) {
	big := strings.Repeat("x", 1<<19) // within abi.MaxPayload, far over every field bound
	tests := []struct {
		fn, field string
		req       any
		limit     int
	}{
		{"skills_search", "query", map[string]any{"query": big}, maxSearchQuery},
		{"skill_activate", "skill name", map[string]any{"name": big}, maxCallName},
		{"tool_call", "tool name", map[string]any{"name": big}, maxCallName},
		{"skill_read", "path", map[string]any{"path": big}, maxReadPath},
		{"skill_run", "skill name", map[string]any{"skill": big, "script": "x"}, maxCallName},
		{"skill_run", "script name", map[string]any{"skill": "pdf", "script": big}, maxCallName},
		{"mcp_call", "server name", map[string]any{"server": big, "tool": "t"}, maxCallName},
		{"mcp_call", "tool name", map[string]any{"server": "gh", "tool": big}, maxCallName},
		{"http_fetch", "url", map[string]any{"url": "https://a.example/" + big}, maxFetchURLLen},
	}
	for _, tt := range tests {
		t.Run(tt.fn+" "+tt.field, func(t *testing.T) {
			rec := &recorder{}
			e := testEnv(&bytes.Buffer{}, rec)
			req, err := json.Marshal(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			got := dispatch(e, tt.fn, string(req))
			want := fmt.Sprintf("error:invalid: %s: the %s is ", tt.fn, tt.field)
			if !strings.HasPrefix(got, want) || !strings.Contains(got, fmt.Sprintf("over the %d-byte limit", tt.limit)) {
				t.Errorf("got %.200s, want %q... naming the %d-byte limit", got, want, tt.limit)
			}
			if len(rec.events) != 1 {
				t.Fatalf("%d events audited, want the one refusal: %.500v", len(rec.events), rec.events)
			}
			ev := rec.events[0]
			if ev.Kind != "limit" || ev.Decision != audit.Deny || ev.Value != tt.fn+" "+tt.field || len(ev.Reason) > 100 {
				t.Errorf("audited %.300v, want a small limit denial", ev)
			}
		})
	}

	// Within the bounds, a call goes through and is audited as before.
	rec := &recorder{}
	q := strings.Repeat("a ", maxSearchQuery/2)
	if got := dispatch(testEnv(&bytes.Buffer{}, rec), "skills_search", fmt.Sprintf(`{"query":%q}`, q)); strings.HasPrefix(got, "error:") {
		t.Errorf("a %d-byte query: %.200s", len(q), got)
	}
	if len(rec.events) != 1 || rec.events[0].Value != "search:"+q {
		t.Errorf("audited %.200v, want the search", rec.events)
	}
}
