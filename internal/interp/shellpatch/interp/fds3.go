//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go and shellhooks_fds3.go): bash's FUNCNAME,
// the names of the functions being run, innermost first, ending in
// "main"; outside every function it is unset.

package interp

import "mvdan.cc/sh/v3/expand"

// skFuncNameVar is FUNCNAME's kind and list: Unknown (not set here)
// outside every function.
func (r *Runner) skFuncNameVar() (expand.ValueKind, []string) {
	n := len(r.skFuncNames)
	if n == 0 {
		return expand.Unknown, nil
	}
	list := make([]string, 0, n+1)
	for i := n - 1; i >= 0; i-- {
		list = append(list, r.skFuncNames[i])
	}
	return expand.Indexed, append(list, "main")
}

// skPushFuncName records that the function name starts to run and
// returns what restores the stack when it ends. The slice is copied on
// append so that subshells, which share it, never write each other's.
func (r *Runner) skPushFuncName(name string) func() {
	old := r.skFuncNames
	r.skFuncNames = append(old[:len(old):len(old)], name)
	return func() { r.skFuncNames = old }
}
