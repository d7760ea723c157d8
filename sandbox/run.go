package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/fsguard"
	"github.com/skillrun/skillrun/internal/units"
)

// Defaults for the limits of [RunConfig].
const (
	DefaultMemory  uint64 = 256 << 20        // bytes of linear memory
	DefaultTimeout        = 30 * time.Second // wall time of a run, instantiation included
	DefaultOutput  uint64 = 16 << 20         // bytes of stdout and stderr together
)

// A Mount makes a host directory visible to the module. The module sees
// nothing of the host's file system but its mounts.
//
// A Mount is plain data, opened afresh by every run that uses it.
type Mount struct {
	// HostDir is the directory on the host. The module cannot leave it:
	// "..", absolute paths and symbolic links that point outside it all
	// fail, because every access goes through an [os.Root] opened on it.
	// HostDir itself is the operator's path and is opened as the host
	// resolves it, symlinks included.
	HostDir string
	// Sub, if not empty, mounts the folder Sub of HostDir instead
	// (slash-separated, relative), resolved inside HostDir's os.Root: a
	// Sub that is, or passes through, a symlink leading out of HostDir
	// fails the run. Use it for a part of a folder someone else controls,
	// such as a skill's "references" or a workspace's "out"; joining the
	// two into HostDir would follow such a symlink anywhere.
	Sub string
	// GuestPath is where the module sees it: an absolute, clean path such
	// as "/workspace".
	GuestPath string
	// Writable lets the module create, change and remove files below
	// GuestPath. Without it every change fails with EROFS ("read-only file
	// system").
	Writable bool
	// MaxBytes, if positive, bounds what a run writes below GuestPath:
	// every byte written counts, rewrites too, and so does growth by
	// truncation; deleting gives nothing back. A write that crosses it is
	// cut there (a short write, as on a nearly full disk); the next fails
	// with EIO, audited as the limit: wazero's WASI has no ENOSPC. Use it
	// for a scratch folder such as a run's private /tmp, whose disk the
	// operator did not grant.
	MaxBytes int64
	// Quota, if not nil, bounds what every run mounting the folder with
	// it writes below GuestPath, together, as MaxBytes bounds one run
	// (MaxBytes is then ignored): for a folder that a run shares with the
	// runs it starts, which would otherwise get a new limit each.
	Quota *Quota
}

