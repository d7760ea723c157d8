//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shell.go): an arithmetic assignment or increment whose
// variable's name is made by an expansion, $(( x$foo = 42 )), which bash
// takes (the name is known when it runs: skillrun's expand/arith.go
// expands it) and mvdan.cc/sh rejected when parsing.

package syntax

// skDynArithName reports whether w, which is not a plain name, is made
// of literal text and parameter expansions, as a name built at run time.
func skDynArithName(w *Word) bool {
	dyn := false
	for _, p := range w.Parts {
		switch p.(type) {
		case *Lit:
		case *ParamExp:
			dyn = true
		default:
			return false
		}
	}
	return dyn
}
