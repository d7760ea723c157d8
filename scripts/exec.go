package scripts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/shellcmd"
	"github.com/skillrun/skillrun/internal/units"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// execLanguages are the interpreters a script may start with the exec
// host function, by the name it calls them.
var execLanguages = map[string]string{
	"python": interp.Python, "python3": interp.Python, "python3.11": interp.Python,
	"node": interp.JS, "nodejs": interp.JS,
	"sh": interp.Shell, "bash": interp.Shell,
}

// shellCommandScript runs its $0 with its arguments: the shell's way to
// start one of its commands (or a script file) for exec.
const shellCommandScript = `"$0" "$@"`

// execProgram says how exec starts the program of args: the language of
// the run and its arguments after the interpreter's own. Interpreters
// run themselves; the shell's commands and script files (a path) run as
// a shell running them; any other program does not exist in the
// sandbox.
func execProgram(dir string, args []string) (string, []string, error) {
	prog := path.Base(args[0])
	if lang, ok := execLanguages[prog]; ok {
		if lang == interp.Shell {
			return lang, args[1:], nil
		}
		return lang, scriptArgsAbs(lang, dir, args[1:]), nil
	}
	d := path.Dir(args[0])
	bare := !strings.Contains(args[0], "/")
	sysBin := d == "/bin" || d == "/usr/bin" || d == "/usr/local/bin"
	switch {
	case shellcmd.Is(prog) && (bare || sysBin):
		return interp.Shell, append([]string{"-c", shellCommandScript, prog}, args[1:]...), nil
	case !bare && !sysBin:
		return interp.Shell, append([]string{"-c", shellCommandScript, args[0]}, args[1:]...), nil
	}
	return "", nil, abi.Errorf(abi.CodeNotFound,
		"exec: %s: no such program in the sandbox: skillrun starts python3, node, sh/bash, the shell's commands (grep, sed, jq, ...) and script files, never a host program", prog)
}

// execService is the exec host function of one run (a shell): it starts
// the named interpreter as another run in the same sandbox, over the
// caller's mounts (its /tmp included), effective grant and limits, with
// the caller's streams where the request inherits them and files of the
// caller's /tmp where it does not. The new run is a nesting level, like
// a skill_run, and is audited as the caller's skill with the program's
// command line as its script.
type execService struct {
	r      *Runner
	s      *skills.Skill
	find   InterpreterFunc
	mounts []sandbox.Mount // the caller's, /tmp included
	prot   []string
	eff    capabilities.Set
	sr     *ScriptRun
	// natives are the skills of the shell whose scripts run under the
	// native tier, by name (execnative.go).
	natives map[string]nativeSkill
}

// tmpMount is the mount of the caller's /tmp: its host folder and the
// quota the caller and every run it starts write against.
func (x *execService) tmpMount() (sandbox.Mount, error) {
	for _, m := range x.mounts {
		if m.GuestPath == tmpGuestPath && m.Writable {
			return m, nil
		}
	}
	return sandbox.Mount{}, errors.New("the run has no /tmp")
}

// tmpName returns the name, inside the caller's /tmp, of guest path p:
// only a file directly in /tmp, so that nothing else of the host can be
// named.
func tmpName(p string) (string, error) {
	if path.Dir(path.Clean(p)) != tmpGuestPath || path.Base(p) == "." || strings.HasPrefix(path.Base(p), "..") {
		return "", fmt.Errorf("%q is not a file directly in %s", p, tmpGuestPath)
	}
	return path.Base(p), nil
}

// errExecTimedOut is the cause of an ExecRequest's own deadline.
var errExecTimedOut = errors.New("the caller's timeout ended the run")

