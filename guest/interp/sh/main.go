// Command sh is skillrun's sandboxed shell: a WASI preview1 command module
// (GOOS=wasip1) that runs bash-compatible scripts and command lines with
// mvdan.cc/sh's interpreter, and every command they call as Go code in
// the same module. No command is a host process: `grep`, `sed`, `awk`,
// `jq`, `tar`... are built in (internal/textcmd, internal/filecmd,
// internal/awk, jq.go), `sh`/`bash` run in-process, and `python3`/`node`
// ask the host to start another interpreter run in the same sandbox
// (interpreters.go). A command the shell lacks exits 127 naming itself.
//
//	sh -c COMMAND [NAME [ARGS...]]
//	sh FILE [ARGS...]
//	sh -s [ARGS...]             (the script on standard input)
//
// Options before the script (-e, -u, -x, -o pipefail, -O nullglob, ...)
// are bash's.
// The working directory is $PWD (the workspace). Resource limits of the
// shell itself (limits.go) end a fork bomb or a runaway recursion with a
// message and exit status 125, before the sandbox's memory limit would.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Exit statuses of the shell itself, as bash uses them.
const (
	exitUsage    = 2   // bad options, a syntax error
	exitNoExec   = 126 // a file that cannot run
	exitNotFound = 127 // no such command
	exitLimit    = 125 // a limit of the sandboxed shell (limits.go)
)

func main() {
	out := &flushWriter{w: bufio.NewWriterSize(os.Stdout, 32<<10)}
	stdoutFlusher = out
	topStdin = os.Stdin
	code := run(context.Background(), os.Args, os.Stdin, out, os.Stderr)
	_ = out.Flush()
	os.Exit(code)
}

// run parses the command line and runs the script; it returns the exit
// status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "sh: %v\nusage: sh [options] (-c COMMAND [NAME [ARGS...]] | FILE [ARGS...] | -s [ARGS...])\n", err)
		return exitUsage
	}
	dir := os.Getenv("PWD")
	if dir == "" || !path.IsAbs(dir) {
		dir = "/"
	}
	sh := newShell(ctx, stdin, stdout, stderr)
	var src io.Reader
	name := inv.name
	switch {
	case inv.command != "":
		src = strings.NewReader(inv.command)
	case inv.file != "":
		b, err := readScript(dir, inv.file)
		if err != nil {
			fmt.Fprintf(stderr, "sh: %s: %s\n", inv.file, err)
			return exitNotFound
		}
		src = strings.NewReader(b)
	default:
		src = stdin
	}
	environ := os.Environ()
	if inv.file != "" {
		environ = append(environ, "BASH_SOURCE="+inv.file)
	}
	if os.Getenv("PATH") == "" {
		environ = append(environ, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return sh.runScript(ctx, src, name, dir, environ, inv.opts, inv.params)
}

// invocation is a parsed command line of the shell.
type invocation struct {
	command string   // -c COMMAND
	file    string   // FILE
	name    string   // $0
	opts    []string // bash options for interp.Params (-e, -o pipefail, -c)
	params  []string // $1...
}

// parseArgs reads sh's command line: options, then -c COMMAND [NAME
// ARGS...], FILE [ARGS...] or -s [ARGS...].
func parseArgs(args []string) (*invocation, error) {
	// $0 of a command line is the shell's name: sh or bash when called
	// so, else bash (the module's own name means nothing to a script).
	inv := &invocation{name: "bash"}
	if len(args) > 0 && (path.Base(args[0]) == "sh" || path.Base(args[0]) == "bash") {
		inv.name = path.Base(args[0])
	}
	rest := args[min(1, len(args)):]
	hasC, stdinScript := false, false
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		rest = rest[1:]
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
			if len(rest) == 0 {
				return nil, fmt.Errorf("%s: option requires an argument", a)
			}
			inv.opts = append(inv.opts, a, rest[0])
			rest = rest[1:]
			continue
		}
		if a == "--norc" || a == "--noprofile" || a == "--posix" {
			continue
		}
		if a == "--rcfile" || a == "--init-file" {
			// There are no startup files to read: the file is skipped.
			if len(rest) == 0 {
				return nil, fmt.Errorf("%s: option requires an argument", a)
			}
			rest = rest[1:]
			continue
		}
		if strings.HasPrefix(a, "--") {
			return nil, fmt.Errorf("%s: invalid option", a)
		}
		for _, c := range a[1:] {
			switch c {
			case 'c':
				hasC = true
			case 's':
				stdinScript = true
			case 'l':
				// a login shell has no profile to read here
			case 'i':
				// interactive: bash's interactive options and $-
				inv.opts = append(inv.opts, "-i")
			case 'e', 'u', 'x', 'n', 'f', 'a':
				inv.opts = append(inv.opts, string(a[0])+string(c))
			default:
				return nil, fmt.Errorf("-%c: invalid option", c)
			}
		}
	}
	switch {
	case hasC:
		if len(rest) == 0 {
			return nil, errors.New("-c: option requires an argument")
		}
		inv.command, rest = rest[0], rest[1:]
		if len(rest) > 0 {
			inv.name, rest = rest[0], rest[1:]
		}
		inv.opts = append(inv.opts, "-c") // $- shows where commands come from
	case stdinScript || len(rest) == 0:
		inv.opts = append(inv.opts, "-s")
	default:
		inv.file, inv.name, rest = rest[0], rest[0], rest[1:]
	}
	inv.params = rest
	return inv, nil
}

