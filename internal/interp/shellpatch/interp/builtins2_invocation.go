//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// the options of the shell's own command line, which reach the Runner
// through Params. Beside set's flags they are -c (commands from an
// argument), -s (commands from standard input) and -i (interactive),
// which only show in $-, and -o with any of bash's set -o names.

package interp

import "strings"

// skInvocationFlags are the letters of $- that only the shell's command
// line sets, in bash's order.
const skInvocationFlags = "ics"

// skInvocationFlag records flag ("-c", "-s" or "-i") for $-; it reports
// whether flag was one of them. An interactive shell also starts with
// bash's interactive defaults: emacs editing, history and history
// expansion.
func (r *Runner) skInvocationFlag(flag string) bool {
	if len(flag) != 2 || flag[0] != '-' || !strings.ContainsRune(skInvocationFlags, rune(flag[1])) {
		return false
	}
	if !strings.ContainsRune(r.skOpt.invoked, rune(flag[1])) {
		r.skOpt.invoked += flag[1:]
	}
	if flag[1] == 'i' {
		for _, name := range []string{"emacs", "history", "histexpand"} {
			r.skSetOptTo(name, true)
		}
	}
	return true
}

// skFlagsInvoked is $-: the option letters with those of the command line
// (i among them, c or s at the end, as bash prints them).
func (r *Runner) skFlagsInvoked() string {
	flags := r.skFlags()
	if strings.Contains(r.skOpt.invoked, "i") {
		var b strings.Builder
		for _, c := range skFlagOrder {
			if c == 'i' || strings.ContainsRune(flags, c) {
				b.WriteRune(c)
			}
		}
		flags = b.String()
	}
	for _, c := range "cs" {
		if strings.ContainsRune(r.skOpt.invoked, c) {
			flags += string(c)
		}
	}
	return flags
}

// skInteractive reports whether the shell was started interactive (-i).
func (r *Runner) skInteractive() bool {
	return strings.Contains(r.skOpt.invoked, "i")
}
