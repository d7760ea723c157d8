package testkit

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/skillrun/skillrun/audit"
)

// AuditLog collects audit events as "decision kind value: reason", for
// tests that check what a run audited. Its zero value is ready to use and
// it is safe for concurrent use.
type AuditLog struct {
	mu     sync.Mutex
	events []string
}

// Auditor returns the auditor that appends to l.
func (l *AuditLog) Auditor() audit.Auditor {
	return audit.AuditorFunc(func(_ context.Context, e audit.Event) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.events = append(l.events, string(e.Decision)+" "+e.Kind+" "+e.Value+": "+e.Reason)
	})
}

// Events returns a copy of the events so far.
func (l *AuditLog) Events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// Has fails t unless an event starts with prefix and contains reason.
func (l *AuditLog) Has(t testing.TB, prefix, reason string) {
	t.Helper()
	events := l.Events()
	for _, e := range events {
		if strings.HasPrefix(e, prefix) && strings.Contains(e, reason) {
			return
		}
	}
	t.Errorf("no audit event %q with %q; got:\n%s", prefix, reason, strings.Join(events, "\n"))
}
