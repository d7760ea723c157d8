package scripts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/admission"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// errBusy matches the error of a run that waited its whole turn
// ([Options.MaxRunWait]) for a place among the runs in flight and did not
// get one: the Runner was at [Options.MaxRuns] or [Options.MaxRunMemory].
// Its message says what was in use and which flag raises the bound; the
// caller may try again later.
var errBusy = admission.ErrBusy

// admit takes the turn of a run of script of s before it starts: one of
// the Runner's run slots and the run's memory limit (eff's, else the
// tier's default), waiting first come first served for at most the
// Runner's wait bound. It returns the context to run under (marked, so
// that what the run starts in turn, exec, skill_run or a tool_call that
// runs a script, spends this reservation instead of waiting for another,
// which could deadlock) and the func that gives the turn back.
//
// Every top-level run passes here: [Runner.RunScript] (script tools, YAML
// tool actions, Markdown skills' scripts, the native tier) and
// [Runner.RunShell]. A refusal is audited as the run's denial.
func (r *Runner) admit(ctx context.Context, s *skills.Skill, script string, eff capabilities.Set, nativeTier bool, sr *ScriptRun) (context.Context, func(), error) {
	ctx, release, err := r.admission.Admit(ctx, runMemory(eff, nativeTier))
	if err == nil {
		return ctx, release, nil
	}
	label := s.Name + ":" + script
	switch {
	case errors.Is(err, admission.ErrTooLarge):
		err = fmt.Errorf("%w: %s: %w", ErrNotRunnable, label, err)
	case ctx.Err() != nil:
		return ctx, nil, fmt.Errorf("%s: %w", label, err) // the caller went away: no refusal
	default:
		err = fmt.Errorf("%s: %w", label, err)
	}
	auditor := sr.Auditor
	if auditor == nil {
		auditor = audit.AuditorFrom(ctx)
	}
	auditor.Audit(ctx, audit.Event{Time: time.Now(), Skill: s.Name, Script: script, Kind: "run", Value: label,
		Decision: audit.Deny, Reason: "not started: " + err.Error()})
	return ctx, nil, err
}

// runMemory is the memory a run reserves: its effective limit, else the
// default of its tier (the sandbox's, or the native tier's per process).
func runMemory(eff capabilities.Set, nativeTier bool) int64 {
	switch {
	case eff.Memory > 0:
		return int64(eff.Memory)
	case nativeTier:
		return native.DefaultMemory
	}
	return int64(sandbox.DefaultMemory)
}
