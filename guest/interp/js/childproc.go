package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/dop251/goja"

	"github.com/skillrun/skillrun/guest"
)

// The child_process module: execSync, execFileSync and spawnSync over
// the exec host function. The program (node, python3, sh/bash, one of
// the sandboxed shell's commands, a script file) runs as another run in
// this sandbox, with this run's mounts, grant and limits; a host program
// (git) is not there, and fails as where it is not installed (ENOENT).
// Outputs are strings (this interpreter has no Buffer; `.toString()` on
// them still works). The asynchronous calls (exec, spawn, fork) need an
// event loop this interpreter has not: they say to use the synchronous
// ones.

// childOptions are the options of a child_process call that skillrun
// honours.
type childOptions struct {
	cwd   string
	env   []string
	input string
	stdio [3]string // "pipe", "inherit" or "ignore"
	shell bool
}

// childResult is a finished child run.
type childResult struct {
	status         int
	stdout, stderr string
}

func (in *interp) childProcessModule() goja.Value {
	o := in.vm.NewObject()
	set(o, "execSync", func(c goja.FunctionCall) goja.Value {
		cmd := c.Argument(0).String()
		opt := in.childOptions(c.Argument(1), [3]string{"pipe", "pipe", "inherit"})
		r, err := in.runChild([]string{"/bin/sh", "-c", cmd}, opt)
		if err != nil {
			panic(in.spawnError(cmd, nil, err))
		}
		if r.status != 0 {
			panic(in.failed("Command failed: "+cmd, r))
		}
		return in.vm.ToValue(r.stdout)
	})
	set(o, "execFileSync", func(c goja.FunctionCall) goja.Value {
		file, args, opts := in.fileArgs(c)
		opt := in.childOptions(opts, [3]string{"pipe", "pipe", "inherit"})
		r, err := in.runChild(childArgv(file, args, opt.shell), opt)
		if err != nil {
			panic(in.spawnError(file, args, err))
		}
		if r.status != 0 {
			panic(in.failed("Command failed: "+strings.Join(append([]string{file}, args...), " "), r))
		}
		return in.vm.ToValue(r.stdout)
	})
	set(o, "spawnSync", func(c goja.FunctionCall) goja.Value {
		file, args, opts := in.fileArgs(c)
		opt := in.childOptions(opts, [3]string{"pipe", "pipe", "pipe"})
		res := in.vm.NewObject()
		set(res, "pid", 0)
		set(res, "signal", goja.Null())
		r, err := in.runChild(childArgv(file, args, opt.shell), opt)
		if err != nil {
			set(res, "error", in.spawnError(file, args, err))
			set(res, "status", goja.Null())
			set(res, "output", goja.Null())
			set(res, "stdout", goja.Null())
			set(res, "stderr", goja.Null())
			return res
		}
		set(res, "status", r.status)
		set(res, "stdout", r.stdout)
		set(res, "stderr", r.stderr)
		set(res, "output", []any{nil, r.stdout, r.stderr})
		return res
	})
	for _, name := range []string{"exec", "execFile", "spawn", "fork"} {
		set(o, name, func(goja.FunctionCall) goja.Value {
			in.throw("skillrun: child_process.%s is not available: the sandbox's JavaScript interpreter has no event loop; use %sSync", name, strings.Replace(name, "fork", "execFile", 1))
			return nil
		})
	}
	return o
}

// fileArgs reads (file, [args], [options]) of execFileSync and spawnSync.
func (in *interp) fileArgs(c goja.FunctionCall) (string, []string, goja.Value) {
	file := c.Argument(0).String()
	opts := c.Argument(1)
	var args []string
	if o, ok := opts.(*goja.Object); ok && o.ClassName() == "Array" {
		if err := in.vm.ExportTo(o, &args); err != nil {
			in.throw("TypeError: the arguments of %s must be strings: %v", file, err)
		}
		opts = c.Argument(2)
	}
	return file, args, opts
}

// childArgv is the command line of a file call: the file and its
// arguments, or with the shell option, a shell running them joined.
func childArgv(file string, args []string, shell bool) []string {
	if shell {
		return []string{"/bin/sh", "-c", strings.Join(append([]string{file}, args...), " ")}
	}
	return append([]string{file}, args...)
}