// RunConfig is what one run of a module gets: its arguments, environment,
// stdio, mounts and limits. Everything not named here is denied: by
// default a module has no files, no environment, no input, and its output
// is discarded. The zero value (and a nil *RunConfig) is a valid config.
//
// Run does not modify a RunConfig, and runs may share one as long as no
// one modifies it, except that two runs reading the same Stdin or writing
// the same Stdout interleave.
type RunConfig struct {
	// Name is argv[0], such as "csv-stats:stats". Errors name the run with
	// it.
	Name string
	// Args are argv[1:].
	Args []string
	// Env holds "KEY=VALUE" entries, only what was granted; nothing is
	// inherited from the host.
	Env []string
	// Stdin is the module's standard input; nil means empty. Run does not
	// wait for a Stdin that blocks: when the run ends, a read still in
	// progress is abandoned (see stdinReader in limits.go), and what it
	// reads later is dropped.
	Stdin io.Reader
	// Stdout and Stderr receive the module's output; nil discards it (it
	// still counts toward Output). They are written from the goroutine
	// running the module, one write at a time.
	Stdout, Stderr io.Writer
	// Mounts are the directories the module sees. Nothing else is visible.
	Mounts []Mount
	// Protected are host folders that no writable mount may change, such
	// as skill folders, the interpreters and the compile cache, which
	// would otherwise let one script rewrite another's code. Inside a
	// writable mount, creating, writing, renaming or removing anything in
	// them, and renaming or removing them or their ancestors, fails with
	// EROFS and is audited; they are found by identity (device and inode),
	// so symlinks, ".." and renames inside the mount do not get around
	// it. A writable mount inside a protected folder is read-only.
	Protected []string

	// Memory caps the module's linear memory, in bytes; 0 means
	// [DefaultMemory]. A memory.grow past it fails inside the module (Go
	// programs then die with "out of memory") and the run fails with
	// [ErrMemoryLimit]. The cap is rounded down to whole 64 KiB pages in
	// effect, since memory grows by pages.
	Memory uint64
	// Timeout caps the wall time of the run, from the start of
	// instantiation; 0 means [DefaultTimeout]. A module in a busy loop, a
	// sleep or a read from stdin is stopped when it passes; the run fails
	// with [ErrTimeout].
	Timeout time.Duration
	// Output caps the bytes written to stdout and stderr together; 0 means
	// [DefaultOutput]. The write that crosses it is cut at the limit, so
	// exactly Output bytes reach the writers, and the run fails with
	// [ErrOutputLimit].
	Output uint64

	// Caller, if not nil, is the run whose host function starts this one
	// while it waits in the call ([CallerOf]): a nested run, which spends
	// from its caller's limits instead of getting its own on top. Its
	// memory limit is at most what is left of the caller's once what the
	// caller holds is counted, so that a run and the runs it starts stay
	// within the first one's limit together (an error matching
	// [ErrMemoryLimit] says so when too little is left); every byte of
	// output it produces counts against the caller's output limit too,
	// except what Stdout and Stderr write into a folder under a [Quota]
	// ([Quota.Writer]), which counts against that quota instead. A
	// nested run's host calls carry it in turn, so the limits hold for
	// every level. Share a folder's writes with Mount.Quota.
	Caller *Caller

	// Deterministic gives the module a virtual clock and wazero's seeded
	// random source, so the same input gives the same output. The clock
	// starts at 2022-01-01T00:00:00Z, moves 1 ms per reading and jumps
	// forward by the time slept when the module sleeps, without waiting.
	// Otherwise the module gets the host's real clocks, a real sleep (that
	// the timeout interrupts) and crypto/rand.
	Deterministic bool

	// Host serves the module's calls to skillrun's host functions (the
	// "skillrun" import module, docs/contracts/abi.md), usually a *host.Env built for
	// this run. nil answers every such call with the error code
	// "unavailable". Host must not be shared by runs that should not see
	// each other's output.
	Host HostDispatcher

	// Auditor, if not nil, records every mount (kind "mount", value the
	// guest path, reason "read-only" or "read-write" when allowed) and
	// every file open or change in a mount: kind "fs." and the operation
	// ("fs.open", "fs.open_write", "fs.mkdir", "fs.rename", "fs.unlink",
	// ...), value the guest path ("/workspace/a -> /workspace/b" for a
	// rename). A denial's reason says why ("read-only file system",
	// "operation not permitted" for an escape, "no such file or
	// directory", "too many open files ...", "protected folder ...").
	// Every refusal is audited, whatever the operation: a stat, lstat or
	// readlink refused (an escape, a link leading out; "fs.stat",
	// "fs.lstat", "fs.readlink"), and any open or change outside every
	// mount (reason "... (outside every mount)"). A lookup that finds
	// nothing in a mount is not a refusal. Events carry the time, not the
	// skill or script: wrap the auditor to add them. Audit is called from
	// the goroutine running the module, with Run's ctx, so it must not
	// block for long.
	Auditor audit.Auditor
}

// recorder records one audit event of a run (see [RunConfig.Auditor]).
type recorder func(kind, value string, d audit.Decision, reason string)

// newRecorder is a's recorder under ctx; a nil a records nothing.
func newRecorder(ctx context.Context, a audit.Auditor) recorder {
	if a == nil {
		return func(string, string, audit.Decision, string) {}
	}
	return func(kind, value string, d audit.Decision, reason string) {
		a.Audit(ctx, audit.Event{Time: time.Now(), Kind: kind, Value: value, Decision: d, Reason: reason})
	}
}

