//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, with
// expand/arith.go: the interpreter's side of arithmetic that assigns to
// an array element.

package interp

import (
	"fmt"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// SkillrunSetIndex sets the element index of the array name to value,
// as name[index]=value does: how arithmetic assigns to an element
// (skillrun's expand/arith.go).
func (e expandEnv) SkillrunSetIndex(name string, index syntax.ArithmExpr, value string) error {
	prev := e.r.lookupVar(name)
	if prev.ReadOnly {
		return fmt.Errorf("%s: readonly variable", name)
	}
	e.r.setVarWithIndex(prev, name, index, expand.Variable{Set: true, Kind: expand.String, Str: value})
	return nil
}
