package audit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
)

func ExampleNewJSONLAuditor() {
	a := audit.NewJSONLAuditor(os.Stdout)
	a.Audit(context.Background(), audit.Event{
		Time:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Skill:    "csv-stats",
		Script:   "stats",
		Kind:     "net",
		Value:    "evil.example.net:443",
		Decision: audit.Deny,
		Reason:   "not granted",
	})
	fmt.Println(a.Err())
	// Output:
	// {"time":"2026-01-02T03:04:05Z","skill":"csv-stats","script":"stats","kind":"net","value":"evil.example.net:443","decision":"deny","reason":"not granted"}
	// <nil>
}

func ExampleNewSlogAuditor() {
	l := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // drop the time, for a stable example
			}
			return a
		},
	}))
	a := audit.NewSlogAuditor(l)
	a.Audit(context.Background(), audit.Event{Kind: "env", Value: "LANG", Decision: audit.Allow})
	a.Audit(context.Background(), audit.Event{Kind: "env", Value: "HOME", Decision: audit.Deny})
	// Output:
	// level=INFO msg=capability kind=env value=LANG decision=allow
	// level=WARN msg=capability kind=env value=HOME decision=deny
}

func ExampleMultiAuditor() {
	count := 0
	counter := audit.AuditorFunc(func(context.Context, audit.Event) { count++ })
	printer := audit.AuditorFunc(func(_ context.Context, e audit.Event) {
		fmt.Println(e.Decision, e.Kind, e.Value)
	})
	a := audit.MultiAuditor(counter, printer)
	a.Audit(context.Background(), audit.Event{Kind: "read", Value: "workspace/data", Decision: audit.Allow})
	fmt.Println(count)
	// Output:
	// allow read workspace/data
	// 1
}

// The auditor travels with the call: host functions deep in the runtime
// find it in their context.
func ExampleWithAuditor() {
	ctx := audit.WithAuditor(context.Background(), audit.AuditorFunc(
		func(_ context.Context, e audit.Event) { fmt.Println(e.Decision, e.Kind, e.Value) }))

	hostCall := func(ctx context.Context) {
		eff := capabilities.Set{Env: []string{"LANG"}}
		e := audit.Event{Kind: "env", Value: "HOME", Decision: audit.Allow}
		if err := eff.CheckEnv("HOME"); err != nil {
			e.Decision, e.Reason = audit.Deny, err.Error()
		}
		audit.AuditorFrom(ctx).Audit(ctx, e)
	}
	hostCall(ctx)
	hostCall(context.Background()) // no auditor: Discard
	// Output:
	// deny env HOME
}
