package skilltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// Exit codes a case sees for skillrun's own failures, as `skillrun run`
// reports them (DESIGN.md "Contracts"), so a case can expect a timeout.
const (
	exitTimeout = 124
	exitSandbox = 125
	exitDenied  = 126
)

// maxCapture bounds what one case's stdout and stderr keep for checks.
const maxCapture = 16 << 20

// A Runner runs cases. Scripts is required; the zero value of the rest
// runs every case, one at a time per CPU.
type Runner struct {
	// Scripts runs the cases' scripts and shells.
	Scripts *scripts.Runner
	// Parallel is how many cases run at once (0: GOMAXPROCS).
	Parallel int
	// Match, if set, selects the cases whose ID it matches.
	Match *regexp.Regexp
	// Update rewrites exact expectations (stdout, stderr, expected files)
	// from what the run did, instead of failing on them.
	Update bool
	// Catalog is what trigger cases search among (nil: the skills of the
	// cases run).
	Catalog []*skills.Skill
	// Modules, if set, is the catalog of the folders tested: session
	// cases get its Markdown skills and YAML tools too, as `skillrun
	// session` over those folders would (nil: Catalog's skills alone).
	Modules *toolset.Catalog
	// Auditor receives the runs' audit events (nil: discarded).
	Auditor audit.Auditor
}

// A Result is one case's outcome.
type Result struct {
	Case    *Case
	Passed  bool
	Skipped bool // filtered out by Match: not run
	// Failures says what did not hold, one entry each (diffs included).
	Failures []string
	Elapsed  time.Duration
	// What the run printed and its exit status (script and command cases).
	Stdout, Stderr string
	ExitCode       int
	// Granted is what the run got (script and command cases).
	Granted capabilities.Set
	// Updated lists what --update rewrote in the case file.
	Updated []string
}

func (res *Result) fail(format string, a ...any) {
	res.Failures = append(res.Failures, fmt.Sprintf(format, a...))
}

