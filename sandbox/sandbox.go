package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Options configures a [Runtime]. The zero value, and a nil *Options, mean
// the defaults: the compiler where wazero supports it, and a compilation
// cache on disk under the user's cache directory.
type Options struct {
	// CacheDir holds wazero's compilation cache, so that a module compiled
	// once is loaded, not compiled, by the next process. "" means
	// <os.UserCacheDir()>/skillrun/wazero; if there is no user cache
	// directory (no $HOME), the Runtime logs a warning and caches in memory
	// only. wazero keys each entry by its own version and the SHA-256 of the
	// module's bytes, so a changed module or a new wazero never reuses a
	// stale entry; old entries are never read again, and deleting the
	// directory is always safe. The directory must be writable by this
	// process only: a module loaded from it is trusted machine code.
	CacheDir string

	// NoCache disables the disk cache (CacheDir is then ignored).
	NoCache bool

	// MaxCacheBytes bounds the disk cache: when its entries for this
	// wazero version pass it, the oldest (by modification time) are
	// deleted until it fits, at New and after each compile. 0 means
	// 1 GiB. An entry deleted is compiled again when
	// needed.
	MaxCacheBytes int64

	// MaxCompiledBytes bounds the modules whose compiled code the Runtime
	// keeps in memory for [Runtime.CompileOnce] (the scripts layer's
	// scripts, script tools and interpreters),
	// counted by the size of their Wasm bytes (compiled code is several
	// times larger: a 2.8 MB Go module takes about 20 MiB). Past it the
	// least recently used module is dropped, and closed once its runs
	// end; it is compiled (or loaded from the disk cache) again when
	// needed. The module just used is always kept. 0 means
	// 64 MiB. Modules from [Runtime.Compile] are the
	// caller's and not counted.
	MaxCompiledBytes int64

	// MaxOpenFiles bounds the files all runs of the Runtime hold open in
	// their mounts at once (each run also holds at most 1024). Past it an
	// open fails with EAGAIN and an audit event saying why. 0 means half
	// the process's limit (RLIMIT_NOFILE) where there is one, at most
	// 65536 and at least 256 (8192 elsewhere).
	MaxOpenFiles int

	// MaxCompiles bounds the modules compiling at once (each uses up to
	// GOMAXPROCS threads). 0 means 2.
	MaxCompiles int

	// CompileTimeout bounds the time one compilation is waited for,
	// including the wait for a compile slot; 0 means
	// 2 minutes. See [Runtime.Compile].
	CompileTimeout time.Duration

	// Interpreter selects wazero's interpreter instead of its compiler. The
	// interpreter compiles fast and runs slowly; the compiler is the other
	// way round. On platforms the compiler does not support, the
	// interpreter is used either way.
	Interpreter bool

	// Logger receives debug lines (compiles, runs) and warnings. nil
	// discards them.
	Logger *slog.Logger

	// uninterruptible turns off wazero's context checks in compiled code.
	// For BenchmarkTimeoutCost only, which measures what the checks cost.
	// Without them a timeout cannot stop a busy module, and worse: compiled
	// code without the checks never yields to Go, so a busy module also
	// blocks the garbage collector's stop-the-world and freezes the whole
	// process at the next GC (tried: runtime.GC never returned).
	uninterruptible bool
}

// Defaults of [Options].
const (
	defaultMaxCacheBytes    int64 = 4 << 30  // 4 GiB of compiled code on disk: the interpreters alone take about 400 MiB
	defaultMaxCompiledBytes int64 = 64 << 20 // Wasm bytes; about 450 MiB of compiled code
	defaultMaxCompiles            = 2
	defaultCompileTimeout         = 2 * time.Minute
)

