package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/experimental"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// Limits of one run. Each limiter here belongs to exactly one run; the
// guest calls into it from the goroutine running the module, and the host
// reads its totals after the run (or from another goroutine, which is why
// the totals are atomic or locked).

// memoryLimit is the experimental.MemoryAllocator of one run: it backs the
// module's linear memory with a Go byte slice and refuses to grow it past
// limit bytes.
//
// wazero asks the allocator for the initial memory while instantiating and
// again on every memory.grow (internal/wasm/memory.go). A nil slice from
// Reallocate makes memory.grow return -1 to the module, which is how a
// module learns it is out of memory; the module keeps running. The initial
// allocation cannot be refused that way (wazero slices the result without
// checking it), so a module whose initial memory is over the limit gets it
// anyway, is marked as refused, and [CompiledModule.Run] ends the run
// before calling _start (a start function of the module's own has run by
// then). Run also checks exported memories before instantiating, so in
// practice this only happens for a module that does not export its memory.
type memoryLimit struct {
	limit uint64 // bytes of linear memory
	// whole is the run's memory limit, tables included (limit is what
	// is left of it for linear memory); tables are its tables' bytes.
	whole, tables uint64
	// held is the bytes backing the run's linear memory now (the slices'
	// capacity: what the process holds for it), and lent what the runs
	// it started took of its limit ([Caller]).
	held, lent atomic.Uint64
	// shared is the memory limit of the run that started this one and
	// the runs it started in turn, and callersHold what those callers
	// held when this one started; both are 0 for a run nothing started.
	shared, callersHold uint64
	// reserve, if positive, is the capacity the memory is first allocated
	// with (within the limit): a snapshot's size, which its runs grow to
	// at once.
	reserve uint64

	// pool is where the memories go when the run has ended, and come
	// from when it starts (the Runtime's; nil for none).
	pool *memPool
	// freedMu guards freed: the memories wazero freed (closed) during the
	// run, put back in pool once the run has ended.
	freedMu   sync.Mutex
	freed     [][]byte
	refused   atomic.Bool   // a grow was refused
	requested atomic.Uint64 // the largest size refused, in bytes
	peak      atomic.Uint64 // the largest size granted, in bytes
}

// Allocate implements experimental.MemoryAllocator.
func (m *memoryLimit) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	return &linearMemory{m: m, max: min(maximum, m.limit), capacity: max(capacity, m.reserve)}
}

// linearMemory is one linear memory of a run. wazero calls Reallocate only
// from the goroutine that runs the module, so it needs no lock.
type linearMemory struct {
	m        *memoryLimit
	max      uint64 // the most this memory may grow to: the module's max or the run's limit
	capacity uint64 // wazero's suggested initial capacity
	buf      []byte
	// pooled, if not nil, is the whole of the pooled memory buf was cut
	// from: buf's capacity is what the run asked for (what counts against
	// its limit, as a new allocation would), and it grows into the rest
	// without a copy.
	pooled []byte
}

// Reallocate implements experimental.LinearMemory. It grows the backing
// slice in place while capacity lasts and doubles it (up to the limit)
// otherwise, so a module growing one page at a time is not copied on every
// grow and never holds more than twice what it uses, nor more than the
// limit.
func (l *linearMemory) Reallocate(size uint64) []byte {
	if size > l.max {
		l.m.refused.Store(true)
		for {
			old := l.m.requested.Load()
			if size <= old || l.m.requested.CompareAndSwap(old, size) {
				break
			}
		}
		if l.buf == nil { // the initial allocation; see memoryLimit
			l.buf = make([]byte, size)
			l.m.held.Add(size)
			return l.buf
		}
		return nil
	}
	old := uint64(cap(l.buf))
	switch {
	case l.buf == nil:
		want := max(size, min(l.capacity, l.max))
		if l.pooled = l.m.pool.get(size, want); l.pooled != nil {
			l.buf = l.pooled[:size:want]
		} else {
			l.buf = make([]byte, size, want)
		}
	case size <= uint64(cap(l.buf)):
		l.buf = l.buf[:size]
	case l.pooled != nil && size <= uint64(cap(l.pooled)):
		l.buf = l.pooled[:size:max(size, min(2*uint64(cap(l.buf)), l.max, uint64(cap(l.pooled))))]
	default:
		grown := make([]byte, size, max(size, min(2*uint64(cap(l.buf)), l.max)))
		copy(grown, l.buf)
		l.buf, l.pooled = grown, nil
	}
	l.m.held.Add(uint64(cap(l.buf)) - old)
	for {
		old := l.m.peak.Load()
		if size <= old || l.m.peak.CompareAndSwap(old, size) {
			break
		}
	}
	return l.buf
}

