//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// shift, history and the options of eval and source as bash has them.
// shift fails with 1 (and leaves the parameters) on a count it cannot
// take; mvdan.cc/sh shifted them all away, took a negative count and
// failed with 2 on a word that is no number. eval and source take "--"
// and refuse other options with 2. history has no list in a
// non-interactive shell but checks its arguments as bash does.

package interp

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skNumber is bash's legal_number: a decimal integer that fits in 64
// bits, with blanks around it.
func skNumber(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.Trim(s, " \t\n"), 10, 64)
	return n, err == nil
}

// skTooMany is bash's "too many arguments" of a builtin taking one
// number: it abandons the command line with status 1.
func (r *Runner) skTooMany(pos syntax.Pos, name string) exitStatus {
	r.errf("%s%s: too many arguments\n", r.skErrPrefix(pos), name)
	r.exit.code = 1
	r.exit.exiting = true
	r.skAbort = true
	return r.exit
}

func (r *Runner) skShift(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	n := int64(1)
	if len(args) > 1 {
		return r.skTooMany(pos, "shift")
	}
	if len(args) == 1 {
		var ok bool
		if n, ok = skNumber(args[0]); !ok {
			r.errf("%sshift: %s: numeric argument required\n", r.skErrPrefix(pos), args[0])
			exit.code = 1
			return exit
		}
	}
	if n < 0 || n > int64(len(r.Params)) {
		if n < 0 || r.skShoptOn("shift_verbose") {
			word := strconv.FormatInt(n, 10)
			if len(args) == 1 {
				word = args[0]
			}
			r.errf("%sshift: %s: shift count out of range\n", r.skErrPrefix(pos), word)
		}
		exit.code = 1
		return exit
	}
	r.Params = r.Params[n:]
	return exit
}

// skShoptOn reports whether shopt option name is on.
func (r *Runner) skShoptOn(name string) bool {
	on, _ := r.skShoptOpt(name)
	return on
}

// skNoOptions skips a leading "--" of args and refuses other options as
// bash's builtins without options do, reporting false after writing the
// error.
func (r *Runner) skNoOptions(pos syntax.Pos, name string, args *[]string, usage string) bool {
	a := *args
	if len(a) == 0 || len(a[0]) < 2 || a[0][0] != '-' {
		return true
	}
	if a[0] == "--" {
		*args = a[1:]
		return true
	}
	r.errf("%s%s: %.2s: invalid option\n%s: usage: %s\n", r.skErrPrefix(pos), name, a[0], name, usage)
	return false
}

// skHistory is history in a shell that keeps none.
func (r *Runner) skHistory(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	prefix := r.skErrPrefix(pos)
	opts := ""
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for _, c := range a[1:] {
			if !strings.ContainsRune("cdanrwps", c) {
				r.errf("%shistory: -%c: invalid option\nhistory: usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\n", prefix, c)
				exit.code = 2
				return exit
			}
			opts += string(c)
		}
	}
	switch {
	case strings.Contains(opts, "p"):
		for _, a := range args {
			r.outf("%s\n", a)
		}
	case strings.Contains(opts, "d"):
		r.errf("%shistory: %s: history position out of range\n", prefix, strings.Join(args, " "))
		exit.code = 1
	case opts != "":
	case len(args) > 0:
		if _, ok := skNumber(args[0]); !ok {
			r.errf("%shistory: %s: numeric argument required\n", prefix, args[0])
			exit.code = 1
		} else if len(args) > 1 {
			r.errf("%shistory: too many arguments\n", prefix)
			exit.code = 1
		}
	}
	return exit
}
