//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go and shellhooks_arrays.go), with
// expand/arrays.go: bash's warnings of expansions, and a[i]+=s
// appending to element i.

package interp

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/internal"
	"mvdan.cc/sh/v3/syntax"
)

// skWarn writes an expansion's warning as bash does
// ("bash: line 4: a: bad array subscript").
func (r *Runner) skWarn(pos syntax.Pos, msg string) {
	prefix := "bash: "
	if r.filename != "" {
		prefix = r.filename + ": "
	}
	if pos.IsValid() {
		prefix += fmt.Sprintf("line %d: ", pos.Line())
	}
	fmt.Fprintf(r.stderr, "%s%s\n", prefix, msg)
}

// skElemAppend is a[i]+=s (and m+=s, element "0" of an associative
// array m): element i's value with s after it, which the
// caller then sets as element i (an out-of-range negative index is
// left to that assignment's error).
func (r *Runner) skElemAppend(name string, prev expand.Variable, as *syntax.Assign) (string, expand.Variable) {
	if n, v := prev.Resolve(r.writeEnv); n != "" {
		name, prev = n, v
	}
	cur, _ := expand.SkillrunElem(r.ecfg, prev, as.Index)
	return name, expand.Variable{Set: true, Kind: expand.String, Str: cur + r.literal(as.Value)}
}

// skUnsetElem is unset 'name[sub]', and reports whether it failed: an
// associative array's key is expanded as bash does (unset
// 'm["k"]', 'm[$key]'), and an indexed array's subscript is evaluated
// once, an out-of-range negative one being bash's error.
func (r *Runner) skUnsetElem(pos syntax.Pos, name, sub string) bool {
	vr := r.lookupVar(name)
	if _, v := vr.Resolve(r.writeEnv); v.Kind != vr.Kind {
		vr = v
	}
	if sub != "@" && sub != "*" {
		switch vr.Kind {
		case expand.Associative:
			sub = r.skSubscriptKey(sub)
		case expand.Indexed:
			expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
			if err != nil || expr == nil {
				break // unsetElem's error, or nothing for a[]
			}
			k := r.arithm(expr)
			if k < 0 && k+internal.IndexedMax(vr.List, vr.Indexes)+1 < 0 {
				r.skWarn(pos, fmt.Sprintf("unset: [%d]: bad array subscript", k))
				return true
			}
			sub = strconv.Itoa(k)
		}
	}
	saved := r.exit
	r.exit = exitStatus{}
	r.unsetElem(name, sub)
	failed := r.exit.code != 0
	r.exit = saved
	return failed
}

// skSubscriptKey is the associative array key a subscript's text names:
// the text as one word, expanded ("k", $key, $(cmd)), or the text as it
// is when it is not one word.
func (r *Runner) skSubscriptKey(sub string) string {
	var words []*syntax.Word
	for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(sub)) {
		if err != nil || len(words) > 0 {
			return sub
		}
		words = append(words, w)
	}
	if len(words) != 1 {
		return sub
	}
	return r.literal(words[0])
}