// Free implements experimental.LinearMemory. The memory goes back to
// the pool only when the run has ended ([memoryLimit.recycle]): wazero
// may close a module whose code is still running (its context ended).
func (l *linearMemory) Free() {
	l.m.held.Add(-uint64(cap(l.buf)))
	b := l.buf
	if l.pooled != nil {
		b = l.pooled[:len(l.buf)] // the whole memory, as long as the run used it
	}
	if b != nil {
		l.m.freedMu.Lock()
		l.m.freed = append(l.m.freed, b)
		l.m.freedMu.Unlock()
	}
	l.buf, l.pooled = nil, nil
}

// recycle puts the memories freed during the run in the pool; called
// when the run has ended.
func (m *memoryLimit) recycle() {
	m.freedMu.Lock()
	defer m.freedMu.Unlock()
	for _, b := range m.freed {
		m.pool.put(b)
	}
	m.freed = nil
}

// outputLimit counts the bytes a run writes to stdout and stderr together.
// At the limit it writes what still fits, cancels the run with
// errOutputCause and fails the write (the module sees EIO). Later writes
// are dropped.
//
// A nested run's limit has its caller's as parent ([RunConfig.Caller]):
// what it accepts is counted in every limit up the chain, so it accepts
// only what fits in all of them, and the limit that is full is exceeded
// (its run stopped), as is every one below it.
type outputLimit struct {
	limit  uint64
	cancel context.CancelCauseFunc
	parent *outputLimit // the caller's; nil for a run nothing started

	mu       sync.Mutex
	n        uint64 // bytes accepted
	exceeded bool
	shared   bool // exceeded by a limit up the chain, not its own
}

// errOutputCause is the cancellation cause of a run stopped by its output
// limit.
var errOutputCause = errors.New("output limit reached")

// writer returns a stdout or stderr of the run that counts against o and
// the limits up its chain.
func (o *outputLimit) writer(w io.Writer) io.Writer {
	if w == nil {
		w = io.Discard
	}
	return &limitedWriter{o: o, w: w}
}

// localWriter returns a stream of the run that counts against o alone:
// a nested run's output that goes into a file under a [Quota], which
// counts it instead of the callers.
func (o *outputLimit) localWriter(w io.Writer) io.Writer {
	return &limitedWriter{o: o, w: w, local: true}
}

// take accepts up to n bytes (all or none when whole) in o and, unless
// local, every limit up its chain: what fits in all of them. fits says
// whether all n did; when not, the nearest limit that is full (or was
// exceeded before) and those below it are exceeded and their runs
// stopped. The locks are taken from o upwards, the same order for every
// run of a chain.
func (o *outputLimit) take(n uint64, whole, local bool) (got uint64, fits bool) {
	chain := []*outputLimit{o}
	for p := o.parent; p != nil && !local; p = p.parent {
		chain = append(chain, p)
	}
	got, full := n, -1
	for i, l := range chain {
		l.mu.Lock()
		defer l.mu.Unlock()
		room := l.limit - min(l.n, l.limit)
		if l.exceeded {
			room = 0 // writes after a limit was hit are dropped
		}
		if room < got || l.exceeded && full < 0 {
			got, full = room, i
		}
	}
	if full >= 0 && whole {
		got = 0
	}
	for i, l := range chain {
		l.n += got
		if i <= full && !l.exceeded {
			l.exceeded, l.shared = true, i < full
			l.cancel(errOutputCause)
		}
	}
	return got, full < 0
}

// Spend implements abi.OutputBudget: the host functions log and output
// spend from the same budget as stdout and stderr. Bytes that do not fit
// are refused whole (a log line is not cut), and the run is stopped as by
// a write past the limit.
func (o *outputLimit) Spend(n int) bool {
	_, fits := o.take(uint64(n), true, false)
	return fits
}

// written reports the bytes accepted so far, whether the limit was hit,
// and whether it was a limit up the chain that was.
func (o *outputLimit) written() (n uint64, exceeded, shared bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n, o.exceeded, o.shared
}

