//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shellhooks_lit4.go): the values of [k]+=v elements of
// array literals, which append v to element k.

package interp

import (
	"slices"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skElemValue is the value elem sets at index k of the indexed array
// being built (list, indexes): its word, after element k's value for
// [k]+=v.
func (r *Runner) skElemValue(list []string, indexes []int, k int, elem *syntax.ArrayElem) string {
	v := r.literal(expand.SkillrunAssignTildes(r.ecfg, elem.Value))
	if !elem.SkAppend {
		return v
	}
	return skIndexedElem(list, indexes, k) + v
}

// skIndexedElem is element k of the indexed array (list, indexes), or ""
// if it is not set.
func skIndexedElem(list []string, indexes []int, k int) string {
	if indexes == nil {
		if k >= 0 && k < len(list) {
			return list[k]
		}
		return ""
	}
	if pos, ok := slices.BinarySearch(indexes, k); ok {
		return list[pos]
	}
	return ""
}

// skAssocElemValue is the value of e, an element [k]=v of an associative
// array literal, for key k. [k]+=v appends to the value of k in base:
// bash 5.2 appends to the variable's value before the assignment for
// m=(...), and to the entries so far for m+=(...).
func (r *Runner) skAssocElemValue(base map[string]string, k string, e *syntax.ArrayElem) string {
	v := ""
	if e.Value != nil {
		v = r.literal(e.Value)
	}
	if e.SkAppend {
		return base[k] + v
	}
	return v
}