func (x *execService) exec(ctx context.Context, req *abi.ExecRequest, depth int) (*abi.ExecResult, error) {
	prog := path.Base(req.Args[0])
	if req.TimeoutMS < 0 {
		return nil, abi.Errorf(abi.CodeInvalid, "exec: timeout_ms %d is negative", req.TimeoutMS)
	}

	lang, progArgs, err := execProgram(req.Dir, req.Args)
	if err != nil {
		return nil, err
	}
	target, native := x.nativeTarget(req)
	var in *SourceInterpreter
	var m *sandbox.CompiledModule
	if !native {
		find := x.find
		if find == nil {
			find = InstalledInterpreters("")
		}
		if lang == interp.JS && execNeedsTS(req) {
			lang = interp.JSTS
		}
		if in, err = find(ctx, lang); err != nil {
			return nil, abi.Errorf(abi.CodeUnavailable, "exec: %s: %v", prog, err)
		}
		if m, err = x.r.compileInterpreter(ctx, in.Module); err != nil {
			return nil, fmt.Errorf("exec: interpreter %s: %w", in.Module, err)
		}
	}
	tmpMount, err := x.tmpMount()
	if err != nil {
		return nil, abi.Errorf(abi.CodeUnavailable, "exec: %v", err)
	}
	tmp := tmpMount.HostDir
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer root.Close()

	run := *x.sr
	run.Depth = depth
	// The new run's own exec service: what it starts in turn inherits
	// the new run's streams, not this one's.
	nested := *x
	nested.sr = &run
	run.exec = &nested
	// The new run spends from the caller's limits (sandbox.Caller): its
	// output counts against the caller's output limit, its memory
	// against what the caller leaves of its memory limit, its files and
	// captured output against the caller's /tmp quota.
	caller := sandbox.CallerOf(ctx)
	res := &abi.ExecResult{}
	done, err := x.streams(ctx, req, root, tmpMount.Quota, caller, native, &run, res)
	defer done()
	if err != nil {
		return nil, err
	}

	// The caller's deadline (timeout) bounds the run itself, not the
	// interpreter's build or compilation above.
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(req.TimeoutMS)*time.Millisecond, errExecTimedOut)
		defer cancel()
	}
	var r *sandbox.Result
	if native {
		r, err = x.execNative(ctx, req, target, tmp, &run)
	} else {
		r, err = x.execWasm(ctx, req, lang, progArgs, in, m, caller, &run)
	}
	// What exec itself says goes to the run's stderr: through the
	// caller's output limit where that is the caller's own (the sandbox
	// counts only what the run wrote).
	msg := run.Stderr
	if inherited := req.InheritStderr && !req.StderrToStdout || req.StderrToStdout && req.InheritStdout; inherited && !native && caller != nil {
		msg = caller.Writer(run.Stderr)
	}
	switch {
	case err != nil && errors.Is(context.Cause(ctx), errExecTimedOut):
		res.ExitCode = 128 + 15 // stopped as by timeout's SIGTERM; timeout itself says nothing
	case errors.Is(err, sandbox.ErrMemoryLimit) && caller != nil:
		res.ExitCode = 125
		fmt.Fprintf(msg, "%s: %v (a script and the programs it starts share one memory limit: --memory, or the memory of the grant)\n", prog, err)
	case errors.Is(err, sandbox.ErrTimeout):
		res.ExitCode = 124
		fmt.Fprintf(msg, "%s: %v\n", prog, err)
	case err != nil:
		res.ExitCode = 125
		fmt.Fprintf(msg, "%s: %v\n", prog, err)
	default:
		res.ExitCode = int(r.ExitCode)
	}
	return res, nil
}

// streams sets the new run's standard streams as the request asks: the
// caller's own where it inherits them, else files of the caller's /tmp
// (root), whose names go into res. done closes what it opened.
//
// What goes to the files counts against the /tmp quota (nil: none), as
// the run's own writes there do; what goes to the caller's streams
// counts against the caller's output limit: through the sandbox for a
// run in it (RunConfig.Caller), through caller's writer for a native
// run (caller nil: none).
func (x *execService) streams(ctx context.Context, req *abi.ExecRequest, root *os.Root, quota *sandbox.Quota, caller *sandbox.Caller,
	native bool, run *ScriptRun, res *abi.ExecResult) (done func(), err error) {
	var closers []func()
	done = func() {
		for _, c := range closers {
			c()
		}
	}
	run.Stdin = strings.NewReader("")
	switch {
	case req.InheritStdin:
		run.Stdin = x.sr.Stdin
	case req.StdinFile != "":
		name, err := tmpName(req.StdinFile)
		if err != nil {
			return done, abi.Errorf(abi.CodeInvalid, "exec: stdin_file: %v", err)
		}
		f, err := root.Open(name)
		if err != nil {
			return done, abi.Errorf(abi.CodeInvalid, "exec: stdin_file: %v", err)
		}
		closers = append(closers, func() { _ = f.Close() })
		run.Stdin = f
	}
	if run.Stdin == nil {
		run.Stdin = strings.NewReader("")
	}
	capture := func(inherit bool, own io.Writer, file *string) (io.Writer, error) {
		if inherit {
			if own == nil {
				own = io.Discard
			}
			if native && caller != nil {
				own = caller.Writer(own)
			}
			return own, nil
		}
		f, name, err := createTmpFile(root)
		if err != nil {
			return nil, err
		}
		*file = path.Join(tmpGuestPath, name)
		closers = append(closers, func() { _ = f.Close() })
		if quota == nil {
			return f, nil
		}
		return quota.Writer(f, func() { x.auditTmpFull(ctx, *file, quota) }), nil
	}
	if run.Stdout, err = capture(req.InheritStdout, x.sr.Stdout, &res.StdoutFile); err != nil {
		return done, err
	}
	if req.StderrToStdout {
		run.Stderr = run.Stdout
	} else if run.Stderr, err = capture(req.InheritStderr, x.sr.Stderr, &res.StderrFile); err != nil {
		return done, err
	}
	return done, nil
}

