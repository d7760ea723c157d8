// Package early hands the command of the process it is linked into to
// the resident from its init, before the rest of the program is
// initialised: the full skillrun command imports it for that side effect
// (see package handoff for what is handed over and when). It imports
// only package handoff, which imports only syscall and package wire, so
// Go initialises it among the first packages of the binary.
package early

import (
	"syscall"

	"github.com/skillrun/skillrun/internal/resident/handoff"
)

func init() {
	if args := handoff.CommandLine(); len(args) > 1 {
		if code, ok := handoff.Handoff(args[1:], [3]int{0, 1, 2}, handoff.Start); ok {
			syscall.Exit(code)
		}
	}
}
