//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): unset of a local variable of a calling
// function, as bash does it (dynamic scope).

package interp

// skUnsetVar unsets name for the unset builtin. A local of the current
// function stays a local, unset, as mvdan.cc/sh has it; a local of a
// calling function is removed from that function's scope, so that the
// variable it hid (a caller's local or the global) shows again, as in
// bash: unlocal() { unset "$@"; } undoes a caller's local.
func (r *Runner) skUnsetVar(name string) {
	cur, ok := r.writeEnv.(*overlayEnviron)
	if !ok {
		r.delVar(name)
		return
	}
	key := cur.normalize(name)
	if _, here := cur.values[key]; here {
		r.delVar(name)
		return
	}
	for o := cur; o != nil; {
		if vr, ok := o.values[key]; ok {
			if vr.Local && !vr.ReadOnly && o != cur {
				delete(o.values, key)
				return
			}
			break
		}
		if !o.funcScope {
			break // a subshell's parent is not its to change
		}
		o, _ = o.parent.(*overlayEnviron)
	}
	r.delVar(name)
}
