//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// POSIX's special builtins under bash's set -o posix. Their prefix
// assignments stay after them (foo=bar :), they are found before
// functions of the same name, and defining such a function is an error
// that ends the shell, as bash does.

package interp

import "mvdan.cc/sh/v3/syntax"

// skSpecialBuiltin reports whether name is one of POSIX's special
// builtins.
func skSpecialBuiltin(name string) bool {
	switch name {
	case "break", ":", "continue", ".", "eval", "exec", "exit", "export",
		"readonly", "return", "set", "shift", "times", "trap", "unset":
		return true
	}
	return false
}

// skPosixSpecial reports whether name is a special builtin and bash's
// posix option is on.
func (r *Runner) skPosixSpecial(name string) bool {
	if !skSpecialBuiltin(name) {
		return false
	}
	on, _ := r.skSetOpt("posix")
	return on
}

// skSpecialFunc refuses a function named after a special builtin in
// posix mode, ending the shell with status 2; it reports whether it did.
func (r *Runner) skSpecialFunc(name *syntax.Lit) bool {
	if !r.skPosixSpecial(name.Value) {
		return false
	}
	r.errf("%s`%s': is a special builtin\n", r.skErrPrefix(name.Pos()), name.Value)
	r.exit.code = 2
	r.exit.exiting = true
	return true
}
