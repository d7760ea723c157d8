// Package admission bounds the sandbox runs a process has in flight at
// once: how many, and how much memory their limits reserve together.
//
// Every run is bounded on its own (memory, time, output), but nothing
// else bounded how many ran side by side: an MCP client making twelve
// parallel tool calls held twelve memory limits at once, bounded only by
// the host. A [Controller] is the one gate each top-level run passes
// before it starts: it takes one run slot and the run's memory limit, and
// gives both back when the run ends. A run that does not fit waits its
// turn, first come first served, for at most [Limits.Wait]; then it fails
// with an error that says what is in use and which flag raises it. It
// never waits without bound.
//
// Runs that a run starts (exec, skill_run, a tool_call that runs a
// script) spend their caller's reservation: they are not admitted again,
// which could deadlock a caller waiting on its own child. The caller's
// context carries the mark ([Controller.Admit]).
package admission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// DefaultWait is how long a run waits for its turn when [Limits.Wait] is
// 0: twice the sandbox's default run timeout (30s), so a run queued
// behind full slots of default runs gets its turn, while a client is
// told within a minute that the server is saturated rather than left
// hanging.
const DefaultWait = time.Minute

// fallbackMemory is the memory bound when the machine's memory cannot be
// read (not Linux): room for sixteen runs at the sandbox's default
// 256 MiB, or two native-tier runs at their default 2 GiB.
const fallbackMemory = 4 << 30

// Limits bound what a [Controller] admits. Zero fields mean the defaults.
type Limits struct {
	// Runs is the most runs in flight at once (0: [DefaultRuns]).
	Runs int
	// Memory is the most bytes the memory limits of the runs in flight
	// may add up to (0: [DefaultMemory]).
	Memory int64
	// Wait is the longest a run waits for its turn (0: [DefaultWait]).
	Wait time.Duration
}

// DefaultRuns is the run bound of a machine: twice GOMAXPROCS, and at
// least 4. Guests are mostly CPU-bound, so more runs than cores only
// share the cores; twice leaves room for runs waiting on I/O, sleep or a
// nested tool call.
func DefaultRuns() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// DefaultMemory is the memory bound of a machine: half its physical
// memory (MemTotal of /proc/meminfo on Linux), else 4 GiB. Half leaves
// the rest to the host process itself (compiled modules, caches), the
// other programs of the machine and the page cache; the reservation is
// of limits, which runs rarely fill, so it errs on the safe side.
func DefaultMemory() int64 {
	if total := physicalMemory(); total > 0 {
		return total / 2
	}
	return fallbackMemory
}

// ErrBusy matches the error of a run that waited its whole turn and was
// not admitted ([BusyError]).
var ErrBusy = errors.New("too many runs in flight")

// ErrTooLarge matches the error of a run whose memory limit alone is
// more than all runs together may reserve: it could never start.
var ErrTooLarge = errors.New("run's memory limit is over the bound of all runs")

// A BusyError says that a run waited its whole turn and was not admitted,
// with what was in use then. It matches [ErrBusy].
type BusyError struct {
	Waited            time.Duration
	Runs, MaxRuns     int   // runs in flight, and the bound
	Memory, MaxMemory int64 // bytes reserved, and the bound
	Need              int64 // the run's memory limit
	Queued            int   // other runs waiting then
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("too many runs in flight: waited %s for a turn; %d of %d runs in flight (--max-runs), %s of %s memory reserved (--max-run-memory), this run needs %s, %d more waiting; raise --max-runs or --max-run-memory, or call again when fewer runs are in flight",
		e.Waited.Round(time.Millisecond), e.Runs, e.MaxRuns, FormatBytes(e.Memory), FormatBytes(e.MaxMemory), FormatBytes(e.Need), e.Queued)
}

// Is reports whether target is [ErrBusy].
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// A Controller admits runs within its [Limits]: see the package doc. It
// is safe for concurrent use; create one per process (one per
// scripts.Runner) and keep it.
type Controller struct {
	limits Limits

	mu     sync.Mutex
	runs   int
	memory int64
	queue  []*waiter // FIFO: only the head may be admitted
}

// A waiter is a run waiting for its turn; ready is closed when it is
// admitted.
type waiter struct {
	memory int64
	ready  chan struct{}
}

