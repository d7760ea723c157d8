//go:build ignore

package interp

import "mvdan.cc/sh/v3/syntax"

// skErrExitCompound reports whether cm is a compound command whose
// failure bash does not treat as an errexit trigger: the commands
// inside it already had their chance to trigger it, and a failure
// left over from an && or || list or a condition must not.
func skErrExitCompound(cm syntax.Command) bool {
	switch cm.(type) {
	case *syntax.Block, *syntax.IfClause, *syntax.ForClause,
		*syntax.WhileClause, *syntax.CaseClause:
		return true
	}
	return false
}