// readScript reads a script file (relative to dir), bounded.
func readScript(dir, file string) (string, error) {
	p := file
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", errors.New(errorText(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return "", errors.New("Is a directory") //nolint:staticcheck // bash's message, as bash prints it
	}
	b, err := io.ReadAll(io.LimitReader(f, maxScript+1))
	if err != nil {
		return "", errors.New(errorText(err))
	}
	if len(b) > maxScript {
		return "", fmt.Errorf("script over %d MiB", maxScript>>20)
	}
	return string(b), nil
}

// maxScript bounds a script file the shell reads.
const maxScript = 16 << 20

// runScript parses src as bash and runs it in a new interpreter over dir
// and environ, with $0 name and positional parameters params; it returns
// the exit status.
func (sh *shell) runScript(ctx context.Context, src io.Reader, name, dir string, environ, opts, params []string) int {
	sh.name = name
	var text strings.Builder
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(io.TeeReader(src, &text), name)
	if err != nil {
		if file = partialScript(text.String(), name, err); file == nil {
			fmt.Fprintf(sh.stderr, "%s: %v\n", name, err)
			return exitUsage
		}
	}
	readFromFD(file)
	r, err := sh.newRunner(dir, environ, sh.stdin, sh.stdout, sh.stderr)
	if err != nil {
		fmt.Fprintf(sh.stderr, "sh: %v\n", err)
		return exitUsage
	}
	var p []string
	for i := 0; i < len(opts); i++ {
		if (opts[i] == "-O" || opts[i] == "+O") && i+1 < len(opts) {
			// shopt options: -O sets one, +O unsets it.
			if err := interp.BashOpts(map[bool]string{true: "-s", false: "-u"}[opts[i] == "-O"], opts[i+1])(r); err != nil && !strings.Contains(err.Error(), "unsupported") {
				fmt.Fprintf(sh.stderr, "%s: %s: invalid shell option name\n", name, opts[i+1])
				return exitUsage
			}
			i++
			continue
		}
		p = append(p, opts[i])
	}
	p = append(p, "--")
	if err := interp.Params(append(p, params...)...)(r); err != nil {
		fmt.Fprintf(sh.stderr, "sh: %v\n", err)
		return exitUsage
	}
	return sh.exitCode(r.Run(ctx, file))
}

// runScriptIO is runScript with other streams (a nested sh, a pipeline
// stage).
func (sh *shell) runScriptIO(ctx context.Context, src io.Reader, name, dir string, environ, opts, params []string,
	stdin io.Reader, stdout, stderr io.Writer) int {
	nested := *sh
	nested.stdin, nested.stdout, nested.stderr = stdin, stdout, stderr
	return nested.runScript(ctx, src, name, dir, environ, opts, params)
}

// exitCode turns what Runner.Run returned into an exit status.
func (sh *shell) exitCode(err error) int {
	if err == nil {
		return 0
	}
	if st, ok := errors.AsType[interp.ExitStatus](err); ok {
		return int(st)
	}
	if le, ok := errors.AsType[*limitError](err); ok {
		fmt.Fprintf(sh.stderr, "sh: %v\n", le)
		return exitLimit
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return 128 + 15 // stopped, as by SIGTERM (timeout, kill): bash says nothing
	}
	fmt.Fprintf(sh.stderr, "sh: %v\n", err)
	return 1
}

// newRunner makes an interpreter with the shell's handlers.
func (sh *shell) newRunner(dir string, environ []string, stdin io.Reader, stdout, stderr io.Writer) (*interp.Runner, error) {
	return interp.New(
		interp.Env(expand.ListEnviron(environ...)),
		interp.Dir(dir),
		interp.StdIO(stdin, stdout, stderr),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sh.exec }),
		interp.OpenHandler(sh.open),
		interp.CallHandler(sh.call),
	)
}

// flushWriter is the shell's buffered stdout, which is flushed before
// the shell waits for input or hands the terminal to something else.
type flushWriter struct{ w *bufio.Writer }

func (f *flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }

// Flush writes out what is buffered.
func (f *flushWriter) Flush() error { return f.w.Flush() }