// limitedWriter is stdout or stderr of a run. wazero writes to it from the
// module's goroutine; the lock in outputLimit keeps the shared count right
// even if an embedder's writer is slow or the same for both streams.
type limitedWriter struct {
	o     *outputLimit
	w     io.Writer
	local bool // counted against o alone (localWriter)
}

func (lw *limitedWriter) Write(p []byte) (int, error) {
	got, fits := lw.o.take(uint64(len(p)), false, lw.local)
	if !fits && got == 0 {
		return 0, errOutputCause
	}
	var n int
	var err error
	if got > 0 {
		n, err = lw.w.Write(p[:got])
	}
	if !fits && err == nil {
		err = errOutputCause
	}
	return n, err
}

// stdinReader makes a blocking reader give up when the run's context is
// done, so a module waiting for input that never comes (a terminal, a pipe
// nobody writes to) is still stopped by its timeout.
//
// Each Read that would block starts one goroutine reading into a buffer of
// our own, never into p: p is the module's memory, which must not be
// written after Read returns. If the context ends first, Read returns and
// that goroutine stays blocked in the embedder's reader until it returns;
// whatever it reads then is dropped. Readers that never block (in-memory
// readers) are read directly.
type stdinReader struct {
	ctx context.Context
	r   io.Reader

	buf     []byte          // owned by the pending read while pending != nil
	left    []byte          // read but not yet returned
	err     error           // the reader's final error, after left
	pending chan readResult // the read in flight, or nil
}

type readResult struct {
	n   int
	err error
}

// newStdin returns the stdin of a run: empty for nil, the reader itself if
// it cannot block, or a stdinReader.
func newStdin(ctx context.Context, r io.Reader) io.Reader {
	switch r.(type) {
	case nil:
		return nil // wazero's stdin then reads EOF
	case *bytes.Reader, *strings.Reader, *bytes.Buffer:
		return r
	}
	return &stdinReader{ctx: ctx, r: r}
}

