// Command skillrun validates, discloses, builds and runs Agent Skills whose
// scripts are WebAssembly modules confined to declared capabilities.
//
// Exit codes are a contract (docs/contracts/exit-codes.md): 0 success, 1 the skill or
// request was invalid, 2 usage or I/O error; `skillrun run` adds 124, 125
// and 126.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/resident/handoff"
)

// Exit codes shared by every verb.
const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

// exitError carries the process exit code out of a verb. A nil err means
// the verb already reported what went wrong.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI with explicit streams, so tests can run it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run under ctx: a resident process runs a client's
// command until the client goes away.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(goTestSpelling(args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if ee, ok := errors.AsType[*exitError](err); ok {
		if ee.err != nil {
			fmt.Fprintf(stderr, "skillrun: %v\n", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors: unknown command or flag, wrong arg count.
	fmt.Fprintf(stderr, "skillrun: %v\nRun 'skillrun --help' for usage.\n", err)
	return exitUsage
}

// goTestSpelling lets `skillrun test` take -run as go test spells it
// (pflag reads a single dash as shorthand letters): -run and -run=X
// become --run and --run=X, up to a "--".
func goTestSpelling(args []string) []string {
	if len(args) == 0 || args[0] != "test" {
		return args
	}
	out := append([]string{}, args...)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "-run" || strings.HasPrefix(a, "-run=") {
			out[i] = "-" + a
		}
	}
	return out
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "skillrun",
		Short: "Run Agent Skills from strangers safely",
		Long: `skillrun loads Agent Skills (a folder with SKILL.md), discloses them to a
model progressively, and runs their scripts as WebAssembly modules with only
the capabilities an operator grants.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Read by package handoff before this runs (handoff.go); accepted
	// here so that every verb takes it.
	root.PersistentFlags().Bool(strings.TrimPrefix(handoff.Flag, "--"), false,
		"run the command in this process, not in the resident ("+handoff.Env+"=0 does the same)")
	root.AddCommand(
		newNewCmd(),
		newValidateCmd(),
		newCatalogCmd(),
		newShowCmd(),
		newSearchCmd(),
		newBuildCmd(),
		newRunCmd(),
		newShellCmd(),
		newTestCmd(),
		newDepsCmd(),
		newMCPCmd(),
		newSessionCmd(),
		newBenchCmd(),
		newInterpretersCmd(),
		newResidentCmd(),
		newAddCmd(),
		newInstallCmd(),
		newUpdateCmd(),
		newVerifyCmd(),
	)
	return root
}
