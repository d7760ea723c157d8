//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): declarations of bare names as bash has
// them. local x and declare x in a function make a new local that is
// unset, not a copy of the caller's x; declare x, declare -a a and
// readonly -a a of a new name declare it without a value (declare -p
// prints declare -- x, declare -a a).

package interp

import (
	"context"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skNakedDecl is the variable a declaration of the bare name makes from
// vr, the variable the name has now. variant is the declaration's
// keyword, valType its -a, -A or -n, and local whether it makes a local.
func (r *Runner) skNakedDecl(variant, name string, vr expand.Variable, valType string, local bool) expand.Variable {
	if local && !r.skLocalHere(name) {
		vr = expand.Variable{Local: true}
	} else if vr.Declared() {
		if valType == "-A" && vr.Kind != expand.Associative && !vr.IsSet() {
			vr.Kind = expand.Associative
			return vr
		}
		vr.Kind = expand.KeepValue
		return vr
	}
	switch {
	case variant == "readonly":
		vr.Kind = expand.String // bash's readonly -a of a new name makes no array
	case valType == "-a":
		vr.Kind = expand.Indexed
	case valType == "-A":
		vr.Kind = expand.Associative
	default:
		vr.Kind = expand.String
	}
	vr.Set = false
	return vr
}

// skLocalHere reports whether name is a local variable of the function
// running now (not of a caller).
func (r *Runner) skLocalHere(name string) bool {
	o, ok := r.writeEnv.(*overlayEnviron)
	if !ok || !o.funcScope {
		return false
	}
	vr, ok := o.values[o.normalize(name)]
	return ok && vr.Local
}

// skDeclBuiltin runs declare, typeset, export, readonly or local called
// by a name that is not the keyword (an expansion, builtin declare):
// the words are already expanded and split, and each is one argument
// of the declaration.
func (r *Runner) skDeclBuiltin(ctx context.Context, name string, args []string) exitStatus {
	cm := &syntax.DeclClause{Variant: &syntax.Lit{Value: name}}
	for _, arg := range args {
		var part syntax.WordPart = &syntax.SglQuoted{Value: arg}
		if skPlainWord(arg) {
			part = &syntax.Lit{Value: arg} // lets declare -p name list
		}
		cm.Args = append(cm.Args, &syntax.Assign{Value: &syntax.Word{Parts: []syntax.WordPart{part}}})
	}
	r.exit = exitStatus{}
	r.cmd(ctx, cm)
	return r.exit
}

// skPlainWord reports whether s is a word that no expansion changes: a
// flag argument or a name.
func skPlainWord(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+') {
			return false
		}
	}
	return s != ""
}
