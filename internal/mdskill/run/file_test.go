package run

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/skillrun/skillrun/audit"
)

func writeFile(dir, name, body string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
}

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
