// Package handoff hands a one-shot skillrun command to the resident
// process (package resident) as early as a Go program can. The init of
// package early (imported for its side effect by the skillrun command)
// reads the command line and, for a verb the resident serves, passes the
// command with its working directory, environment, umask and stdio to
// the resident of this user and build, waits for it and exits with its
// code. The small client (cmd/skillrun-client) does the same from its
// main, for the resident of the full binary beside it ([HandoffTo]).
//
// Go initialises a package as soon as its imports are (in import-path
// order among those ready), so this one imports only syscall and
// package wire: early's init runs right after syscall, before the JSON
// Schema tables, the provider SDKs, the MCP SDK and the rest of
// skillrun, whose initialisation (about 30 ms and 15 MiB) only a process
// that runs its command itself pays. It cannot use package os (not yet
// initialised): it reads its arguments from /proc/self/cmdline and works
// with system calls.
//
// The resident is on by default. SKILLRUN_RESIDENT=0, or --no-resident
// on the command line, runs the command in its own process. When no
// resident answers, the command runs here and a resident is started for
// the next one; when the resident is busy with another command, or
// refuses (another namespace, a malformed request), the command runs
// here too. An interrupt kills the client as it would any program, and
// the resident, seeing its connection close, cancels the command. Only
// Linux has a resident; elsewhere nothing is handed over.
package handoff

import (
	"slices"
	"syscall"
)

// Env turns the resident off when it is "0".
const Env = "SKILLRUN_RESIDENT"

// IdleEnv sets how long a resident a command starts waits for the next.
const IdleEnv = "SKILLRUN_RESIDENT_IDLE"

// Flag, anywhere before a "--", runs the command in its own process.
const Flag = "--no-resident"

// Verbs are the commands the resident runs: those that run scripts, and
// the quick ones whose cost is the process start (validate, show, ...).
// Long-lived verbs (mcp, session, bench) and those that build or
// install stay in their own process: they would hold the resident for
// minutes.
var Verbs = []string{"run", "shell", "test", "validate", "show", "catalog", "search", "deps"}

// stdinFree are the verbs that never read stdin: they are handed over
// when stdin is a terminal too. The others (a permission prompt, a
// script or the shell reading stdin) are not: on Ctrl-C the client dies,
// but a read from the terminal in the resident cannot be interrupted and
// would take the next line the user types into their shell.
var stdinFree = []string{"validate", "show", "catalog", "search"}

// Exit codes of a handed-over command that did not finish in the
// resident (docs/contracts/exit-codes.md).
const exitSandbox = 125

// Enabled reports whether args (without the program name) go to the
// resident: a verb of Verbs, no --no-resident before a "--", and
// SKILLRUN_RESIDENT not "0".
func Enabled(args []string) bool {
	if v, _ := syscall.Getenv(Env); v == "0" || len(args) == 0 || !slices.Contains(Verbs, args[0]) {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == Flag {
			return false
		}
	}
	return true
}

// terminalOK reports whether verb is handed over with stdin on a
// terminal (see stdinFree).
func terminalOK(verb string) bool { return slices.Contains(stdinFree, verb) }