// Result describes a finished run.
type Result struct {
	// ExitCode is the module's exit code: 0 when _start returned, or the
	// code it passed to proc_exit. It is meaningful when Run returned no
	// error, and for ErrMemoryLimit or ErrOutputLimit if the module exited
	// on its own after the refusal.
	ExitCode uint32
	// Duration is the wall time of the run, instantiation included.
	Duration time.Duration
	// PeakMemory is the largest size the module's linear memory reached,
	// in bytes.
	PeakMemory uint64
	// OutputBytes is the number of bytes written to Stdout and Stderr
	// together (at most the output limit).
	OutputBytes uint64
}

// errTimeoutCause is the cancellation cause of a run that ran out of time.
var errTimeoutCause = errors.New("run timed out")

// Run instantiates the module with cfg (nil means the zero RunConfig) and
// runs its _start function to completion.
//
// A module that exits normally, with any exit code, gives a [Result] and a
// nil error: the exit code is the script's answer, not skillrun's failure.
// When the sandbox stops the module, Run returns a Result (as far as it
// got) and an error matching [ErrTimeout], [ErrMemoryLimit],
// [ErrOutputLimit] or [ErrTrap]. The checks are made in that order of
// precedence: a refused memory grow or a cut output decides the verdict even
// if the module then exits on its own (Go's runtime exits with code 2 when it
// cannot grow its heap), and a run still going when its time is up is a
// timeout even if it exits while being stopped. If ctx is cancelled or
// expires first, Run returns an error wrapping ctx's cause instead. A
// config that cannot work (a missing mount directory, a malformed Env
// entry) is an error before anything runs, with a nil Result.
//
// Each run gets a fresh instance: its own memory, file descriptors and
// WASI state; nothing survives to the next run. Run is safe for concurrent
// use, and the [Runtime] stays usable after any failure.
func (m *CompiledModule) Run(ctx context.Context, cfg *RunConfig) (*Result, error) {
	return m.runWith(ctx, cfg, runPlan{body: callStart, rootAt: rootAtEnd})
}

// A runPlan is what a run does with its instance, and how its file system
// is laid out: Run calls _start; a snapshot's init and runs (snapshot.go)
// call their own exports on an instance whose memory they fill or read.
type runPlan struct {
	// body runs the instantiated module, recording a normal exit in
	// result; it returns wazero's error, if any, for classify.
	body func(ctx context.Context, mod api.Module, result *Result) error
	// rootAt is where the guestRoot ("/") goes among the mounts: after
	// the first rootAt of them, or after all of them for rootAtEnd. A
	// snapshot's runs put it right after the init's mounts, so that they
	// see those and "/" at the descriptors the init saw.
	rootAt int
	// reserve, if positive, is the size in bytes the memory is allocated
	// with room for, so that growing it to a snapshot's size does not copy.
	reserve uint64
}

// rootAtEnd puts the guestRoot after every mount (runPlan.rootAt).
const rootAtEnd = -1

// callStart is Run's body: it calls _start.
//
// _start is called here rather than through WithStartFunctions so that a
// module whose initial memory was over the limit (see memoryLimit) never
// starts, and so that wazero's wrapping ("module[] function[_start]
// failed: ...") stays out of our messages.
func callStart(ctx context.Context, mod api.Module, result *Result) error {
	_, err := mod.ExportedFunction("_start").Call(ctx)
	if exit, ok := errors.AsType[*sys.ExitError](err); ok {
		result.ExitCode = exit.ExitCode()
	}
	return err
}