// auditTmpFull records that a nested run's captured output did not fit
// in the /tmp quota, as the sandbox records its own writes refused.
func (x *execService) auditTmpFull(ctx context.Context, file string, q *sandbox.Quota) {
	a := x.sr.Auditor
	if a == nil {
		a = audit.AuditorFrom(ctx)
	}
	a.Audit(ctx, audit.Event{Time: time.Now(), Skill: x.s.Name, Kind: "fs.write", Value: file, Decision: audit.Deny,
		Reason: fmt.Sprintf("/tmp's write limit of %s is used up (shared by the run and the runs it starts; output of a program started by exec)", units.Bytes(uint64(q.Max())))})
}

// execWasm runs the program as another run of interpreter in (compiled
// as m) in the same sandbox, spending from caller's limits.
func (x *execService) execWasm(ctx context.Context, req *abi.ExecRequest, lang string, progArgs []string,
	in *SourceInterpreter, m *sandbox.CompiledModule, caller *sandbox.Caller, run *ScriptRun) (*sandbox.Result, error) {
	prog := path.Base(req.Args[0])
	// The interpreter's own mounts, unless the caller has them (a Python
	// script starting python3 runs over the same standard library).
	mounts := append([]sandbox.Mount{}, x.mounts...)
	for _, m := range in.Mounts {
		if !slices.Contains(x.mounts, m) {
			mounts = append(mounts, m)
		}
	}
	prot := append(append([]string{}, x.prot...), filepath.Dir(in.Module))
	var granted []string
	for _, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); ok && k != "PWD" {
			granted = append(granted, kv)
		}
	}
	if req.Dir != "" {
		granted = append(granted, "PWD="+path.Clean(req.Dir))
	}
	skillDir := ""
	if x.s != shellSkill {
		skillDir = filepath.Dir(x.s.Location)
	}
	env := interpreterEnv(lang, skillDir, granted, in.Env, mounts)
	args := append(append([]string{}, in.Args...), progArgs...)
	return runCompiled(ctx, m, x.s, prog, &skills.Script{}, x.eff, run,
		&sandbox.RunConfig{Name: prog, Args: args, Env: env, Mounts: mounts, Protected: prot, Caller: caller}, "; started by exec")
}

// scriptArgsAbs makes the script path among an interpreter's arguments
// absolute against dir: the interpreters resolve it before they change
// to the working directory (WASI starts them at "/"). Options before the
// script are skipped (python's -c and -m, node's -e and -p take no file).
func scriptArgsAbs(lang, dir string, args []string) []string {
	out := append([]string{}, args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case lang == interp.Python && (a == "-c" || a == "-m"),
			lang != interp.Python && (a == "-e" || a == "--eval" || a == "-p" || a == "--print"):
			return out
		case lang == interp.Python && (a == "-W" || a == "-X"):
			i++ // the option's value
		case a == "-" || a == "--":
			return out
		case strings.HasPrefix(a, "-"):
		default:
			if dir != "" && !path.IsAbs(a) {
				out[i] = path.Join(dir, a)
			}
			return out
		}
	}
	return out
}

// execNeedsTS reports whether node's script (its first argument) is
// TypeScript or an ES module by its name: only the esbuild guest runs
// those. (A .js file with import statements started by node from a
// shell is told apart by the guest's message, which says to rename it.)
func execNeedsTS(req *abi.ExecRequest) bool {
	for _, a := range req.Args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		switch strings.ToLower(path.Ext(a)) {
		case ".ts", ".mts", ".cts", ".mjs":
			return true
		}
		return false
	}
	return false
}

// tmpSeq numbers the output files of exec.
var tmpSeq atomic.Int64

// createTmpFile creates a new file for captured output in root and
// returns it with its name there.
func createTmpFile(root *os.Root) (*os.File, string, error) {
	for i := 0; i < 100; i++ {
		name := fmt.Sprintf(".exec-%d-%d", os.Getpid(), tmpSeq.Add(1))
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", errors.New("exec: cannot create an output file in /tmp")
}

// execFunc adapts the service to the host's signature.
func (x *execService) execFunc() host.ExecFunc { return x.exec }