func (s *stdinReader) Read(p []byte) (int, error) {
	if len(s.left) > 0 {
		n := copy(p, s.left)
		s.left = s.left[n:]
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if s.pending == nil {
		const maxChunk = 64 << 10
		if size := min(len(p), maxChunk); cap(s.buf) < size {
			s.buf = make([]byte, size)
		} else {
			s.buf = s.buf[:size]
		}
		buf, ch := s.buf, make(chan readResult, 1)
		s.pending = ch
		go func() {
			n, err := s.r.Read(buf)
			ch <- readResult{n, err}
		}()
	}
	select {
	case res := <-s.pending:
		s.pending = nil
		n := copy(p, s.buf[:res.n])
		s.left = s.buf[n:res.n]
		if res.err != nil {
			s.err = res.err
			if len(s.left) > 0 || n > 0 {
				return n, nil
			}
		}
		return n, res.err
	case <-s.ctx.Done():
		return 0, context.Cause(s.ctx)
	}
}

// sleeper returns the nanosleep of a run: it sleeps on a timer but wakes as
// soon as ctx is done, so a module in sleep(1h) is stopped by its timeout.
// wazero then closes the module at its next function call or loop.
func sleeper(ctx context.Context) func(ns int64) {
	return func(ns int64) {
		if ns <= 0 {
			return
		}
		t := time.NewTimer(time.Duration(ns))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// maxOpenFiles caps the files and directories a run may hold open at once,
// across all its mounts. Every file a module opens in a mount is a real
// file descriptor of the host process, and wazero's descriptor table has no
// bound of its own, so without this cap one module could use up the host's
// descriptor limit (RLIMIT_NOFILE) and make every other open in the
// process fail, other runs included. 1024 is the usual default soft limit
// of a Unix process, so a program that works natively fits.
const maxOpenFiles = 1024

// openFiles counts open files against a cap: a run's own count (at most
// maxOpenFiles) has the Runtime's (at most Options.MaxOpenFiles, for all
// its runs) as parent, so a file takes a slot in both. Without the
// Runtime's cap, 200 runs of 1,024 files each would use up the process's
// descriptors and fail every other open, other runs' included.
type openFiles struct {
	mu     sync.Mutex
	n, max int
	parent *openFiles // nil for the Runtime's count
	what   string     // the cap, for the audit: "per run"
}

// acquire takes a slot in o and its parents; it returns the count that
// was full (taking nothing), or nil.
func (o *openFiles) acquire() *openFiles {
	o.mu.Lock()
	if o.n >= o.max {
		o.mu.Unlock()
		return o
	}
	o.n++
	o.mu.Unlock()
	if o.parent != nil {
		if full := o.parent.acquire(); full != nil {
			o.mu.Lock()
			o.n--
			o.mu.Unlock()
			return full
		}
	}
	return nil
}

// take takes a slot in o and its parents even past their caps.
func (o *openFiles) take() {
	for ; o != nil; o = o.parent {
		o.mu.Lock()
		o.n++
		o.mu.Unlock()
	}
}

// count returns the slots in use.
func (o *openFiles) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// countedFS is a mount of a run that counts open files against
// maxOpenFiles. Past the cap OpenFile fails with EAGAIN: WASI has no
// EMFILE ("too many open files") in wazero's errno set, and EAGAIN
// ("resource temporarily unavailable") is the nearest that tells a module
// to close something first. The audit event names the real reason.
//
// The first open of the mount's root is never refused, only counted:
// wazero opens a preopen's root lazily, on the module's first use of it
// (Go's runtime init asks for the preopens before main), and panics on
// any error there but ENOENT, so a refusal would trap the run before its
// code starts, with a message about fd_prestat_get. It costs one file per
// mount over the cap at most, and a run's mounts are few.
type countedFS struct {
	experimentalsys.FS
	open       *openFiles
	audit      func(op, path string, full *openFiles) // records a refusal
	rootOpened atomic.Bool
}

func (c *countedFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if path == "." && c.rootOpened.CompareAndSwap(false, true) {
		c.open.take()
	} else if full := c.open.acquire(); full != nil {
		c.audit("open", path, full)
		return nil, experimentalsys.EAGAIN
	}

	f, errno := c.FS.OpenFile(path, flag, perm)
	if errno != 0 {
		c.open.release()
		return nil, errno
	}
	return &countedFile{File: f, open: c.open}, 0
}

func (o *openFiles) release() {
	o.mu.Lock()
	o.n--
	o.mu.Unlock()
	if o.parent != nil {
		o.parent.release()
	}
}

// countedFile gives its slot back when closed. wazero closes every file a
// module left open when the module is closed, so a run never leaks them.
type countedFile struct {
	experimentalsys.File
	open   *openFiles
	closed bool // Close is called from the module's goroutine only
}

func (f *countedFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	f.open.release()
	return f.File.Close()
}

// virtualClock is the clock of a deterministic run: it starts at wazero's
// fake epoch (2022-01-01T00:00:00Z), moves 1 ms forward on every reading,
// as wazero's own fake clock does, and a sleep moves it forward by the
// time slept instead of waiting. wazero's fake sleep returns without
// moving its clock, so a program that sleeps until the clock says an hour
// has passed (Go's time.Sleep does) would read the clock 3.6 million times
// first; with this clock it reads it a few times. The wall clock and the
// monotonic clock are the same counter, so they agree.
//
// A virtualClock belongs to one run; wazero calls it from the module's
// goroutine only.
type virtualClock struct {
	elapsed int64 // nanoseconds since the epoch
}

const (
	virtualEpoch = 1640995200 * int64(time.Second) // 2022-01-01T00:00:00Z, as wazero's fake clock
	virtualTick  = int64(time.Millisecond)
)

func (c *virtualClock) walltime() (sec int64, nsec int32) {
	c.elapsed += virtualTick
	t := virtualEpoch + c.elapsed
	return t / int64(time.Second), int32(t % int64(time.Second))
}

func (c *virtualClock) nanotime() int64 {
	c.elapsed += virtualTick
	return c.elapsed
}

func (c *virtualClock) nanosleep(ns int64) {
	if ns > 0 {
		c.elapsed += ns
	}
}

// Nested runs. A host function may start another run while the run that
// called it waits in the call: skillrun's exec host function starts
// python3, node or the shell that way. Were the new run given fresh
// limits, a script would multiply them by starting itself: five levels of
// a 128 MiB run hold 640 MiB, six children of a 1 MiB run print 6 MiB,
// and a folder's write limit is new for every run that mounts it. So a
// nested run ([RunConfig.Caller]) spends from its caller's limits instead,
// and the folders runs share are bounded by one [Quota] whoever writes.

// A Caller is a run as the host functions it calls see it: the limits a
// run they start (a nested run) spends from. Get it with [CallerOf].
type Caller struct {
	out *outputLimit
	mem *memoryLimit // nil for a plugin call, whose host functions start no runs
}

// callerKey is the ctx key of the *Caller of a run's host calls.
type callerKey struct{}

// CallerOf returns the run whose host function is being served with ctx
// (the ctx a [HostDispatcher] is given), or nil for any other ctx.
func CallerOf(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// Writer returns a writer that counts what it writes against the
// caller's output limit (and those of the runs that started it), as the
// caller's own stdout: for the output of a nested run that is not a run
// of this sandbox, such as a host process. The write that crosses the
// limit is cut there and stops the caller, as its own would.
func (c *Caller) Writer(w io.Writer) io.Writer {
	return c.out.writer(w)
}

// lend takes the memory limit of a run c starts: want, or what is left
// of c's own limit once c's tables, the linear memory c holds and what
// its other nested runs took are counted, whichever is less. c waits in
// its host call meanwhile, so what it holds does not grow. The returned
// func gives the memory back when the nested run has ended. hold is what
// c and its own callers hold, for the error messages.
func (c *Caller) lend(want uint64) (got, hold uint64, giveBack func()) {
	m := c.mem
	for {
		lent := m.lent.Load()
		used := m.tables + m.held.Load() + lent
		got = min(want, m.whole-min(used, m.whole))
		if m.lent.CompareAndSwap(lent, lent+got) {
			break
		}
	}
	return got, m.callersHold + m.tables + m.held.Load(), func() { m.lent.Add(^(got - 1)) }
}

// A Quota bounds the bytes written into one folder by every run that
// mounts it with the quota ([Mount.Quota]) and by the writers it makes
// ([Quota.Writer]): one count, however many runs share the folder. Every
// byte written counts, rewrites too, and so does growth by truncation;
// deleting gives nothing back. A Quota is safe for concurrent use.
type Quota struct {
	used atomic.Int64
	max  int64
}

// NewQuota returns a quota of limit bytes (at least 0).
func NewQuota(limit int64) *Quota {
	return &Quota{max: max(0, limit)}
}

// Max is the quota's bound in bytes.
func (q *Quota) Max() int64 { return q.max }

// Used is how many bytes were written against the quota.
func (q *Quota) Used() int64 { return q.used.Load() }

// take reserves up to n bytes and returns how many it got: n, or what is
// left (0 when nothing is). A nil quota bounds nothing.
func (q *Quota) take(n int64) int64 {
	if q == nil {
		return n
	}
	for {
		used := q.used.Load()
		got := min(n, q.max-used)
		if got <= 0 {
			return 0
		}
		if q.used.CompareAndSwap(used, used+got) {
			return got
		}
	}
}

// give returns n reserved bytes that were not written.
func (q *Quota) give(n int64) {
	if q != nil && n > 0 {
		q.used.Add(-n)
	}
}

// ErrQuota matches the error of a [Quota.Writer] whose quota is used up.
var ErrQuota = errors.New("write limit used up")

// Writer returns a writer to w (a file in the folder the quota bounds,
// opened by the host) whose writes count against the quota: a write
// that crosses it is cut there and fails with an error matching
// [ErrQuota], as do the writes after it. full, if not nil, is called at
// the first such write (to audit it). A nested run's stdout or stderr
// that goes to such a writer counts against the quota instead of its
// caller's output limit ([RunConfig.Caller]).
func (q *Quota) Writer(w io.Writer, full func()) io.Writer {
	return &quotaWriter{q: q, w: w, full: full}
}

// quotaWriter is what [Quota.Writer] returns. Its writes come one at a
// time (a run's stream).
type quotaWriter struct {
	q      *Quota
	w      io.Writer
	full   func()
	called bool
}

func (qw *quotaWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	got := qw.q.take(int64(len(p)))
	n, err := 0, error(nil)
	if got > 0 {
		n, err = qw.w.Write(p[:got])
		qw.q.give(got - int64(n))
	}
	if err == nil && n < len(p) {
		err = fmt.Errorf("%w: the folder's write limit of %s is used up", ErrQuota, size(uint64(qw.q.max)))
		if qw.full != nil && !qw.called {
			qw.called = true
			qw.full()
		}
	}
	return n, err
}
