//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, with
// expand/assoc.go: associative array literals as bash 5.2 reads them.
// mvdan.cc/sh panics on declare -A m=(k1 v1 k2 v2) (bash 5.1's key-value
// form), ending the whole shell, and ignores m+=([k]=v), which scripts
// use to add entries; [[ -v m[key] ]] and test -v a[i] check one
// element (mvdan.cc/sh looked for a variable named "m[key]").

package interp

import (
	"maps"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skAssocAssign assigns the array literal elems to the associative
// array name (prev), or adds them to it for +=.
func (r *Runner) skAssocAssign(name string, prev expand.Variable, as *syntax.Assign, elems []*syntax.ArrayElem) (string, expand.Variable) {
	amap := map[string]string{}
	if as.Append && prev.Kind == expand.Associative {
		amap = maps.Clone(prev.Map)
		if amap == nil {
			amap = map[string]string{}
		}
	} else if as.Append && prev.Kind == expand.String && prev.IsSet() {
		amap["0"] = prev.Str // declare -A s+=(...) of a string keeps it
	}
	pairs := len(elems) > 0
	for _, e := range elems {
		if e.Index != nil {
			pairs = false
		}
	}
	if pairs {
		// (k1 v1 k2 v2 ...): a key without a value gets "".
		for i := 0; i < len(elems); i += 2 {
			v := ""
			if i+1 < len(elems) {
				v = r.literal(elems[i+1].Value)
			}
			amap[r.literal(elems[i].Value)] = v
		}
	} else {
		base := amap // [k]+=v appends to what m+=(...) has so far
		if !as.Append && prev.Kind == expand.Associative {
			base = prev.Map // and to m's old value for m=(...)
		}
		for _, e := range elems {
			if e.Index == nil {
				continue // bash: "must use subscript when assigning associative array"
			}
			k := expand.SkillrunAssocKey(r.ecfg, e.Index)
			amap[k] = r.skAssocElemValue(base, k, e)
		}
	}
	prev.Set = true
	prev.Kind = expand.Associative
	prev.Map = amap
	return name, prev
}

// skVarSet is [[ -v x ]]: a variable, or one element name[idx] of it.
func (r *Runner) skVarSet(x string) bool {
	name, idx, ok := strings.Cut(x, "[")
	if !ok || !strings.HasSuffix(idx, "]") || !syntax.ValidName(name) {
		return r.lookupVar(x).IsSet()
	}
	return expand.SkillrunElemSet(r.ecfg, r.lookupVar(name), strings.TrimSuffix(idx, "]"))
}
