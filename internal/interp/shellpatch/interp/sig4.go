//go:build ignore

package interp

import (
	"context"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// skProc is a process as kill sees it. WASI has no signals, so one
// sent to $$ or to a background job is queued on its skProc and taken
// at a command boundary, where bash runs a trap too. Several Runners
// run in one process (the shell, then a nested sh -c, which shares
// $$): a signal goes to the innermost that traps it, else the
// outermost takes its default action.
type skProc struct {
	mu      sync.Mutex
	runners []*Runner // outermost first
	pending []int
	// inherited are the traps a background job's Runner was made with:
	// bash resets them there, all but the ignored ones.
	inherited map[int]string
	// cancel stops a background job's commands (nil for the shell):
	// a signal that kills the job interrupts the command it waits in
	// (sleep, wait, read), as it would kill bash there, rather than
	// waiting for the command to end. killed is that signal.
	cancel context.CancelFunc
	killed int
}

// skSigMaxPending bounds a queue. Repeats of a signal still pending are
// merged, as the kernel does for bash, so the queue holds each signal
// once and the bound is never reached in practice; it is a second
// guard.
const skSigMaxPending = 64

type skProcKey struct{}

// skSig holds the shell process ($$) and the processes of background
// jobs, by their done channel.
var skSig struct {
	mu   sync.Mutex
	self *skProc
	jobs map[chan struct{}]*skProc
}

// skBackground returns ctx for a background job's Runner: a new process,
// found by kill through done until the job ends.
//
// The job's context ends when kill ends the job or when the one it was
// started in ends while it runs, never because that one finished: a job
// outlives the job or function that started it, as a process does (a
// fork bomb's jobs each end at once, having started the next ones).
func (r *Runner) skBackground(ctx context.Context, done chan struct{}) context.Context {
	parent := ctx
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(parent, cancel)
	p := &skProc{cancel: cancel, inherited: maps.Clone(r.skOpt.traps)}
	skSig.mu.Lock()
	if skSig.jobs == nil {
		skSig.jobs = map[chan struct{}]*skProc{}
	}
	skSig.jobs[done] = p
	skSig.mu.Unlock()
	go func() {
		<-done
		skSig.mu.Lock()
		delete(skSig.jobs, done)
		skSig.mu.Unlock()
		stop()
	}()
	return context.WithValue(ctx, skProcKey{}, p)
}

// skJobEnd gives a background job killed by a signal the status bash
// reports for it, 128+n, once its Runner has stopped.
func skJobEnd(ctx context.Context, r *Runner) {
	p, _ := ctx.Value(skProcKey{}).(*skProc)
	if p == nil {
		return
	}
	p.mu.Lock()
	n := p.killed
	p.mu.Unlock()
	if n != 0 {
		r.exit.code = uint8(128 + n)
	}
}

// skSigClaim adds r to the process ctx runs in (the shell's own, made
// by the outermost Run, if ctx names none) and returns the ctx to run
// with and the func that takes r out again when its Run returns.
func (r *Runner) skSigClaim(ctx context.Context) (context.Context, func()) {
	p, _ := ctx.Value(skProcKey{}).(*skProc)
	job := p != nil
	if p == nil {
		p = &skProc{}
		skSig.mu.Lock()
		if skSig.self == nil {
			skSig.self = p
		}
		skSig.mu.Unlock()
		ctx = context.WithValue(ctx, skProcKey{}, p)
	}
	p.mu.Lock()
	if job && len(p.runners) == 0 {
		p.inherited = maps.Clone(r.skOpt.traps)
	}
	p.runners = append(p.runners, r)
	p.mu.Unlock()
	return ctx, func() {
		p.mu.Lock()
		if i := len(p.runners) - 1; i >= 0 && p.runners[i] == r {
			p.runners = p.runners[:i]
		}
		outermost := len(p.runners) == 0
		p.mu.Unlock()
		if outermost {
			skSig.mu.Lock()
			if skSig.self == p {
				skSig.self = nil
			}
			skSig.mu.Unlock()
		}
	}
}

// skSubshellProc returns the ctx a ( ) subshell r2 of r runs in. The
// body of a background job, ( trap ... ; cmd ) &, is the job's process
// (bash runs it in the job's own process), so r2 joins it as the
// innermost Runner and its traps take the signals kill sends to the
// job. Any other subshell is a process no kill names ($$ is the
// shell's): it gets one of its own, so a signal sent to $$ from inside
// it waits for the shell, as in bash.
func (r *Runner) skSubshellProc(ctx context.Context, r2 *Runner) (context.Context, func()) {
	p, _ := ctx.Value(skProcKey{}).(*skProc)
	if p != nil {
		skSig.mu.Lock()
		job := p != skSig.self
		skSig.mu.Unlock()
		p.mu.Lock()
		body := job && len(p.runners) == 1 && p.runners[0] == r
		if body {
			p.runners = append(p.runners, r2)
		}
		p.mu.Unlock()
		if body {
			return ctx, func() {
				p.mu.Lock()
				if i := len(p.runners) - 1; i >= 0 && p.runners[i] == r2 {
					p.runners = p.runners[:i]
				}
				p.mu.Unlock()
			}
		}
	}
	return context.WithValue(ctx, skProcKey{}, &skProc{runners: []*Runner{r2}}), func() {}
}

// skSigTake returns the signals queued in ctx's process that r is to
// act on: those it traps and is the innermost to trap, and, if r is
// the outermost, those no Runner traps.
func (r *Runner) skSigTake(ctx context.Context) []int {
	p, _ := ctx.Value(skProcKey{}).(*skProc)
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var mine, rest []int
	for _, n := range p.pending {
		if p.handler(n) == r {
			mine = append(mine, n)
		} else {
			rest = append(rest, n)
		}
	}
	p.pending = rest
	return mine
}

// handler is the Runner that acts on signal n; p.mu is held. The trap
// tables are read only by their own goroutine's Runners, as nested
// Runners run in the goroutine of the one they are nested in.
func (p *skProc) handler(n int) *Runner {
	for i := len(p.runners) - 1; i >= 0; i-- {
		if _, ok := p.trap(p.runners[i], n); ok {
			return p.runners[i]
		}
	}
	if len(p.runners) == 0 {
		return nil
	}
	return p.runners[0]
}

// trap returns the trap r runs for signal n, if any: not one a
// background job inherited, unless that ignores the signal.
func (p *skProc) trap(r *Runner, n int) (string, bool) {
	cmd, ok := r.skOpt.traps[n]
	if old, inherited := p.inherited[n]; ok && inherited && old == cmd && cmd != "" && r == p.runners[0] {
		return "", false
	}
	return cmd, ok
}

// send queues signal n, unless it is pending already. A signal that
// kills a background job (no trap, not ignored by default) also stops
// the job's commands. The job's trap tables are read here from the
// sender's goroutine: the guest runs on one thread and switches
// goroutines only where they block, never inside a map write.
func (p *skProc) send(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Contains(p.pending, n) {
		return
	}
	if len(p.pending) < skSigMaxPending {
		p.pending = append(p.pending, n)
	}
	if p.cancel == nil || p.killed != 0 {
		return
	}
	if skSigIgnoredByDefault(n) {
		return
	}
	var trapped bool
	if h := p.handler(n); h != nil {
		_, trapped = p.trap(h, n)
	} else {
		// Not started yet: only a signal the shell ignored (trap ''
		// SIG) is ignored in the job too.
		cmd, ok := p.inherited[n]
		trapped = ok && cmd == ""
	}
	if !trapped {
		p.killed = n
		p.cancel()
	}
}

// skSigDeliver acts on the signals queued for r, after a command as
// bash does: a trap runs (keeping $?), an ignored or trapped-empty
// signal does nothing, and any other ends the shell with 128+n.
func (r *Runner) skSigDeliver(ctx context.Context) {
	p, _ := ctx.Value(skProcKey{}).(*skProc)
	for _, n := range r.skSigTake(ctx) {
		p.mu.Lock()
		cmd, ok := p.trap(r, n)
		p.mu.Unlock()
		if ok {
			r.trapCallback(ctx, cmd, skSignalName(n))
			continue
		}
		if skSigIgnoredByDefault(n) {
			continue
		}
		r.exit.code = uint8(128 + n)
		r.exit.exiting = true
		r.lastExit = r.exit
		return
	}
}

// skSigIgnoredByDefault reports whether signal n does nothing to a
// process that neither traps nor ignores it (or, for the stop signals,
// nothing a sandboxed shell can do).
func skSigIgnoredByDefault(n int) bool {
	switch skSignals[n] {
	case "CHLD", "CONT", "URG", "WINCH", "STOP", "TSTP", "TTIN", "TTOU":
		return true
	}
	return false
}

// skKill is bash's kill builtin for the processes a sandboxed shell
// has: $$ (queued for the shell, see skSig) and its background jobs
// (gN), which run no traps, so only signal 0 and the signals ignored
// by default reach them.
func (r *Runner) skKill(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	sig := syscallSIGTERM
	switch {
	case len(args) > 0 && (args[0] == "-s" || args[0] == "-n"):
		if len(args) < 2 {
			r.errf("%skill: %s: option requires an argument\n", r.skErrPrefix(pos), args[0])
			exit.code = 2
			return exit
		}
		n, ok := skSignalNumber(args[1])
		if !ok || n >= len(skSignals) {
			r.errf("%skill: %s: invalid signal specification\n", r.skErrPrefix(pos), args[1])
			exit.code = 1
			return exit
		}
		sig, args = n, args[2:]
	case len(args) > 0 && args[0] == "--":
		args = args[1:]
	case len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-':
		n, ok := skSignalNumber(args[0][1:])
		if !ok || n >= len(skSignals) {
			r.errf("%skill: %s: invalid signal specification\n", r.skErrPrefix(pos), args[0][1:])
			exit.code = 1
			return exit
		}
		sig, args = n, args[1:]
	}
	if len(args) == 0 {
		r.errf("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n")
		exit.code = 2
		return exit
	}
	for _, target := range args {
		if !r.skKillOne(pos, target, sig) {
			exit.code = 1
		}
	}
	return exit
}

// syscallSIGTERM is kill's default signal.
const syscallSIGTERM = 15

// skKillOne sends sig to one target, reporting an error as bash does.
func (r *Runner) skKillOne(pos syntax.Pos, target string, sig int) bool {
	if target == strconv.Itoa(os.Getpid()) {
		skSig.mu.Lock()
		p := skSig.self
		skSig.mu.Unlock()
		if p != nil && sig != 0 {
			p.send(sig)
		}
		return true
	}
	if job, ok := strings.CutPrefix(target, "g"); ok {
		n, err := strconv.Atoi(job)
		if err == nil && n > 0 && n <= len(r.bgProcs) {
			skSig.mu.Lock()
			p := skSig.jobs[r.bgProcs[n-1].done]
			skSig.mu.Unlock()
			if p != nil {
				if sig != 0 {
					p.send(sig)
				}
				return true
			}
		}
	}
	if _, err := strconv.Atoi(target); err != nil && !strings.HasPrefix(target, "g") {
		r.errf("%skill: %s: arguments must be process or job IDs\n", r.skErrPrefix(pos), target)
		return false
	}
	r.errf("%skill: (%s) - No such process\n", r.skErrPrefix(pos), target)
	return false
}
