package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"github.com/skillrun/skillrun/internal/abi"
)

// The shell's own standard streams (main sets them): a command whose
// stream is one of these passes it on to an interpreter run instead of
// copying through files.
var topStdin io.Reader
var topStdout, topStderr io.Writer

// interpreterCommand runs python3 or node: the host starts the
// interpreter as another run in this sandbox (the exec host function),
// with this run's mounts, grant and limits. Streams that are not the
// shell's own (a pipe, a command substitution) go through files of the
// private /tmp.
func (sh *shell) interpreterCommand(e *proc.Env, args []string) int {
	req := &guest.ExecRequest{Args: args, Dir: e.Dir, Env: e.Environ}
	if e.Ctx != nil {
		if dl, ok := e.Ctx.Deadline(); ok && time.Until(dl) > 0 { // under timeout
			// Rounded up: the run ends after the deadline, never before,
			// so timeout sees its time run out when the run returns.
			req.TimeoutMS = time.Until(dl).Milliseconds() + 1
		}
	}
	tmp := os.Getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	switch {
	case e.Stdin == topStdin && topStdin != nil:
		req.InheritStdin = true
	case isEmptyReader(e.Stdin):
	default:
		f, err := os.CreateTemp(tmp, ".exec-in-*")
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s: cannot pass standard input: %s\n", args[0], errorText(err))
			return exitNoExec
		}
		_, err = io.Copy(f, e.Stdin)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		defer func() { _ = os.Remove(f.Name()) }()
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s: cannot pass standard input: %s\n", args[0], errorText(err))
			return exitNoExec
		}
		req.StdinFile = f.Name()
	}
	if e.Stdout == topStdout && topStdout != nil {
		flushStdout()
		req.InheritStdout = true
	}
	switch {
	case sameWriter(e.Stderr, e.Stdout):
		// 2>&1 or |&: one stream in the order the program wrote it, as
		// a shared descriptor keeps it (not stdout's file then stderr's).
		req.StderrToStdout = true
	case e.Stderr == topStderr && topStderr != nil:
		flushStdout()
		req.InheritStderr = true
	}
	res, err := guest.Exec(req)
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s: %v\n", args[0], err)
		if ae, ok := errors.AsType[*abi.Error](err); ok && (ae.Code == abi.CodeNotFound || ae.Code == abi.CodeUnavailable) {
			return exitNotFound
		}
		return exitNoExec
	}
	copyOut := func(file string, w io.Writer) {
		if file == "" {
			return
		}
		defer func() { _ = os.Remove(file) }()
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s: reading its output: %s\n", args[0], errorText(err))
			return
		}
		defer f.Close()
		_, _ = io.Copy(w, f)
	}
	copyOut(res.StdoutFile, e.Stdout)
	copyOut(res.StderrFile, e.Stderr)
	return res.ExitCode
}

// isEmptyReader reports whether r is known to hold nothing.
func isEmptyReader(r io.Reader) bool {
	switch v := r.(type) {
	case nil:
		return true
	case *strings.Reader:
		return v.Len() == 0
	}
	return false
}

// sameWriter reports whether a and b are the same writer, without
// panicking on writers of uncomparable types.
func sameWriter(a, b io.Writer) (same bool) {
	if a == nil || b == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
