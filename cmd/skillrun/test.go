package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/internal/skilltest"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

type testFlags struct {
	run      string
	verbose  bool
	asJSON   bool
	junit    string
	update   bool
	parallel int
	catalog  []string
}

func newTestCmd() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run skills' own test cases (tests/ in each skill) in the sandbox",
		Long: `Test runs the cases in each skill's tests/ folder the way users run the
skill: every script or shell command in the sandbox with exactly the grant
the case names (a case cannot widen what the skill declares), each in a
fresh copy of its workspace, in parallel. A case is a TOML file, or a txtar
archive whose comment is that TOML and whose files are stdin, stdout,
stderr, workspace/PATH and expect/PATH; trigger cases check which phrasings
find the skill, session cases run a scripted plan. docs/authoring.md
(Testing a skill) lists the keys.

PATH is a skill folder or a folder of skills (default: the current folder).
It prints ok or FAIL for each case, a diff for a wrong output, and a
summary line. --update rewrites the exact expectations (stdout, stderr,
expected files) from what the runs did, for review in git.

Exit status: 0 if every case passed, 1 if any failed, 2 on a usage error.`,
		Example: `  skillrun test examples/word-count
  skillrun test -run 'csv-stats/.*empty' -v examples
  skillrun test --json --junit report.xml ./my-skill`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTest(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.run, "run", "", "run only the cases whose SKILL/CASE name matches `REGEXP`")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also print each case's grant, exit status and output")
	fl.BoolVar(&f.asJSON, "json", false, "print the results as JSON on stdout (instead of the text report)")
	fl.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE`")
	fl.BoolVar(&f.update, "update", false, "rewrite exact expected outputs and files from what the runs did")
	fl.IntVar(&f.parallel, "parallel", 0, "run at most `N` cases at once (default: the number of CPUs)")
	fl.StringArrayVar(&f.catalog, "catalog", nil, "more skills (a `PATH` of a skill or a folder of them) that trigger cases search among (repeatable)")
	return cmd
}

func runTest(cmd *cobra.Command, f *testFlags, args []string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.parallel < 0 {
		return usageErr("--parallel must be at least 1, got %d", f.parallel)
	}
	var match *regexp.Regexp
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return usageErr("-run: %v", err)
		}
		match = re
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	tested, cases, err := testCases(args, f.asJSON, stdout, stderr)
	if err != nil {
		return err
	}
	catalog, err := loadSkills(stderr, f.catalog, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	rt, release, err := scriptsRunner(ctx, stderr) // resident.go
	if err != nil {
		return &exitError{code: exitSandbox, err: err}
	}
	defer release()
	r := &skilltest.Runner{Scripts: rt, Parallel: f.parallel, Match: match, Update: f.update}
	if slices.ContainsFunc(cases, func(c *skilltest.Case) bool { return c.Plan != "" }) {
		// Session cases get what a session over the same folders offers:
		// their Markdown skills and YAML tools too (package toolset).
		var roots []skills.Root
		for _, p := range append(slices.Clone(args), f.catalog...) {
			roots = append(roots, skills.Root{Dir: p, Origin: skills.OriginPath})
		}
		r.Modules = toolset.Discover(roots, nil)
	}
	if len(catalog) > 0 {
		r.Catalog = append(append([]*skills.Skill{}, tested...), catalog...)
	}
	start := time.Now()
	report := func(res *skilltest.Result) { skilltest.PrintResult(stdout, res, f.verbose) }
	if f.asJSON {
		report = nil
	}
	results := r.Run(ctx, cases, report)
	sum := skilltest.Summarize(results, time.Since(start))
	if f.asJSON {
		if err := skilltest.WriteJSON(stdout, results, sum); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	} else {
		skilltest.PrintSummary(stdout, sum)
	}
	if f.junit != "" {
		if err := writeJUnitFile(f.junit, results, sum); err != nil {
			return usageErr("--junit: %v", err)
		}
	}
	if sum.Failed > 0 {
		return &exitError{code: exitInvalid}
	}
	return nil
}

// testCases loads the skills under args and their test cases. A folder
// that holds no skill is reported as "[no skill]" (as go test's "[no test
// files]") and the others still run; a command naming no skill at all is
// a usage error.
func testCases(args []string, asJSON bool, stdout, stderr io.Writer) ([]*skills.Skill, []*skilltest.Case, error) {
	var tested []*skills.Skill
	var empty []string // folders that hold no skill
	for _, arg := range args {
		found := skills.FindSkills(arg)
		if found.Err != nil {
			return nil, nil, usageErr("%s: %v", arg, found.Err)
		}
		for _, p := range found.Problems {
			fmt.Fprintln(stderr, p.Error())
		}
		if len(found.Paths) == 0 {
			empty = append(empty, arg)
			continue
		}
		for _, p := range found.Paths {
			s, err := skills.Load(p, nil)
			if err != nil {
				return nil, nil, usageErr("%v", err)
			}
			tested = append(tested, s)
		}
	}
	if len(tested) == 0 {
		return nil, nil, usageErr("%s: no skill there (no SKILL.md)", strings.Join(empty, ", "))
	}
	if !asJSON {
		for _, arg := range empty {
			fmt.Fprintf(stdout, "?    %s [no skill]\n", termsafe.String(arg))
		}
	}
	var cases []*skilltest.Case
	for _, s := range tested {
		cs, err := skilltest.Load(s)
		if err != nil {
			return nil, nil, usageErr("%s: %v", s.Name, err)
		}
		if len(cs) == 0 && !asJSON {
			fmt.Fprintf(stdout, "?    %s [no test cases]\n", termsafe.String(s.Name))
		}
		cases = append(cases, cs...)
	}
	return tested, cases, nil
}

// writeJUnitFile writes the JUnit report to path, replacing it whole,
// never through a symlink planted there (internal/safefile).
func writeJUnitFile(path string, results []*skilltest.Result, sum skilltest.Summary) error {
	f, err := safefile.OpenAppend(path)
	if err != nil {
		return safefile.Cause(err)
	}
	if err := f.Truncate(0); err != nil {
		_ = f.Close()
		return err
	}
	if err := skilltest.WriteJUnit(f, results, sum); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