// A Runtime compiles and runs WebAssembly modules. It owns one wazero
// runtime, its compilation cache and the WASI host module that every
// module run by it imports.
//
// A Runtime is safe for concurrent use: any number of goroutines may
// compile and run modules at the same time. Close it when done; that
// releases the compiled code of every module it compiled.
type Runtime struct {
	wr    wazero.Runtime
	cache wazero.CompilationCache // nil without a disk cache
	log   *slog.Logger
	wasi  map[string]api.FunctionDefinition // wasi_snapshot_preview1 exports
	// hostFuncs are the exports of the skillrun host module.
	hostFuncs map[string]api.FunctionDefinition
	closed    atomic.Bool

	// kept holds CompileOnce's compiled modules by key (memo.go).
	kept memo
	// memPool keeps ended runs' memories for the next runs (mempool.go).
	memPool memPool

	compileSlots chan struct{} // one per compilation in progress
	// compiles counts wazero compilations in progress, which cannot be
	// stopped: Close leaves closing wazero's runtime and cache to the last
	// of them (closing under one makes wazero panic in its goroutine).
	compiles       compileCount
	compileTimeout time.Duration
	cacheRoot      string // the disk cache's folder (cache.go), or ""
	maxCacheBytes  int64
	cacheMu        sync.Mutex // serializes checks and pruning

	plugins pluginCache // CallPlugin's compiled Extism plugins (extism.go)

	// openFiles counts the files all runs hold open (Options.MaxOpenFiles).
	openFiles openFiles

	// runs counts the runs in progress, and stop ends them: Close stops
	// every run and waits for it before closing wazero's runtime, whose
	// Close is not safe beside a module still using its files.
	runs     activeRuns
	stop     context.Context
	stopRuns context.CancelFunc

	// cacheDir is the disk cache's folder ("" without one); no run
	// may write into it (RunConfig.Protected, [Runtime.CacheDir]).
	cacheDir string
}

// New returns a Runtime configured by o (nil means defaults).
//
// Every Runtime enforces deadlines: modules are compiled with wazero's
// context checks (WithCloseOnContextDone), which make [RunConfig.Timeout]
// and cancellation of ctx real, and let Go's scheduler and garbage
// collector interrupt a busy module. They are not free: the compiled code
// leaves for Go at every loop header, and Go guests, whose functions are
// loops, pay it on every call (BenchmarkTimeoutCost: about 6x on a
// recursive fib). There is no option to turn them off: without them one
// busy module freezes the whole process at its next garbage collection. Linear memory is capped at 4 GiB (65536
// pages) for every module; [RunConfig.Memory] narrows that per run.
func New(ctx context.Context, o *Options) (*Runtime, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	cfg := wazero.NewRuntimeConfig()
	if opts.Interpreter {
		cfg = wazero.NewRuntimeConfigInterpreter()
	}
	cfg = cfg.
		WithCloseOnContextDone(!opts.uninterruptible).
		WithMemoryLimitPages(65536)

	r := &Runtime{log: log,
		compileSlots:   make(chan struct{}, cmp.Or(opts.MaxCompiles, defaultMaxCompiles)),
		compileTimeout: cmp.Or(opts.CompileTimeout, defaultCompileTimeout),
		maxCacheBytes:  cmp.Or(opts.MaxCacheBytes, defaultMaxCacheBytes),
		openFiles:      openFiles{max: cmp.Or(opts.MaxOpenFiles, defaultMaxOpenFiles()), what: "for all runs"},
	}
	r.kept.max = cmp.Or(opts.MaxCompiledBytes, defaultMaxCompiledBytes)
	r.memPool.max = poolMaxBytes
	r.stop, r.stopRuns = context.WithCancel(context.Background())
	if !opts.NoCache {
		dir, err := cacheDir(opts.CacheDir)
		if err != nil {
			log.Warn("no compilation cache on disk; compiled modules are kept in memory only", "err", err)
		} else {
			cache, err := r.openCache(dir)
			switch {
			case err != nil: // cache.go: a cache that cannot work is not a reason to fail
				log.Warn("the compilation cache cannot be used; compiled modules are kept in memory only",
					"dir", dir, "err", err, "fix", "set Options.CacheDir (XDG_CACHE_HOME for the CLI) to a writable directory")
			default:
				r.cache, r.cacheDir = cache, dir
				cfg = cfg.WithCompilationCache(cache)
				log.Debug("compilation cache", "dir", dir)
			}
		}
	}

	wazeroSetupMu.Lock() // see wazeroSetupMu
	r.wr = wazero.NewRuntimeWithConfig(ctx, cfg)
	wazeroSetupMu.Unlock()
	wasi, err := wasi_snapshot_preview1.Instantiate(ctx, r.wr)
	if err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	r.wasi = wasi.(api.Module).ExportedFunctionDefinitions()
	if err := r.instantiateHostModule(ctx); err != nil {
		_ = r.Close(ctx)
		return nil, err
	}
	return r, nil
}

// cacheDir returns the compilation cache directory for Options.CacheDir.
func cacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "skillrun", "wazero"), nil
}