// Run runs cases, Parallel at a time, and calls report with each result
// in the order of cases (as soon as it and every case before it are
// done), so output streams like go test's.
func (r *Runner) Run(ctx context.Context, cases []*Case, report func(*Result)) []*Result {
	n := r.Parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	catalog := r.Catalog
	if catalog == nil {
		seen := map[*skills.Skill]bool{}
		for _, c := range cases {
			if !seen[c.Skill] {
				seen[c.Skill] = true
				catalog = append(catalog, c.Skill)
			}
		}
	}
	results := make([]*Result, len(cases))
	done := make([]chan struct{}, len(cases))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, c := range cases {
		done[i] = make(chan struct{})
		if r.Match != nil && !r.Match.MatchString(c.ID) {
			results[i] = &Result{Case: c, Skipped: true, Passed: true}
			close(done[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = r.runCase(ctx, c, catalog)
		}()
	}
	for i := range cases {
		<-done[i]
		if report != nil && !results[i].Skipped {
			report(results[i])
		}
	}
	wg.Wait()
	return results
}

// runCase runs one case and checks it, never panicking on what the case
// or the skill does.
func (r *Runner) runCase(ctx context.Context, c *Case, catalog []*skills.Skill) (res *Result) {
	start := time.Now()
	res = &Result{Case: c}
	defer func() {
		if p := recover(); p != nil {
			res.fail("skillrun test: internal error: %v", p)
		}
		res.Elapsed = time.Since(start)
		res.Passed = len(res.Failures) == 0
	}()
	if c.Err != nil {
		res.fail("%v", c.Err)
		return res
	}
	switch c.Kind {
	case KindTrigger:
		runTrigger(c, res, catalog)
	case KindSession:
		r.runSession(ctx, c, res, catalog)
	default:
		r.runScript(ctx, c, res)
	}
	return res
}

// runScript runs a script or command case in a fresh workspace and
// checks what it printed, its exit status and what it changed.
func (r *Runner) runScript(ctx context.Context, c *Case, res *Result) {
	ws, before, done, ok := c.startWorkspace(res)
	if !ok {
		return
	}
	defer done()

	resolver := &capabilities.Resolver{Flags: c.Grant.flags(), All: c.Grant.All, Timeout: c.Timeout}
	var resolution capabilities.Resolution
	var err error
	if c.Kind == KindScript {
		resolution, err = scripts.Resolve(c.Skill, c.Script, resolver)
	} else {
		resolution, err = resolver.Resolve(c.Skill.Ref(), scripts.ShellDeclares())
	}
	if err != nil {
		res.fail("%s: [grant]: %v", c.File, err)
		return
	}
	res.Granted = resolution.Effective
	label := c.Skill.Name + ":" + c.Script
	if c.Kind == KindCommand {
		label = "shell"
	}
	stdout := &capped{max: maxCapture}
	stderr := &capped{max: maxCapture}
	if missing := resolution.Missing; !missing.IsZero() {
		// As `skillrun run` does where it cannot ask: with no grant at
		// all, denied before it runs; with some, a note, and the rest
		// stays denied.
		if !c.Grant.All && len(c.Grant.flags()) == 0 {
			res.ExitCode = exitDenied
			res.Stderr = "skillrun: " + capabilities.NotGranted(label, missing) + "\n"
			c.verify(res, ws, before, before)
			return
		}
		fmt.Fprintf(stderr, "skillrun: note: %s\n", capabilities.AlsoDeclared(label, missing))
	}
	auditor := r.Auditor
	if auditor == nil {
		auditor = audit.Discard
	}
	sr := scripts.ScriptRun{
		Services: host.Services{Workspace: ws, Auditor: auditor},
		Args:     c.Args,
		Stdin:    bytes.NewReader([]byte(c.Stdin)),
		Stdout:   stdout,
		Stderr:   stderr,
		Granted:  resolution.Granted,
	}
	if c.Input != "" {
		sr.Input = []byte(c.Input)
	}
	var run *sandbox.Result
	if c.Kind == KindScript {
		run, err = r.Scripts.RunScript(ctx, c.Skill, c.Script, &sr)
	} else {
		sr.Args = []string{"-c", c.Command}
		run, err = r.Scripts.RunShell(ctx, &scripts.ShellRun{ScriptRun: sr, Skills: []*skills.Skill{c.Skill}})
	}
	switch {
	case errors.Is(err, scripts.ErrNotRunnable):
		res.fail("%s: %v", c.File, err)
		return
	case errors.Is(err, sandbox.ErrTimeout):
		res.ExitCode = exitTimeout
		fmt.Fprintf(stderr, "skillrun: %v\n", err)
	case errors.Is(err, capabilities.ErrDenied):
		res.ExitCode = exitDenied
		fmt.Fprintf(stderr, "skillrun: %v\n", err)
	case err != nil:
		res.ExitCode = exitSandbox
		fmt.Fprintf(stderr, "skillrun: %v\n", err)
	default:
		res.ExitCode = int(run.ExitCode)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	after, err := snapshot(ws)
	if err != nil {
		res.fail("the workspace after the run: %v", err)
		return
	}
	c.verify(res, ws, before, after)
	if r.Update && len(res.Failures) > 0 {
		updated, err := r.update(c, res, ws)
		if len(updated) > 0 {
			// The rewritten expectations are the run's now: check again.
			res.Updated, res.Failures = updated, nil
			c.verify(res, ws, before, after)
		}
		if err != nil {
			res.fail("--update: %v", err)
		}
	}
}

// capped is a buffer that keeps its first max bytes and drops the rest,
// saying so at the end.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (w *capped) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	room := w.max - w.buf.Len()
	if room < len(p) {
		w.dropped = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

func (w *capped) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropped {
		return w.buf.String() + fmt.Sprintf("\n[skillrun test: output cut at %d MiB]\n", w.max>>20)
	}
	return w.buf.String()
}
