package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// shell holds what every interpreter of one shell run shares: the
// standard streams of the run and the limits (limits.go).
type shell struct {
	ctx            context.Context
	name           string // $0 of the script, for messages
	stdin          io.Reader
	stdout, stderr io.Writer
	limits         *limits
}

func newShell(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *shell {
	if f, ok := stdout.(interface{ Flush() error }); ok {
		// Whatever goes to stderr follows what went to stdout before it,
		// as an unbuffered shell would show them in a terminal.
		stderr = &flushFirst{flush: f, w: stderr}
	}
	if topStdout == nil {
		topStdout, topStderr = stdout, stderr
	}
	return &shell{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, limits: newLimits()}
}

// flushFirst flushes another writer before each write.
type flushFirst struct {
	flush interface{ Flush() error }
	w     io.Writer
}

func (f *flushFirst) Write(p []byte) (int, error) {
	_ = f.flush.Flush()
	return f.w.Write(p)
}

// binDirs are where scripts name commands by path (/usr/bin/env,
// /bin/echo): a built-in answers for them when no such file is mounted.
var binDirs = map[string]bool{"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true}

// exec runs a simple command that is neither a function nor a builtin of
// the interpreter: a built-in command, a script file, or an interpreter.
func (sh *shell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	stdin := hc.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	name := args[0]
	environ := environOf(hc.Env)
	if _, ok := sh.lookup(hc.Dir, name); !ok && !strings.Contains(name, "/") {
		p, found := lookPath(hc.Dir, hc.Env.Get("PATH").String(), name)
		if !found {
			fmt.Fprintf(hc.Stderr, "%s: line %d: %s: command not found: skillrun's sandboxed shell has no `%s`\n", sh.name, hc.Pos.Line(), name, name)
			return interp.ExitStatus(exitNotFound)
		}
		args = append([]string{p}, args[1:]...)
	}
	code := sh.command(ctx, hc.Dir, environ, stdin, hc.Stdout, hc.Stderr, args)
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(code))
}

// command runs args with the given process state and returns its exit
// status.
func (sh *shell) command(ctx context.Context, dir string, environ []string, stdin io.Reader, stdout, stderr io.Writer, args []string) int {
	name := args[0]
	if cmd, ok := sh.lookup(dir, name); ok {
		if err := sh.limits.startProcess(); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return exitLimit
		}
		defer sh.limits.endProcess()
		e := &proc.Env{Ctx: ctx, Stdin: stdin, Stdout: sh.limits.capOutput(stdout, stderr, name), Stderr: stderr, Dir: dir, Environ: environ}
		e.Exec = func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return sh.execLine(ctx, dir, environ, stdin, stdout, stderr, args)
		}
		e.ExecContext = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return sh.execLine(ctx, dir, environ, stdin, stdout, stderr, args)
		}
		return cmd(e, args)
	}
	if strings.Contains(name, "/") {
		return sh.runFile(ctx, dir, environ, stdin, stdout, stderr, args)
	}
	fmt.Fprintf(stderr, "%s: %s: command not found: skillrun's sandboxed shell has no `%s`\n", sh.name, name, name)
	return exitNotFound
}

// lookup finds the built-in command name, also when it is named by a
// standard path (/usr/bin/env) that holds no file in the sandbox.
func (sh *shell) lookup(dir, name string) (proc.Command, bool) {
	if !strings.Contains(name, "/") {
		return sh.byName(name)
	}
	d, base := path.Split(name)
	if !binDirs[path.Clean(d)] {
		return nil, false
	}
	if _, err := os.Stat(name); err == nil {
		return nil, false // a real file there runs as itself
	}
	if utilityBuiltins[base] {
		return utilityBuiltin, true
	}
	return sh.byName(base)
}

// utilityBuiltins are the bash builtins that are also utilities of their
// own (coreutils' /bin/echo, /usr/bin/test): named by path, they run as
// the builtin of a new interpreter, which behaves as the utility does.
var utilityBuiltins = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true, "pwd": true}

// utilityBuiltin runs a utility of utilityBuiltins named by its path.
func utilityBuiltin(e *proc.Env, args []string) int {
	return e.Exec(append([]string{path.Base(args[0])}, args[1:]...), e.Stdin, e.Stdout, e.Stderr)
}

// execLine runs args as a simple command of a new interpreter, so that a
// command another command runs (xargs, find -exec, awk's system()) may
// be a builtin of the shell (echo, printf, test) as well as a command.
func (sh *shell) execLine(ctx context.Context, dir string, environ []string, stdin io.Reader, stdout, stderr io.Writer, args []string) int {
	if len(args) == 3 && (args[0] == "sh" || args[0] == "bash") && args[1] == "-c" {
		return sh.runScriptIO(ctx, strings.NewReader(args[2]), args[0], dir, environ, []string{"-c"}, nil, stdin, stdout, stderr)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			fmt.Fprintf(stderr, "%s: argument %d cannot be passed: %v\n", args[0], i, err)
			return exitNoExec
		}
		quoted[i] = q
	}
	return sh.runScriptIO(ctx, strings.NewReader(strings.Join(quoted, " ")), "sh", dir, environ, nil, nil, stdin, stdout, stderr)
}

// lookPath finds a script file called by name in the directories of
// PATH that the sandbox holds (a skill's helper on PATH); the built-in
// commands are found before it, whatever PATH says.
func lookPath(dir, pathList, name string) (string, bool) {
	for _, d := range strings.Split(pathList, ":") {
		if d == "" || binDirs[d] {
			continue
		}
		if !path.IsAbs(d) {
			d = path.Join(dir, d)
		}
		p := path.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// environOf lists the exported variables of env as KEY=VALUE; as in
// bash, arrays are not exported.
func environOf(env expand.Environ) []string {
	var list []string
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() && vr.Kind == expand.String {
			list = append(list, name+"="+vr.String())
		}
		return true
	})
	return list
}

// errorText is the text bash prints for err.
func errorText(err error) string { return proc.ErrorText(err) }