// Close releases the Runtime: every module compiled by it, the WASI host
// module and the in-memory part of the compilation cache (the disk cache
// stays). Runs still in progress are stopped and return an error. Close is
// safe to call more than once; later calls do nothing.
func (r *Runtime) Close(ctx context.Context) error {
	if r.closed.Swap(true) {
		return nil
	}
	r.stopRuns()
	if !r.runs.closeAndWait(closeWait) {
		r.log.Warn("runs still in progress after the Runtime was closed; closing under them", "waited", closeWait)
	}
	r.plugins.closeAll(ctx)
	r.kept.clear()
	closeEngine := func() error {
		err := r.wr.Close(context.WithoutCancel(ctx))
		if r.cache != nil {
			err = errors.Join(err, r.cache.Close(context.WithoutCancel(ctx)))
		}
		return err
	}
	if r.compiles.closeWhenIdle(func() { _ = closeEngine() }) {
		r.log.Warn("a compilation is still in progress after the Runtime was closed; wazero is closed when it ends")
		return nil
	}
	return closeEngine()
}

// compileCount counts the compilations in progress (see Runtime.compiles).
type compileCount struct {
	mu      sync.Mutex
	n       int
	closing func() // set by Close while compilations run; run by the last
}

// start admits a compilation, unless the Runtime is closing.
func (c *compileCount) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing != nil {
		return false
	}
	c.n++
	return true
}

// end ends one; the last to end after Close closes the engine.
func (c *compileCount) end() {
	c.mu.Lock()
	c.n--
	var run func()
	if c.n == 0 && c.closing != nil {
		run = c.closing
	}
	c.mu.Unlock()
	if run != nil {
		run()
	}
}

// closeWhenIdle runs close now if no compilation is in progress (and
// returns false), else leaves it to the last one (true).
func (c *compileCount) closeWhenIdle(close func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		c.closing = func() {}
		return false
	}
	c.closing = close
	return true
}

// closeWait bounds how long Close waits for stopped runs to end. A run
// ends within milliseconds of being stopped (wazero checks the context in
// compiled code, and host calls get it); one that does not is closed
// under.
const closeWait = 10 * time.Second

// activeRuns counts the runs in progress. Once closed it admits no more,
// and closeAndWait waits for those left.
type activeRuns struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 after closing
}

// enter admits a run, unless the Runtime is closed.
func (a *activeRuns) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.n++
	return true
}

// leave ends a run that entered.
func (a *activeRuns) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n--
	if a.n == 0 && a.idle != nil {
		close(a.idle)
		a.idle = nil
	}
}

// closeAndWait admits no more runs and waits up to d for those in
// progress; it reports whether they all ended.
func (a *activeRuns) closeAndWait(d time.Duration) bool {
	a.mu.Lock()
	a.closed = true
	if a.n == 0 {
		a.mu.Unlock()
		return true
	}
	idle := make(chan struct{})
	a.idle = idle
	a.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// errClosed is returned by Compile and Run after Runtime.Close, and
// errModuleClosed by Run after CompiledModule.Close.
var (
	errClosed       = errors.New("runtime is closed")
	errModuleClosed = errors.New("compiled module is closed")
)

// CacheDir returns the folder of the disk cache, or "" without one. Code
// loaded from it runs as trusted machine code, so no run may write into
// it: pass it in [RunConfig.Protected] (the scripts layer does).
func (r *Runtime) CacheDir() string { return r.cacheDir }

// CompileOnce returns the module kept under key, or compiles the bytes
// load returns and keeps the module under key while
// [Options.MaxCompiledBytes] allows (least recently used first out).
// Callers choose the key: a hash of the bytes, or of a file's path, size
// and modification time when hashing a large file on every run costs too
// much. Concurrent calls for one key compile once; calls for other keys
// do not wait for it. The compile runs on its own budget
// ([Options.CompileTimeout]), not ctx, since other callers may wait for it
// too; ctx bounds this caller's wait. load runs on the compile's own
// goroutine; an error from it (or from the compile) is returned to every
// caller waiting and is not kept, so the next call tries again. The
// module stays the Runtime's: do not close it.
func (r *Runtime) CompileOnce(ctx context.Context, key [32]byte, load func() ([]byte, error)) (*CompiledModule, error) {
	return r.kept.once(ctx, key, func() (*CompiledModule, error) {
		wasm, err := load()
		if err != nil {
			return nil, err
		}
		return r.Compile(context.WithoutCancel(ctx), wasm)
	})
}