// runWith is Run with the plan's body and file system layout: the
// limits, stdio, mounts, audit and error classification of every run.
func (m *CompiledModule) runWith(ctx context.Context, cfg *RunConfig, plan runPlan) (*Result, error) {
	var c RunConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Memory == 0 {
		c.Memory = DefaultMemory
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Output == 0 {
		c.Output = DefaultOutput
	}
	name := c.Name
	if name == "" {
		name = "module"
	}
	switch {
	case !m.r.runs.enter():
		return nil, fmt.Errorf("%s: %w", name, errClosed)
	case !m.acquire():
		m.r.runs.leave()
		return nil, fmt.Errorf("%s: %w", name, errModuleClosed)
	}
	defer m.r.runs.leave()
	defer m.release(ctx)
	mem, giveBack, err := m.memoryLimit(name, c.Memory, c.Caller) // linear memory and tables
	if err != nil {
		return &Result{}, err
	}
	defer giveBack()
	mem.reserve = plan.reserve

	start := time.Now()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Runtime.Close stops the run and waits for it to end.
	defer context.AfterFunc(m.r.stop, func() { cancel(errClosed) })()
	runCtx, cancelTimeout := context.WithTimeoutCause(runCtx, c.Timeout, errTimeoutCause)
	defer cancelTimeout()

	out := &outputLimit{limit: c.Output, cancel: cancel}
	if c.Caller != nil {
		out.parent = c.Caller.out
	}
	runCtx = withHostCall(runCtx, c.Host, &Caller{out: out, mem: mem}) // log and output count against out too
	modCfg, closeMounts, err := moduleConfig(runCtx, &c, out, &m.r.openFiles, plan.rootAt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer closeMounts()

	result := &Result{}
	err = m.run(runCtx, modCfg, mem, result, plan.body)
	mem.recycle() // the module is closed and its call has returned
	result.Duration = time.Since(start)
	result.PeakMemory = mem.peak.Load()
	var cut, shared bool
	result.OutputBytes, cut, shared = out.written()

	err = classify(ctx, runCtx, name, &c, mem, outcome{cut: cut, sharedCut: shared, closed: m.r.closed.Load()}, result, err)
	m.r.log.Debug("run", "name", name, "exit", result.ExitCode, "took", result.Duration,
		"peak_memory", result.PeakMemory, "output", result.OutputBytes, "err", err)
	return result, err
}

// run instantiates the module and hands it to body. It returns wazero's
// error, if any, for classify.
func (m *CompiledModule) run(ctx context.Context, modCfg wazero.ModuleConfig, mem *memoryLimit, result *Result,
	body func(context.Context, api.Module, *Result) error) error {
	mod, err := m.r.wr.InstantiateModule(experimental.WithMemoryAllocator(ctx, mem), m.cm, modCfg)
	if err != nil {
		if _, ok := errors.AsType[*sys.ExitError](err); ok {
			return err // the module's start function exited, or the run was stopped
		}
		return &instantiateError{err}
	}
	defer func() { _ = mod.Close(context.WithoutCancel(ctx)) }()
	if mem.refused.Load() {
		return nil // classify reports the refusal
	}
	return body(ctx, mod, result)
}

// outcome is what classify needs to know of how the run's limits ended:
// whether its output was cut, by a limit up its chain (RunConfig.Caller)
// rather than its own, and whether the Runtime was closed.
type outcome struct{ cut, sharedCut, closed bool }

// classify turns the outcome of a run into Run's error; see Run.
func classify(parent, runCtx context.Context, name string, c *RunConfig, mem *memoryLimit, o outcome, result *Result, err error) error {
	exit, isExit := errors.AsType[*sys.ExitError](err)
	stoppedByCtx := isExit && runCtx.Err() != nil &&
		(exit.ExitCode() == sys.ExitCodeContextCanceled || exit.ExitCode() == sys.ExitCodeDeadlineExceeded)
	if stoppedByCtx {
		result.ExitCode = 0 // not the module's own code
	}
	switch {
	case mem.refused.Load() && mem.shared > 0:
		return newRunError(name, ErrMemoryLimit, nil,
			"memory limit reached: the module asked to grow to %s, and the runs that started it hold %s of their %s limit, which a run and the runs it starts share; raise the memory limit if the script needs it",
			size(mem.requested.Load()), size(mem.callersHold), size(mem.shared))
	case mem.refused.Load():
		return newRunError(name, ErrMemoryLimit, nil,
			"memory limit %s reached (the module asked to grow to %s); raise the memory limit if the script needs it",
			size(c.Memory), size(mem.requested.Load()))
	case o.sharedCut:
		return newRunError(name, ErrOutputLimit, nil,
			"output limit reached: the runs that started it used up their output limit, which a run and the runs it starts share; output was cut there")
	case o.cut:
		return newRunError(name, ErrOutputLimit, nil,
			"output limit %s reached; output was cut there", size(c.Output))
	case runCtx.Err() != nil && (stoppedByCtx || err == nil || isExit):
		// Stopped, or exited while being stopped (a module may see its
		// sleep or read fail and exit on its own).
		result.ExitCode = 0 // whatever the module did while being stopped
		switch cause := context.Cause(runCtx); {
		case errors.Is(cause, errTimeoutCause):
			return newRunError(name, ErrTimeout, nil, "timed out after %v", c.Timeout)
		case parent.Err() != nil:
			return fmt.Errorf("%s: stopped: %w", name, context.Cause(parent))
		}
	}
	switch {
	case err != nil && o.closed: // wazero closed the module (exit code 0) with the Runtime
		result.ExitCode = 0
		return fmt.Errorf("%s: stopped: %w", name, errClosed)
	case err == nil || isExit && !stoppedByCtx:
		return nil
	}
	msg := err.Error()
	if inst, ok := errors.AsType[*instantiateError](err); ok {
		if !strings.Contains(msg, "wasm error:") {
			// wazero checked something Compile did not.
			return fmt.Errorf("%s: instantiating the module: %w", name, inst.err)
		}
		msg = inst.err.Error()
	}
	// A trap, in _start or in the module's start function. wazero words
	// most traps "wasm error: ..." with a stack trace, but the compiler
	// reports a call stack overflow bare; say it the same way.
	if !strings.HasPrefix(msg, "wasm error:") {
		msg = "wasm error: " + msg
	}
	return newRunError(name, ErrTrap, err, "trap: %s", msg)
}

// instantiateError marks an error from instantiation, as opposed to one
// from running _start.
type instantiateError struct{ err error }

func (e *instantiateError) Error() string { return e.err.Error() }
func (e *instantiateError) Unwrap() error { return e.err }

// size formats a byte count the way skill.toml writes it ("64MiB").
func size(n uint64) string { return units.Bytes(n) }

// moduleConfig builds the wazero module config of a run: argv, env,
// stdio, clocks and mounts. The returned func closes the mounts.
func moduleConfig(ctx context.Context, c *RunConfig, out *outputLimit, shared *openFiles, rootAt int) (wazero.ModuleConfig, func(), error) {
	modCfg := wazero.NewModuleConfig().
		WithName(""). // anonymous, so runs of one module can overlap
		WithStartFunctions().
		WithArgs(append([]string{c.Name}, c.Args...)...).
		WithStdin(newStdin(ctx, c.Stdin)).
		WithStdout(streamWriter(out, c.Stdout)).
		WithStderr(streamWriter(out, c.Stderr))
	for _, kv := range c.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			return nil, nil, fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
		}
		modCfg = modCfg.WithEnv(k, v)
	}
	if c.Deterministic {
		// wazero's seeded random source is the default.
		clock := &virtualClock{}
		modCfg = modCfg.
			WithWalltime(clock.walltime, sys.ClockResolution(virtualTick)).
			WithNanotime(clock.nanotime, sys.ClockResolution(virtualTick)).
			WithNanosleep(clock.nanosleep)
	} else {
		modCfg = modCfg.
			WithSysWalltime().
			WithSysNanotime().
			WithNanosleep(sleeper(ctx)).
			WithRandSource(rand.Reader)
	}

	fsCfg, closeMounts, err := mounts(c, shared, newRecorder(ctx, c.Auditor), rootAt)
	if err != nil {
		return nil, nil, err
	}
	return modCfg.WithFSConfig(fsCfg), closeMounts, nil
}

