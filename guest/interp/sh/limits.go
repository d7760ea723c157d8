package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Limits of the shell itself. The sandbox bounds memory, time and output
// of the whole run; these end the shell's own runaways with a message
// before they exhaust the run's memory, which would leave only a Go
// runtime crash to read.
const (
	// maxProcs bounds the goroutines of the shell: every pipeline stage,
	// subshell and background job is one, so a fork bomb
	// (:(){ :|:& };:) stops here.
	maxProcs = 1024
	// maxFrames bounds the Go stack of a command: a shell function that
	// calls itself without end stops here (about 1,000 nested calls).
	maxFrames = 20000
	// maxSubstOutput bounds what one command writes into a command
	// substitution, which the shell keeps in memory: $(yes) stops here.
	maxSubstOutput = 16 << 20
)

// A limitError is a limit of the shell that ended the run.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// limits holds the shell's counters.
type limits struct {
	procs atomic.Int64
	calls atomic.Int64
	once  sync.Once
}

// framesEvery is how often (in commands) check measures the stack:
// runtime.Callers walks the whole stack, so measuring at every command
// would make a deep recursion quadratic; every 32nd lets a runaway go at
// most 32 calls past the bound.
const framesEvery = 32

func newLimits() *limits { return &limits{} }

// startProcess counts a built-in command that starts; endProcess its end.
func (l *limits) startProcess() error {
	if l.procs.Add(1) > maxProcs {
		l.procs.Add(-1)
		return &limitError{fmt.Sprintf("fork: more than %d commands at once in skillrun's sandboxed shell", maxProcs)}
	}
	return nil
}

func (l *limits) endProcess() { l.procs.Add(-1) }

// check is called before every simple command (the interpreter's call
// handler): it ends the shell when a fork bomb or a runaway recursion
// crosses a limit. Ending the whole shell is deliberate: a script that
// got there cannot recover, and its goroutines would keep the run busy
// until the timeout.
func (l *limits) check(stderr io.Writer, name string) {
	var err error
	if runtime.NumGoroutine() > maxProcs {
		err = &limitError{fmt.Sprintf("fork: retry: more than %d processes at once (a fork bomb?): skillrun's sandboxed shell stops here", maxProcs)}
	} else if l.calls.Add(1)%framesEvery == 0 {
		var pc [1]uintptr
		if runtime.Callers(maxFrames, pc[:]) > 0 {
			err = &limitError{fmt.Sprintf("%s: maximum function nesting level exceeded: skillrun's sandboxed shell stops here", name)}
		}
	}
	if err != nil {
		l.once.Do(func() {
			if f, ok := stderr.(interface{ Flush() error }); ok {
				_ = f.Flush()
			}
			flushStdout()
			fmt.Fprintf(stderr, "sh: %v\n", err)
			os.Exit(exitLimit)
		})
		select {} // another goroutine is exiting
	}
}

// capOutput bounds w when it is a command substitution's buffer; the
// command named name is told once on stderr when it passes the bound.
func (l *limits) capOutput(w, stderr io.Writer, name string) io.Writer {
	switch w.(type) {
	case *strings.Builder, *bytes.Buffer:
		return &cappedWriter{w: w, left: maxSubstOutput, stderr: stderr, name: name}
	}
	return w
}

// cappedWriter fails writes past its limit.
type cappedWriter struct {
	w      io.Writer
	left   int64
	stderr io.Writer
	name   string
	told   bool
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		err := fmt.Errorf("command substitution output over %d MiB", maxSubstOutput>>20)
		if !c.told {
			c.told = true
			fmt.Fprintf(c.stderr, "%s: %v: skillrun's sandboxed shell cut it there\n", c.name, err)
		}
		return 0, err
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

// call is the interpreter's call handler: it runs before every simple
// command, function calls included. It enforces the limits and answers
// `command -v`, `type` and `hash` for the built-in commands, which are
// not files in any PATH directory.
func (sh *shell) call(ctx context.Context, args []string) ([]string, error) {
	sh.limits.check(sh.stderr, args[0])
	if replaced, ok := sh.ownBuiltin(ctx, args); ok {
		return replaced, nil
	}
	if len(args) == 3 && args[0] == "command" && (args[1] == "-v" || args[1] == "-V") && isCommand(args[2]) {
		if args[1] == "-V" {
			return []string{"echo", args[2] + " is /usr/bin/" + args[2]}, nil
		}
		return []string{"echo", "/usr/bin/" + args[2]}, nil
	}
	if len(args) == 2 && args[0] == "type" && isCommand(args[1]) {
		return []string{"echo", args[1] + " is /usr/bin/" + args[1]}, nil
	}
	if len(args) >= 2 && args[0] == "hash" {
		for _, a := range args[1:] {
			if !isCommand(a) {
				return args, nil
			}
		}
		return []string{"true"}, nil
	}
	return args, nil
}

// stdoutFlusher is the shell's buffered stdout (set by main).
var stdoutFlusher interface{ Flush() error }

func flushStdout() {
	if stdoutFlusher != nil {
		_ = stdoutFlusher.Flush()
	}
}
