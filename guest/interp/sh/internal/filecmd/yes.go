package filecmd

import (
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// yes writes its line until the write fails (the reader went away) or
// the command is cancelled.
func yes(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "yes", 1, proc.Getopt{}, args[1:])
	if !ok {
		return st
	}
	line := "y\n"
	if len(ops) > 0 {
		line = strings.Join(ops, " ") + "\n"
	}
	buf := []byte(strings.Repeat(line, max(1, 8192/len(line))))
	for !e.Cancelled() {
		if _, err := e.Stdout.Write(buf); err != nil {
			return 1
		}
	}
	return 1
}
