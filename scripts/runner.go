package scripts

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/admission"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
)

// Options configures a [Runner]. The zero value, and a nil *Options, mean
// the defaults.
type Options struct {
	// Sandbox configures the core runtime the scripts run on; nil means
	// its defaults (the compiler, a disk cache under the user's cache
	// directory).
	Sandbox *sandbox.Options

	// Interpreters finds the interpreter of a "source" script when its
	// [ScriptRun] names none, in every way a script runs (RunScript, a
	// script tool, skill_run). nil means [InstalledInterpreters] of the
	// default folder.
	Interpreters InterpreterFunc

	// NoSnapshots starts every interpreter run (Python, JavaScript, the
	// shell) from _start instead of from a snapshot of the initialised
	// interpreter (snapshot.go): for comparing the two, and for finding a
	// fault in one.
	NoSnapshots bool

	// MaxRuns, MaxRunMemory and MaxRunWait bound the Runner's runs in
	// flight at once, whoever starts them (an MCP client's parallel tool
	// calls, a session's, a benchmark's parallel trials): every run is
	// bounded on its own, and these bound them together. A run a caller
	// starts ([Runner.RunScript], [Runner.RunShell], the script and shell
	// tools) takes one of MaxRuns slots and reserves its memory limit out
	// of MaxRunMemory before it starts; one that does not fit waits its
	// turn, first come first served, for at most MaxRunWait, then fails
	// with [errBusy]. A run whose memory limit alone is over MaxRunMemory
	// fails at once ([ErrNotRunnable]). Runs that a run starts (exec,
	// skill_run, tool_call) spend their caller's reservation.
	//
	// Zero means the machine's default: twice GOMAXPROCS runs (at least
	// 4), half the physical memory (4 GiB where it cannot be read), and a
	// wait of one minute. skillrun's flags --max-runs, --max-run-memory
	// and --max-run-wait set them.
	MaxRuns      int
	MaxRunMemory capabilities.Size
	MaxRunWait   time.Duration

	// Progress, if not nil, is told what takes long once per machine:
	// compiling an interpreter into the compile cache (seconds for tens
	// of MB of WebAssembly), when it takes over 3 seconds, with its time.
	Progress io.Writer
}

// A Runner runs skills' scripts on a [sandbox.Runtime]: it resolves what
// each script may do into the sandbox's mounts, environment and limits,
// serves its host functions from [host.Services], and finds the
// interpreter of a source script. Create one per process and keep it; it
// is safe for concurrent use. Close it when done.
type Runner struct {
	sb           *sandbox.Runtime
	interpreters InterpreterFunc
	noSnapshots  bool
	// starts counts the runs of each interpreter whose snapshot is kept
	// in memory only (snapshot.go: made on the second run).
	starts    sync.Map              // snapshot key -> *atomic.Int32
	admission *admission.Controller // the turns of top-level runs (admission.go)
	progress  io.Writer             // Options.Progress
}

// New returns a Runner on a new sandbox runtime configured by o (nil
// means defaults).
func New(ctx context.Context, o *Options) (*Runner, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.MaxRuns < 0 || opts.MaxRunMemory < 0 || opts.MaxRunWait < 0 {
		return nil, fmt.Errorf("scripts: MaxRuns %d, MaxRunMemory %d and MaxRunWait %s must not be negative (0 means the default)",
			opts.MaxRuns, opts.MaxRunMemory, opts.MaxRunWait)
	}
	sb, err := sandbox.New(ctx, opts.Sandbox)
	if err != nil {
		return nil, err
	}
	adm := admission.New(admission.Limits{Runs: opts.MaxRuns, Memory: int64(opts.MaxRunMemory), Wait: opts.MaxRunWait})
	return &Runner{sb: sb, interpreters: opts.Interpreters, noSnapshots: opts.NoSnapshots, admission: adm, progress: opts.Progress}, nil
}

// slowCompile says on Options.Progress that an interpreter is being
// compiled when that takes over 3 seconds (a load from the compile cache
// takes less), and when it is done, with its time. Call the function it
// returns when the compile is done.
func (r *Runner) slowCompile(name string, size int64) func() {
	if r.progress == nil {
		return func() {}
	}
	start := time.Now()
	var mu sync.Mutex
	announced, finished := false, false
	// Loading 11 MB from the compile cache takes under a second, even on
	// a busy machine about 1.5 s; compiling it, 5 s and more.
	t := time.AfterFunc(3*time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		if !finished {
			announced = true
			fmt.Fprintf(r.progress, "skillrun: compiling the interpreter %s (%.1f MB) into the compile cache, once per machine and skillrun version...\n",
				name, float64(size)/1e6)
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		finished = true
		if announced {
			fmt.Fprintf(r.progress, "skillrun: compiled %s in %.1fs\n", name, time.Since(start).Seconds())
		}
	}
}

// Sandbox returns the runtime the Runner's scripts run on, for compiling
// and running modules of one's own beside them.
func (r *Runner) Sandbox() *sandbox.Runtime { return r.sb }

// Close releases the Runner's sandbox runtime (see [sandbox.Runtime.Close]).
func (r *Runner) Close(ctx context.Context) error { return r.sb.Close(ctx) }

// ProtectedDirs returns extra followed by the folders no script or tool
// may change: the default interpreters folder and the sandbox's compile
// cache. Each holds code some later run executes, so writing it would let
// one script run its code as another, with that one's grants. (Skill
// folders, any folder holding a SKILL.md, are protected without being
// named.) Pass them to [host.CoreTools] for the tools a model calls.
func (r *Runner) ProtectedDirs(extra ...string) []string {
	dirs := append([]string{}, extra...)
	if d, err := interp.DefaultDir(); err == nil {
		dirs = append(dirs, d)
	}
	if d := r.sb.CacheDir(); d != "" {
		dirs = append(dirs, d)
	}
	return dirs
}

// compileScript compiles wasm once per Runner, keyed by its SHA-256.
func (r *Runner) compileScript(ctx context.Context, wasm []byte) (*sandbox.CompiledModule, error) {
	return r.sb.CompileOnce(ctx, sha256.Sum256(wasm), func() ([]byte, error) { return wasm, nil })
}

// compileInterpreter compiles an interpreter module once per Runner.
// Interpreters are large (tens of MB), so the in-memory cache is keyed by
// the file's path, size and modification time rather than by hashing
// its bytes on every run; wazero's disk cache still keys by content.
func (r *Runner) compileInterpreter(ctx context.Context, file string) (*sandbox.CompiledModule, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotRunnable, err)
	}
	key := sha256.Sum256(fmt.Appendf(nil, "interpreter\x00%s\x00%d\x00%d", file, fi.Size(), fi.ModTime().UnixNano()))
	defer r.slowCompile(filepath.Base(file), fi.Size())()
	return r.sb.CompileOnce(ctx, key, func() ([]byte, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readModuleFrom(f)
	})
}