// streamWriter is the stdout or stderr w of a run counting against out:
// against out alone when w writes into a folder under a Quota, which
// counts it instead of the callers (RunConfig.Caller).
func streamWriter(out *outputLimit, w io.Writer) io.Writer {
	if _, ok := w.(*quotaWriter); ok {
		return out.localWriter(w)
	}
	return out.writer(w)
}

// mounts opens every mount of c as a rootFS and returns the FS config and
// a func that closes them. Unless a mount covers "/", the module also gets
// a guestRoot there: after the first rootAt mounts, or after all of them
// for rootAtEnd.
func mounts(c *RunConfig, shared *openFiles, record recorder, rootAt int) (wazero.FSConfig, func(), error) {
	var opened []*rootFS
	closeAll := func() {
		for _, fs := range opened {
			_ = fs.Close()
		}
	}
	fail := func(guest, reason string, err error) (wazero.FSConfig, func(), error) {
		closeAll()
		record("mount", guest, audit.Deny, reason)
		return nil, nil, fmt.Errorf("mount %s: %w", guest, err)
	}

	fsCfg := wazero.NewFSConfig()
	open := &openFiles{max: maxOpenFiles, parent: shared, what: "per run"}
	root := newGuestRoot(func(op, p string, errno experimentalsys.Errno) {
		record("fs."+op, path.Join("/", p), audit.Deny, errno.Error()+" (outside every mount)")
	})
	seen := map[string]bool{}
	if rootAt < 0 || rootAt > len(c.Mounts) {
		rootAt = len(c.Mounts)
	} else {
		for _, mt := range c.Mounts {
			if mt.GuestPath == "/" {
				return fail("/", "a run from a snapshot cannot mount /", errors.New("a run from a snapshot cannot mount /"))
			}
		}
	}
	for i, mt := range c.Mounts {
		if i == rootAt {
			fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(root, "/")
		}
		guest := mt.GuestPath
		if !path.IsAbs(guest) || path.Clean(guest) != guest {
			return fail(fmt.Sprintf("%q", guest), "not an absolute, clean path",
				errors.New("the guest path must be absolute and clean, such as /workspace"))
		}
		if seen[guest] {
			return fail(guest, "mounted twice", errors.New("mounted twice"))
		}
		seen[guest] = true
		root.add(guest)
		fs, err := openMount(mt, c.Protected, func(op, p string, errno experimentalsys.Errno, why string) {
			decision, reason := audit.Allow, ""
			if errno != 0 {
				decision, reason = audit.Deny, errno.Error()
			}
			if why != "" {
				reason = why
			}
			record("fs."+op, auditPath(guest, op, p), decision, reason)
		})
		if err != nil {
			return fail(guest, err.Error(), err)
		}
		opened = append(opened, fs)
		mode := "read-only"
		if mt.Writable {
			mode = "read-write"
		}
		record("mount", guest, audit.Allow, mode)
		counted := &countedFS{FS: fs, open: open, audit: func(op, p string, full *openFiles) {
			record("fs."+op, path.Join(guest, p), audit.Deny, fmt.Sprintf("too many open files (at most %d %s)", full.max, full.what))
		}}
		fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(counted, guest)
	}
	if !seen["/"] && rootAt == len(c.Mounts) {
		fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(root, "/")
	}
	return fsCfg, closeAll, nil
}

