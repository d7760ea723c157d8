package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/admission"
	"github.com/skillrun/skillrun/scripts"
)

// runLimitFlags bound the script and shell runs a command has in flight
// together (scripts.Options.MaxRuns and the rest): mcp, session and bench
// run start runs side by side, and each run's own limits bound it alone.
type runLimitFlags struct {
	maxRuns   int
	maxMemory string
	maxWait   time.Duration
}

// maxRunWait bounds --max-run-wait: a run left waiting longer than a day
// is a run left hanging.
const maxRunWait = 24 * time.Hour

// addRunLimitFlags adds --max-runs, --max-run-memory and --max-run-wait,
// each 0 for the machine's default (which the help states).
func addRunLimitFlags(fl *pflag.FlagSet, f *runLimitFlags) {
	fl.IntVar(&f.maxRuns, "max-runs", 0, fmt.Sprintf(
		"the most script and shell runs in flight at once; more wait their turn, first come first served (0: twice the CPUs, at least 4; %d here)",
		admission.DefaultRuns()))
	fl.StringVar(&f.maxMemory, "max-run-memory", "0", fmt.Sprintf(
		"the most memory the runs in flight may reserve together, each its memory limit, e.g. 4GiB (0: half the machine's memory; %s here)",
		admission.FormatBytes(admission.DefaultMemory())))
	fl.DurationVar(&f.maxWait, "max-run-wait", 0, fmt.Sprintf(
		"how long a run waits for its turn before it fails, e.g. 30s (0: %s)", admission.DefaultWait))
}

// apply sets the bounds the flags give in o.
func (f *runLimitFlags) apply(o *scripts.Options) error {
	if f.maxRuns < 0 {
		return usageErr("--max-runs %d: give a number of runs, or 0 for the default (%d)", f.maxRuns, admission.DefaultRuns())
	}
	o.MaxRuns = f.maxRuns
	if f.maxMemory != "0" && f.maxMemory != "" {
		sz, err := capabilities.ParseSize(f.maxMemory)
		if err != nil {
			return usageErr("--max-run-memory=%s: %v", f.maxMemory, err)
		}
		o.MaxRunMemory = sz
	}
	if f.maxWait < 0 || f.maxWait > maxRunWait {
		return usageErr("--max-run-wait %s: give a wait between 0 (the default, %s) and %s", f.maxWait, admission.DefaultWait, maxRunWait)
	}
	o.MaxRunWait = f.maxWait
	return nil
}

// newRunner applies the flags to o and makes the runner of a command's
// scripts (a failure to make it is the sandbox's: exit 125).
func (f *runLimitFlags) newRunner(ctx context.Context, o *scripts.Options) (*scripts.Runner, error) {
	if err := f.apply(o); err != nil {
		return nil, err
	}
	rt, err := scripts.New(ctx, o)
	if err != nil {
		return nil, &exitError{code: exitSandbox, err: err}
	}
	return rt, nil
}
