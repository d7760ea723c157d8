package run

import (
	"context"
	"sync"

	"github.com/skillrun/skillrun/audit"
)

// recorder is an auditor that keeps the events, for tests to read.
type recorder struct {
	mu     sync.Mutex
	events []audit.Event
}

func (r *recorder) Audit(_ context.Context, e audit.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []audit.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]audit.Event(nil), r.events...)
}