// openMount opens the root of mt (its Sub resolved inside HostDir's root)
// as a rootFS, with a guard for the protected folders inside it when it is
// writable.
func openMount(mt Mount, protected []string, audit auditFunc) (*rootFS, error) {
	root, err := fsguard.OpenRoot(mt.HostDir, mt.Sub, false, nil)
	if err != nil {
		return nil, err
	}
	var guard *fsguard.Guard
	if mt.Writable {
		guard, err = fsguard.New(root, filepath.Join(mt.HostDir, filepath.FromSlash(mt.Sub)), protected)
		if err != nil {
			root.Close()
			return nil, err
		}
	}
	f := newRootFS(root, mt.Writable, guard, audit)
	switch {
	case mt.Quota != nil:
		f.quota = mt.Quota
	case mt.MaxBytes > 0:
		f.quota = NewQuota(mt.MaxBytes)
	}
	return f, nil
}

// auditPath turns a path of a rootFS audit event, relative to the mount,
// into the guest's absolute path. Two-path operations come as "a -> b";
// a symlink's target (its left side) is text, not a path in the mount.
func auditPath(guest, op, p string) string {
	from, to, ok := strings.Cut(p, " -> ")
	switch {
	case !ok:
		return path.Join(guest, p)
	case op == auditSymlink:
		return from + " -> " + path.Join(guest, to)
	default:
		return path.Join(guest, from) + " -> " + path.Join(guest, to)
	}
}