// New returns a Controller of l, its zero fields filled with the
// defaults.
func New(l Limits) *Controller {
	if l.Runs <= 0 {
		l.Runs = DefaultRuns()
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory()
	}
	if l.Wait <= 0 {
		l.Wait = DefaultWait
	}
	return &Controller{limits: l}
}

// Limits returns the Controller's limits, defaults filled in.
func (c *Controller) Limits() Limits { return c.limits }

// admittedKey marks a context whose run holds a reservation of a
// Controller (the value).
type admittedKey struct{}

// Admit reserves one run and memory bytes for a run about to start, and
// returns ctx marked as holding them (pass it to the run) and the func
// that gives them back (call it when the run ends, once). If ctx already
// holds a reservation of c, the run is one a run started: it spends that
// reservation, and Admit returns at once.
//
// Otherwise Admit waits its turn, first come first served: a run does not
// overtake one that came earlier, even if it would fit. It fails with
// [ErrTooLarge] at once if memory is over the whole bound, with a
// [BusyError] when the wait bound passes, and with ctx's error when ctx
// ends first.
func (c *Controller) Admit(ctx context.Context, memory int64) (context.Context, func(), error) {
	if held, _ := ctx.Value(admittedKey{}).(*Controller); held == c {
		return ctx, func() {}, nil
	}
	memory = max(memory, 0)
	if memory > c.limits.Memory {
		return ctx, nil, fmt.Errorf("%w: this run's memory limit %s is more than all runs together may reserve (--max-run-memory %s); raise --max-run-memory or lower the run's memory limit",
			ErrTooLarge, FormatBytes(memory), FormatBytes(c.limits.Memory))
	}
	if err := c.acquire(ctx, memory); err != nil {
		return ctx, nil, err
	}
	var once sync.Once
	release := func() { once.Do(func() { c.release(memory) }) }
	return context.WithValue(ctx, admittedKey{}, c), release, nil
}

// fits reports whether a run of memory bytes fits now. Call with mu held.
func (c *Controller) fits(memory int64) bool {
	return c.runs < c.limits.Runs && c.memory+memory <= c.limits.Memory
}

func (c *Controller) acquire(ctx context.Context, memory int64) error {
	start := time.Now()
	c.mu.Lock()
	if len(c.queue) == 0 && c.fits(memory) {
		c.runs++
		c.memory += memory
		c.mu.Unlock()
		return nil
	}
	w := &waiter{memory: memory, ready: make(chan struct{})}
	c.queue = append(c.queue, w)
	c.mu.Unlock()

	timer := time.NewTimer(c.limits.Wait)
	defer timer.Stop()
	var err error
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		err = fmt.Errorf("waiting for a turn to run: %w", ctx.Err())
	case <-timer.C:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-w.ready:
		// Admitted meanwhile. A timeout lost the race fairly: run. A
		// cancelled caller will not run: give the turn back.
		if err == nil {
			return nil
		}
		c.runs--
		c.memory -= memory
		c.admitHead()
		return err
	default:
	}
	i := slices.Index(c.queue, w)
	c.queue = slices.Delete(c.queue, i, i+1)
	if i == 0 {
		c.admitHead() // the next may fit where this one did not
	}
	if err != nil {
		return err
	}
	return &BusyError{Waited: time.Since(start), Runs: c.runs, MaxRuns: c.limits.Runs,
		Memory: c.memory, MaxMemory: c.limits.Memory, Need: memory, Queued: len(c.queue)}
}

func (c *Controller) release(memory int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs--
	c.memory -= memory
	c.admitHead()
}

// admitHead admits waiters from the head of the queue while they fit.
// Call with mu held.
func (c *Controller) admitHead() {
	for len(c.queue) > 0 && c.fits(c.queue[0].memory) {
		w := c.queue[0]
		c.queue = c.queue[1:]
		c.runs++
		c.memory += w.memory
		close(w.ready)
	}
}

// InUse returns the runs in flight and the memory they reserve.
func (c *Controller) InUse() (runs int, memory int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs, c.memory
}

// FormatBytes writes n for a person: "256MiB", "11.7GiB", "1536B".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return trimZero(strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64)) + "GiB"
	case n >= 1<<20:
		return trimZero(strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64)) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
