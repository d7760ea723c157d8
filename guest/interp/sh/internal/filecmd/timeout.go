package filecmd

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// timeout is GNU timeout: it runs the command under a deadline, which
// stops the shell's own commands where they wait (sleep, read, a loop's
// next command) and ends an interpreter the command starts (the deadline
// travels with the exec request to the host). Status 124 when the time
// ran out (128+signal with --preserve-status), else the command's.
// -k has nothing to escalate to: the command stops at the deadline.
func timeout(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "timeout", 125, proc.Getopt{Spec: "f,foreground k,kill-after: p,preserve-status s,signal: v,verbose", Posix: true}, args[1:])
	if !ok {
		return st
	}
	if len(ops) < 2 {
		e.TryHelp("timeout")
		return 125
	}
	secs, ok := parseDuration(ops[0])
	if !ok {
		return e.Usage("timeout", 125, "invalid time interval %s", q(ops[0]))
	}
	preserve, sig := false, 15
	for _, o := range opts {
		switch o.Key {
		case "p":
			preserve = true
		case "s":
			n, ok := signalNumber(o.Val)
			if !ok {
				e.Errorf("timeout", "%s: invalid signal", o.Val)
				e.TryHelp("timeout")
				return 125
			}
			sig = n
		case "k":
			if _, ok := parseDuration(o.Val); !ok {
				return e.Usage("timeout", 125, "invalid time interval %s", q(o.Val))
			}
		}
	}
	if e.ExecContext == nil {
		return 127
	}
	parent := e.Ctx
	if parent == nil {
		parent = context.Background()
	}
	if secs == 0 || secs >= float64(math.MaxInt64)/float64(time.Second) {
		return e.ExecContext(parent, ops[1:], e.Stdin, e.Stdout, e.Stderr) // 0: no limit
	}
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	ctx, cancel := context.WithDeadlineCause(parent, deadline, errTimedOut)
	defer cancel()
	code := e.ExecContext(clockCtx{ctx, deadline}, ops[1:], e.Stdin, e.Stdout, e.Stderr)
	timedOut := errors.Is(context.Cause(ctx), errTimedOut) || parent.Err() == nil && !time.Now().Before(deadline)
	if !timedOut {
		return code
	}
	if preserve {
		return 128 + sig
	}
	return 124
}

// clockCtx ends at its deadline also while the shell computes without
// blocking: the guest has one thread, where Go fires timers only when
// every goroutine waits, so a busy loop (while :; do :; done) would
// never see a plain deadline's timer. Err reads the clock itself, and
// the shell checks Err before each command.
type clockCtx struct {
	context.Context
	deadline time.Time
}

func (c clockCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// errTimedOut is the cause of timeout's deadline, told apart from the
// shell stopping the command for another reason.
var errTimedOut = errors.New("timed out")

// signalNumber reads timeout's -s: a number, or a name with or without
// SIG.
func signalNumber(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n > 0 && n < 65
	}
	n, ok := map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8, "KILL": 9, "USR1": 10,
		"SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20}[strings.TrimPrefix(strings.ToUpper(s), "SIG")]
	return n, ok
}
