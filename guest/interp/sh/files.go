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

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// runFile runs a command named by path (./build.sh,
// "$(dirname "$0")/helper"): by its #! line, else as a shell script, the
// way bash runs a file without one. The interpreter the #! line names
// must be one the shell has.
func (sh *shell) runFile(ctx context.Context, dir string, environ []string, stdin io.Reader, stdout, stderr io.Writer, args []string) int {
	name := args[0]
	p := name
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: %s\n", sh.name, name, errorText(err))
		return exitNotFound
	}
	if fi.IsDir() {
		fmt.Fprintf(stderr, "%s: %s: Is a directory\n", sh.name, name)
		return exitNoExec
	}
	interp, err := shebang(p)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: %s\n", sh.name, name, errorText(err))
		return exitNoExec
	}
	argv := append([]string{"sh"}, args...)
	if len(interp) > 0 {
		cmd, ok := sh.byName(path.Base(interp[0]))
		if !ok || !isInterpreter(path.Base(interp[0])) {
			fmt.Fprintf(stderr, "%s: %s: %s: bad interpreter: skillrun's sandboxed shell has no `%s`\n", sh.name, name, strings.Join(interp, " "), path.Base(interp[0]))
			return exitNoExec
		}
		argv = append(append([]string{path.Base(interp[0])}, interp[1:]...), args...)
		e := &proc.Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Dir: dir, Environ: environ}
		return cmd(e, argv)
	}
	e := &proc.Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Dir: dir, Environ: environ}
	return sh.shCommand(e, argv)
}

// isInterpreter reports whether a #! line may name the command.
func isInterpreter(name string) bool {
	switch name {
	case "sh", "bash", "dash", "python", "python3", "python3.11", "node", "nodejs":
		return true
	}
	return false
}

// shebang returns the interpreter and its argument from the #! line of
// the file at p, with /usr/bin/env [-S] resolved; nil for no #! line.
func shebang(p string) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 512)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if !strings.HasPrefix(line, "#!") {
		return nil, nil
	}
	fields := strings.Fields(strings.TrimSpace(line[2:]))
	if len(fields) > 0 && path.Base(fields[0]) == "env" {
		fields = fields[1:]
		for len(fields) > 0 && strings.HasPrefix(fields[0], "-") {
			fields = fields[1:] // env -S and friends
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	if path.Base(fields[0]) == "dash" {
		fields[0] = "sh"
	}
	return fields, nil
}

// shCommand is `sh`/`bash` run as a command: another interpreter with the
// shell's handlers and limits, over the caller's directory and
// environment.
func (sh *shell) shCommand(e *proc.Env, args []string) int {
	inv, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s: %v\n", args[0], err)
		return exitUsage
	}
	if inv.file != "" && len(args) > 1 && args[1] == inv.file && nativeScript(e.Dir, inv.file) {
		// The operator runs this skill's scripts as host processes: the
		// host decides (and checks again) through exec.
		return sh.interpreterCommand(e, append([]string{"bash"}, args[1:]...))
	}
	environ := e.Environ
	var src io.Reader
	switch {
	case inv.command != "":
		src = strings.NewReader(inv.command)
	case inv.file != "":
		b, err := readScript(e.Dir, inv.file)
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s: %s: %s\n", args[0], inv.file, err)
			return exitNotFound
		}
		src = strings.NewReader(b)
		environ = append(append([]string{}, environ...), "BASH_SOURCE="+inv.file)
	default:
		src = e.Stdin
	}
	return sh.runScriptIO(e.Ctx, src, inv.name, e.Dir, environ, inv.opts, inv.params, e.Stdin, e.Stdout, e.Stderr)
}

// nativeEnv names the variable in which the host lists the skill folders
// (/skills/<name>) whose scripts the operator runs under the native
// tier, separated by ":".
const nativeEnv = "SKILLRUN_NATIVE"

// nativeScript reports whether the script file (relative to dir) lies in
// a folder the host lists in $SKILLRUN_NATIVE, as the shell started: a
// script cannot change the list, and the host checks the request anyway.
func nativeScript(dir, file string) bool {
	p := file
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	p = path.Clean(p)
	for _, d := range strings.Split(os.Getenv(nativeEnv), ":") {
		if d != "" && strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