// guestRoot is the directory a module sees at "/" when no mount covers it.
// It holds the mount points and nothing else, read-only, so that:
//
//   - a path outside every mount is ENOENT ("no such file or directory"),
//     as it would be on a host without that file (Go's wasip1 port reports
//     EBADF, "bad file number", for a path no preopened directory covers);
//   - listing "/" shows the mounts;
//   - creating anything outside the mounts is EROFS;
//   - every open that fails and every change is audited as a denial.
//
// wazero gives "/" the last preopened descriptor, after the mounts, so the
// mounts keep descriptors 3, 4, ... in the order of [RunConfig.Mounts].
// Guests resolve a path with the longest matching preopen, so a path in a
// mount never reaches guestRoot.
type guestRoot struct {
	experimentalsys.UnimplementedFS
	dirs  map[string][]string // directory ("." for the root) -> its entries
	audit func(op, p string, errno experimentalsys.Errno)
}

// newGuestRoot returns an empty guestRoot that reports every refusal to
// audit (nil for none), with the operation (an audit* constant) and the
// path relative to "/".
func newGuestRoot(audit func(op, p string, errno experimentalsys.Errno)) *guestRoot {
	if audit == nil {
		audit = func(string, string, experimentalsys.Errno) {}
	}
	return &guestRoot{dirs: map[string][]string{".": nil}, audit: audit}
}

// deny audits a refused operation and returns its errno.
func (g *guestRoot) deny(op, p string, errno experimentalsys.Errno) experimentalsys.Errno {
	g.audit(op, rootRel(p), errno)
	return errno
}

// add adds a mount point and its parents.
func (g *guestRoot) add(guest string) {
	for p := rootRel(guest); p != "."; p = path.Dir(p) {
		if _, ok := g.dirs[p]; !ok {
			g.dirs[p] = nil
		}
		parent, name := path.Dir(p), path.Base(p)
		if !slices.Contains(g.dirs[parent], name) {
			g.dirs[parent] = append(g.dirs[parent], name)
			slices.Sort(g.dirs[parent])
		}
	}
}

// rootRel turns a guest path into a path relative to "/", "." for "/".
func rootRel(p string) string {
	p = strings.TrimLeft(path.Clean("/"+p), "/")
	if p == "" {
		return "."
	}
	return p
}

func (g *guestRoot) lookup(p string) ([]string, experimentalsys.Errno) {
	entries, ok := g.dirs[rootRel(p)]
	if !ok {
		return nil, experimentalsys.ENOENT
	}
	return entries, 0
}

func (g *guestRoot) String() string { return "mount points" }

func (g *guestRoot) OpenFile(p string, flag experimentalsys.Oflag, _ fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	entries, errno := g.lookup(p)
	op := auditOpen
	if oflagMutates(flag) {
		op = auditOpenWrite
	}
	switch {
	case errno == 0 && flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR|experimentalsys.O_TRUNC) != 0:
		return nil, g.deny(op, p, experimentalsys.EISDIR)
	case errno == 0 && flag&experimentalsys.O_CREAT != 0 && flag&experimentalsys.O_EXCL != 0:
		return nil, g.deny(op, p, experimentalsys.EEXIST)
	case errno != 0 && flag&experimentalsys.O_CREAT != 0:
		return nil, g.deny(op, p, experimentalsys.EROFS)
	case errno != 0:
		return nil, g.deny(op, p, errno)
	}
	return &guestRootDir{dir: rootRel(p), entries: entries}, 0
}

func (g *guestRoot) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if _, errno := g.lookup(p); errno != 0 {
		return sys.Stat_t{}, errno
	}
	return dirStat(p), 0
}

func (g *guestRoot) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) { return g.Stat(p) }

