//go:build ignore

package interp

import (
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skDeclConvert reports bash's error for declare -A of an indexed array
// or declare -a of an associative one, which leaves the variable as it
// was (mvdan.cc/sh converted it, losing its elements). With a value,
// declare -A a=(...), bash abandons the command line; a bare name
// only fails the declaration. A new local (newLocal, not yet one of
// this function) hides the variable instead, so it is no error.
func (r *Runner) skDeclConvert(pos syntax.Pos, name string, as *syntax.Assign, valType string, newLocal bool) bool {
	if newLocal && !r.skLocalHere(name) {
		return false
	}
	var msg string
	switch kind := r.lookupVar(name).Kind; {
	case valType == "-A" && kind == expand.Indexed:
		msg = "cannot convert indexed to associative array"
	case valType == "-a" && kind == expand.Associative:
		msg = "cannot convert associative to indexed array"
	default:
		return false
	}
	if as.Naked {
		r.errf("%sdeclare: %s: %s\n", r.skErrPrefix(pos), name, msg)
		r.exit.code = 1
		return true
	}
	r.errf("%s%s: %s\n", r.skErrPrefix(pos), name, msg)
	r.exit.code = 1
	r.exit.exiting = true
	r.skAbort = true
	return true
}

// skListToElem is bash's error for a[i]=(...) and a[i]+=(...), which
// assign nothing and fail (mvdan.cc/sh set the element to "").
func (r *Runner) skListToElem(pos syntax.Pos, as *syntax.Assign) bool {
	if as.Index == nil || as.Array == nil {
		return false
	}
	r.errf("%s%s[%s]: cannot assign list to array member\n", r.skErrPrefix(pos), as.Name.Value, expand.SkillrunAssocKey(r.ecfg, as.Index))
	r.exit.code = 1
	return true
}
