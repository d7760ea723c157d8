package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/abi"
)

// An ExecFunc starts another interpreter run in the caller's sandbox for
// the exec host function, at nesting depth depth: the caller's mounts,
// grant and limits, never a host process (package scripts provides it).
type ExecFunc func(ctx context.Context, req *abi.ExecRequest, depth int) (*abi.ExecResult, error)

// Bounds of an exec request, besides MaxPayload.
const (
	maxExecArgs = 4096
	maxExecEnv  = 4096
)

// exec serves the exec host function: a shell starting python3 or node.
// The new run is no wider than the caller's (the ExecFunc gives it the
// caller's sandbox), so no grant is checked here; it nests like skill_run
// so a script that starts itself stops at the depth limit.
func (e *Env) exec(ctx context.Context, req []byte) (any, error) {
	var r abi.ExecRequest
	if err := decode(abi.FuncExec, req, &r); err != nil {
		return nil, err
	}
	if len(r.Args) == 0 || r.Args[0] == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "exec: no program named")
	}
	if len(r.Args) > maxExecArgs || len(r.Env) > maxExecEnv {
		return nil, abi.Errorf(abi.CodeInvalid, "exec: more than %d arguments or environment variables", maxExecArgs)
	}
	if err := e.checkSize(ctx, abi.FuncExec, "program name", r.Args[0], maxCallName); err != nil {
		return nil, err
	}
	line := strings.Join(r.Args, " ")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	maxDepth := e.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if e.Depth+1 > maxDepth {
		return nil, e.deny(ctx, &capabilities.DeniedError{Kind: "exec", Value: r.Args[0],
			Reason: fmt.Sprintf("runs started by scripts nest at most %d deep", maxDepth)})
	}
	if e.Exec == nil {
		return nil, unavailable(abi.FuncExec, "interpreters")
	}
	e.audit(ctx, "exec", line, audit.Allow, "")
	res, err := e.Exec(ctx, &r, e.Depth+1)
	if err != nil {
		e.audit(ctx, "exec", line, audit.Allow, "failed: "+err.Error())
		return nil, err
	}
	return res, nil
}