// readOnly is the errno of a change to path p: EROFS if it exists (or is
// being created), ENOENT otherwise.
func (g *guestRoot) readOnly(p string, creating bool) experimentalsys.Errno {
	if _, errno := g.lookup(p); errno != 0 && !creating {
		return errno
	}
	return experimentalsys.EROFS
}

func (g *guestRoot) Mkdir(p string, _ fs.FileMode) experimentalsys.Errno {
	if _, errno := g.lookup(p); errno == 0 {
		return g.deny(auditMkdir, p, experimentalsys.EEXIST)
	}
	return g.deny(auditMkdir, p, experimentalsys.EROFS)
}
func (g *guestRoot) Chmod(p string, _ fs.FileMode) experimentalsys.Errno {
	return g.deny(auditChmod, p, g.readOnly(p, false))
}
func (g *guestRoot) Rename(from, _ string) experimentalsys.Errno {
	return g.deny(auditRename, from, g.readOnly(from, false))
}
func (g *guestRoot) Rmdir(p string) experimentalsys.Errno {
	return g.deny(auditRmdir, p, g.readOnly(p, false))
}
func (g *guestRoot) Unlink(p string) experimentalsys.Errno {
	return g.deny(auditUnlink, p, g.readOnly(p, false))
}
func (g *guestRoot) Link(_, p string) experimentalsys.Errno {
	return g.deny(auditLink, p, g.readOnly(p, true))
}
func (g *guestRoot) Symlink(_, p string) experimentalsys.Errno {
	return g.deny(auditSymlink, p, g.readOnly(p, true))
}
func (g *guestRoot) Utimens(p string, _, _ int64) experimentalsys.Errno {
	return g.deny(auditUtimens, p, g.readOnly(p, false))
}

func (g *guestRoot) Readlink(p string) (string, experimentalsys.Errno) {
	if _, errno := g.lookup(p); errno != 0 {
		return "", errno
	}
	return "", experimentalsys.EINVAL // not a symbolic link
}

// inode gives each directory of guestRoot a stable, non-zero inode number
// (some guests skip directory entries with inode 0).
func inode(p string) sys.Inode {
	h := fnv.New64a()
	_, _ = h.Write([]byte(rootRel(p)))
	return h.Sum64() | 1
}

func dirStat(p string) sys.Stat_t {
	return sys.Stat_t{Ino: inode(p), Mode: fs.ModeDir | 0o555, Nlink: 1}
}

// guestRootDir is an open directory of guestRoot.
type guestRootDir struct {
	experimentalsys.UnimplementedFile
	dir     string // relative to the root, "." for the root
	entries []string
	pos     int
}

func (d *guestRootDir) Ino() (sys.Inode, experimentalsys.Errno)   { return inode(d.dir), 0 }
func (d *guestRootDir) IsDir() (bool, experimentalsys.Errno)      { return true, 0 }
func (d *guestRootDir) Stat() (sys.Stat_t, experimentalsys.Errno) { return dirStat(d.dir), 0 }

func (d *guestRootDir) Read([]byte) (int, experimentalsys.Errno) { return 0, experimentalsys.EISDIR }
func (d *guestRootDir) Pread([]byte, int64) (int, experimentalsys.Errno) {
	return 0, experimentalsys.EISDIR
}

// rootOffset is int64, spelled so that go vet's stdmethods check, which
// wants Seek(int64, int) to return error rather than sys.Errno, lets Seek
// be (the check does not see through aliases).
type rootOffset = int64

// Seek supports the rewind wazero uses to restart fd_readdir.
func (d *guestRootDir) Seek(offset rootOffset, whence int) (int64, experimentalsys.Errno) {
	if offset != 0 || whence != io.SeekStart {
		return 0, experimentalsys.EINVAL
	}
	d.pos = 0
	return 0, 0
}

func (d *guestRootDir) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	rest := d.entries[d.pos:]
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.pos += len(rest)
	dirents := make([]experimentalsys.Dirent, len(rest))
	for i, name := range rest {
		dirents[i] = experimentalsys.Dirent{Name: name, Type: fs.ModeDir, Ino: inode(path.Join(d.dir, name))}
	}
	return dirents, 0
}
