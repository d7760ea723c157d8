package sandbox

import (
	"bytes"
	"context"
	"errors"
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
	limit uint64 // bytes
	// reserve, if positive, is the capacity the memory is first allocated
	// with (within the limit): a snapshot's size, which its runs grow to
	// at once.
	reserve uint64

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
			return l.buf
		}
		return nil
	}
	switch {
	case l.buf == nil:
		l.buf = make([]byte, size, max(size, min(l.capacity, l.max)))
	case size <= uint64(cap(l.buf)):
		l.buf = l.buf[:size]
	default:
		grown := make([]byte, size, max(size, min(2*uint64(cap(l.buf)), l.max)))
		copy(grown, l.buf)
		l.buf = grown
	}
	for {
		old := l.m.peak.Load()
		if size <= old || l.m.peak.CompareAndSwap(old, size) {
			break
		}
	}
	return l.buf
}

// Free implements experimental.LinearMemory.
func (l *linearMemory) Free() { l.buf = nil }

// outputLimit counts the bytes a run writes to stdout and stderr together.
// At the limit it writes what still fits, cancels the run with
// errOutputCause and fails the write (the module sees EIO). Later writes
// are dropped.
type outputLimit struct {
	limit  uint64
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	n        uint64 // bytes accepted
	exceeded bool
}

// errOutputCause is the cancellation cause of a run stopped by its output
// limit.
var errOutputCause = errors.New("output limit reached")

func (o *outputLimit) writer(w io.Writer) io.Writer {
	if w == nil {
		w = io.Discard
	}
	return &limitedWriter{o: o, w: w}
}

// Spend implements abi.OutputBudget: the host functions log and output
// spend from the same budget as stdout and stderr. Bytes that do not fit
// are refused whole (a log line is not cut), and the run is stopped as by
// a write past the limit.
func (o *outputLimit) Spend(n int) bool {
	o.mu.Lock()
	fits := !o.exceeded && uint64(n) <= o.limit-o.n
	if fits {
		o.n += uint64(n)
	} else {
		o.exceeded = true
	}
	o.mu.Unlock()
	if !fits {
		o.cancel(errOutputCause)
	}
	return fits
}

// written reports the bytes accepted so far and whether the limit was hit.
func (o *outputLimit) written() (uint64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n, o.exceeded
}

// limitedWriter is stdout or stderr of a run. wazero writes to it from the
// module's goroutine; the lock in outputLimit keeps the shared count right
// even if an embedder's writer is slow or the same for both streams.
type limitedWriter struct {
	o *outputLimit
	w io.Writer
}

func (lw *limitedWriter) Write(p []byte) (int, error) {
	o := lw.o
	o.mu.Lock()
	if o.exceeded {
		o.mu.Unlock()
		return 0, errOutputCause
	}
	room := o.limit - o.n
	fits := uint64(len(p)) <= room
	if !fits {
		p = p[:room]
		o.exceeded = true
	}
	o.n += uint64(len(p))
	o.mu.Unlock()

	var n int
	var err error
	if len(p) > 0 {
		n, err = lw.w.Write(p)
	}
	if !fits {
		o.cancel(errOutputCause)
		if err == nil {
			err = errOutputCause
		}
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