// childOptions reads the options object v (cwd, env, input, stdio, shell,
// encoding) over the call's default stdio.
func (in *interp) childOptions(v goja.Value, stdio [3]string) childOptions {
	opt := childOptions{cwd: workdir(), stdio: stdio}
	env := in.vm.Get("process").ToObject(in.vm).Get("env")
	o, ok := v.(*goja.Object)
	if ok {
		if s := o.Get("cwd"); s != nil && !goja.IsUndefined(s) && !goja.IsNull(s) {
			opt.cwd = fsPath(s.String())
		}
		if e := o.Get("env"); e != nil && !goja.IsUndefined(e) && !goja.IsNull(e) {
			env = e
		}
		if s := o.Get("input"); s != nil && !goja.IsUndefined(s) && !goja.IsNull(s) {
			opt.input = s.String()
		}
		if s := o.Get("shell"); s != nil && !goja.IsUndefined(s) {
			opt.shell = s.ToBoolean()
		}
		switch s := o.Get("stdio").(type) {
		case *goja.Object:
			var parts []any
			_ = in.vm.ExportTo(s, &parts)
			for i := 0; i < len(parts) && i < 3; i++ {
				if p, ok := parts[i].(string); ok {
					opt.stdio[i] = p
				}
			}
		case nil:
		default:
			if !goja.IsUndefined(s) && !goja.IsNull(s) {
				opt.stdio = [3]string{s.String(), s.String(), s.String()}
			}
		}
	}
	if eo, ok := env.(*goja.Object); ok {
		keys := eo.Keys()
		sort.Strings(keys)
		for _, k := range keys {
			if val := eo.Get(k); val != nil && !goja.IsUndefined(val) {
				opt.env = append(opt.env, k+"="+val.String())
			}
		}
	}
	return opt
}

// runChild runs argv through the exec host function. An error is a
// program that could not start (not in the sandbox, nesting too deep).
func (in *interp) runChild(argv []string, opt childOptions) (*childResult, error) {
	req := &guest.ExecRequest{Args: argv, Dir: opt.cwd, Env: opt.env}
	input := opt.input
	switch {
	case opt.stdio[0] == "inherit" && in.stdinOK:
		input = string(in.stdin) // already read by the script
	case opt.stdio[0] == "inherit":
		req.InheritStdin = true
	}
	if input != "" && !req.InheritStdin {
		name, err := tmpWrite(input)
		if err != nil {
			return nil, err
		}
		defer func() { _ = os.Remove(name) }()
		req.StdinFile = name
	}
	// Node writes to files and pipes synchronously: what the script wrote
	// is out before the program writes.
	_ = in.stdout.Flush()
	_ = in.stderr.Flush()
	req.InheritStdout = opt.stdio[1] == "inherit"
	req.InheritStderr = opt.stdio[2] == "inherit"
	res, err := guest.Exec(req)
	if err != nil {
		return nil, err
	}
	r := &childResult{status: res.ExitCode}
	r.stdout, err = takeFile(res.StdoutFile, opt.stdio[1] == "pipe")
	if err == nil {
		r.stderr, err = takeFile(res.StderrFile, opt.stdio[2] == "pipe")
	}
	return r, err
}

// tmpWrite writes s to a new file directly in /tmp, where the host reads
// a program's standard input from.
func tmpWrite(s string) (string, error) {
	f, err := os.CreateTemp("/tmp", ".exec-in-*")
	if err != nil {
		return "", fmt.Errorf("cannot pass standard input: %w", err)
	}
	_, err = io.WriteString(f, s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("cannot pass standard input: %w", err)
	}
	return f.Name(), nil
}

// takeFile reads (when keep) and removes an output file of the host.
func takeFile(name string, keep bool) (string, error) {
	if name == "" {
		return "", nil
	}
	defer func() { _ = os.Remove(name) }()
	if !keep {
		return "", nil
	}
	b, err := os.ReadFile(name)
	return string(b), err
}

// spawnError is Node's error for a program that could not start.
func (in *interp) spawnError(file string, args []string, err error) *goja.Object {
	code, errno := "EIO", -5
	msg := err.Error()
	if ae, ok := errors.AsType[*guest.Error](err); ok {
		msg = ae.Message
		switch ae.Code {
		case guest.CodeNotFound, guest.CodeUnavailable:
			code, errno = "ENOENT", -2
			_, _ = fmt.Fprintf(in.stderr, "skillrun: %s\n", ae.Message)
		case guest.CodeDenied:
			code, errno = "EPERM", -1
		}
	}
	if code == "ENOENT" {
		msg = fmt.Sprintf("spawnSync %s ENOENT", file)
	}
	e := in.vm.NewGoError(errors.New(msg))
	set(e, "code", code)
	set(e, "errno", errno)
	set(e, "syscall", "spawnSync "+file)
	set(e, "path", file)
	set(e, "spawnargs", append([]string{}, args...))
	return e
}

// failed is Node's error for a program that exited non-zero.
func (in *interp) failed(msg string, r *childResult) *goja.Object {
	if r.stderr != "" {
		msg += "\n" + r.stderr
	}
	e := in.vm.NewGoError(errors.New(msg))
	set(e, "status", r.status)
	set(e, "signal", goja.Null())
	set(e, "stdout", r.stdout)
	set(e, "stderr", r.stderr)
	set(e, "output", []any{nil, r.stdout, r.stderr})
	return e
}
