//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): declaration words made by expansion
// (typeset s${dyn}+=foo, declare "$n[1]=v"), whose += and [index] bash
// honours as it does in a literal assignment.

package interp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skDynAssignName turns as, a name=value split from an expanded
// declaration word, into an append (name+=value) or an element
// assignment (name[index]=value) when its name says so. A name that
// fits neither form is left for declare to reject.
func skDynAssignName(as *syntax.Assign) {
	name := as.Name.Value
	if base, ok := strings.CutSuffix(name, "+"); ok {
		name = base
	}
	var index syntax.ArithmExpr
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") {
		index = skParseIndex(name + "=")
		if index == nil {
			return
		}
		name = name[:i]
	}
	if !syntax.ValidName(name) {
		return
	}
	as.Append = len(name) < len(as.Name.Value) && strings.HasSuffix(as.Name.Value, "+")
	as.Index = index
	as.Name = &syntax.Lit{Value: name}
}

// skParseIndex is the index of the assignment word src (a[i]=), or nil
// when src does not parse as one.
func skParseIndex(src string) syntax.ArithmExpr {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 0 || len(call.Assigns) != 1 {
		return nil
	}
	return call.Assigns[0].Index
}

// skInlineIndexed reports (as bash does, on stderr) an element
// assignment before a command word (b[0]=2 cmd), which bash skips while
// still running the command; it is true when as is one.
func (r *Runner) skInlineIndexed(as *syntax.Assign) bool {
	if as.Index == nil {
		return false
	}
	r.errf("`%s%s': not a valid identifier\n", as.Name.Value, syntax.SkIndexText(as.Index))
	return true
}
