//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// pipelines as bash runs them. mvdan.cc/sh runs `a | b | c` as nested
// pairs with the last command in the current shell and keeps no
// PIPESTATUS; bash runs every command in a subshell unless shopt
// lastpipe is on, and records each command's status in PIPESTATUS.

package interp

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skPipeStage is one command of a pipeline; stderr is whether its
// standard error goes down the pipe too (|&).
type skPipeStage struct {
	st     *syntax.Stmt
	stderr bool
}

// skPipeStages flattens the nested pipe operators of a pipeline into its
// commands, left to right.
func skPipeStages(cm *syntax.BinaryCmd) []skPipeStage {
	var stages []skPipeStage
	var add func(st *syntax.Stmt)
	add = func(st *syntax.Stmt) {
		bc, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || (bc.Op != syntax.Pipe && bc.Op != syntax.PipeAll) ||
			st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
			stages = append(stages, skPipeStage{st: st})
			return
		}
		add(bc.X)
		stages[len(stages)-1].stderr = bc.Op == syntax.PipeAll
		add(bc.Y)
	}
	add(cm.X)
	stages[len(stages)-1].stderr = cm.Op == syntax.PipeAll
	add(cm.Y)
	return stages
}

// skPipeline runs a pipeline: every command but the last in a subshell of
// its own, concurrently, and the last in a subshell too unless shopt
// lastpipe is on (bash's scripts have no job control, where lastpipe
// applies). Its status is the last command's, or with pipefail the
// rightmost failing one's; PIPESTATUS gets them all.
func (r *Runner) skPipeline(ctx context.Context, cm *syntax.BinaryCmd) {
	stages := skPipeStages(cm)
	statuses := make([]exitStatus, len(stages))
	var wg sync.WaitGroup
	oldIn := r.stdin
	in := r.stdin
	for i, sg := range stages[:len(stages)-1] {
		pr, pw, err := newPipe()
		if err != nil {
			r.exit.fatal(err) // not being able to create a pipe is rare but critical
			break
		}
		r2 := r.subshell(true)
		r2.stdin, r2.stdout = in, pw
		if sg.stderr {
			r2.stderr = pw
		}
		src := in
		wg.Go(func() {
			r2.stmt(ctx, sg.st)
			r2.exit.exiting = false // subshells don't exit the parent shell
			r2.exit.returning = false
			pw.Close()
			if i > 0 {
				src.Close() // the pipe from the command before
			}
			statuses[i] = r2.exit
		})
		in = pr
	}
	if r.exit.fatalExit {
		wg.Wait()
		return
	}
	last := stages[len(stages)-1].st
	if lastpipe, _ := r.skShoptOpt("lastpipe"); lastpipe {
		r.stdin = in
		r.stmt(ctx, last)
		r.stdin = oldIn
	} else {
		r2 := r.subshell(false)
		r2.stdin = in
		r2.stmt(ctx, last)
		r2.exit.exiting, r2.exit.returning = false, false
		r.exit = r2.exit
	}
	if len(stages) > 1 {
		in.Close()
	}
	wg.Wait()
	statuses[len(statuses)-1] = r.exit
	r.skSetPipeStatus(statuses)
	for _, st := range statuses[:len(statuses)-1] {
		if st.fatalExit {
			r.exit.fatal(st.err) // surface fatal errors immediately
			return
		}
	}
	if r.opts[optPipeFail] && r.exit.ok() {
		for i := len(statuses) - 2; i >= 0; i-- {
			if !statuses[i].ok() {
				r.exit = statuses[i]
				r.exit.exiting = false
				break
			}
		}
	}
}

// skStmtPipeStatus sets PIPESTATUS after a statement that is a pipeline
// of one simple command or subshell, as bash does. Pipelines set it
// themselves; compound commands, && and || lists leave the one of the
// last pipeline they ran.
func (r *Runner) skStmtPipeStatus(st *syntax.Stmt) {
	switch st.Cmd.(type) {
	case nil, *syntax.CallExpr, *syntax.Subshell, *syntax.TestClause, *syntax.ArithmCmd,
		*syntax.LetClause, *syntax.DeclClause:
		r.skSetPipeStatus([]exitStatus{r.exit})
	}
}

// skSetPipeStatus sets PIPESTATUS to the statuses of a pipeline's
// commands.
func (r *Runner) skSetPipeStatus(statuses []exitStatus) {
	list := make([]string, len(statuses))
	for i, st := range statuses {
		list[i] = strconv.Itoa(int(st.code))
	}
	r.setVarErr("PIPESTATUS", expand.Variable{Set: true, Kind: expand.Indexed, List: list})
}

// skLoopCond runs a while or until loop's condition as part of the loop,
// where break and continue apply as in its body: broken is whether the
// loop ends, again whether it goes on with the condition.
func (r *Runner) skLoopCond(ctx context.Context, cond []*syntax.Stmt) (broken, again bool) {
	oldInLoop := r.inLoop
	r.inLoop = true
	r.skLoops++
	r.stmts(ctx, cond)
	r.skLoops--
	r.inLoop = oldInLoop
	switch {
	case r.breakEnclosing > 0:
		r.breakEnclosing--
		return true, false
	case r.contnEnclosing > 0:
		r.contnEnclosing--
		return r.contnEnclosing > 0, true
	}
	return false, false
}

// skBreak is bash's break and continue. A count beyond the enclosing
// loops ends them all, one below 1 is out of range and ends the
// innermost; a non-numeric count exits the shell with 128 and extra
// arguments abandon the command line, as bash does.
func (r *Runner) skBreak(pos syntax.Pos, name string, args []string) exitStatus {
	prefix := r.skErrPrefix(pos)
	if prefix == "" {
		prefix = "bash: "
	}
	if !r.inLoop || r.skLoops == 0 {
		r.errf("%s%s: only meaningful in a `for', `while', or `until' loop\n", prefix, name)
		return exitStatus{}
	}
	enclosing := &r.breakEnclosing
	if name == "continue" {
		enclosing = &r.contnEnclosing
	}
	if len(args) > 1 {
		r.errf("%s%s: too many arguments\n", prefix, name)
		r.skAbort = true
		return exitStatus{code: 1, exiting: true}
	}
	n := 1
	if len(args) == 1 {
		var err error
		n, err = strconv.Atoi(strings.TrimSpace(args[0]))
		if err != nil {
			r.errf("%s%s: %s: numeric argument required\n", prefix, name, args[0])
			return exitStatus{code: 128, exiting: true}
		}
		if n < 1 {
			r.errf("%s%s: %s: loop count out of range\n", prefix, name, args[0])
			r.breakEnclosing = 1
			return exitStatus{code: 1}
		}
	}
	*enclosing = min(n, r.skLoops)
	return exitStatus{}
}
