package main

import "os"

// isTerminal reports whether v is a terminal: an *os.File whose
// descriptor answers the terminal's own control call (termiosOf, per
// platform). Being a character device is not enough: /dev/null and
// /dev/zero are character devices too, and a run with stdin and stderr
// on /dev/null (a cron job, a CI step, a service) would prompt for a
// grant nobody can see and read its answer from whatever stdin gives,
// instead of denying and naming the flag to add. A platform without a
// check has no terminal: skillrun then never asks, it denies.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	return termiosOf(f.Fd())
}
