//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand, with
// interp/assoc.go: an associative array's key written like arithmetic
// (${m[a+1]}, m[i+1]=x) is its text, as in bash, where mvdan.cc/sh
// panicked; ${#m[@]} counts its entries (mvdan.cc/sh said 1).

package expand

import (
	"strings"

	"mvdan.cc/sh/v3/internal"
	"mvdan.cc/sh/v3/syntax"
)

// SkillrunAssocKey is the key an index of an associative array names:
// the expansion of a word, or the text of an expression the parser read
// as arithmetic.
func SkillrunAssocKey(cfg *Config, idx syntax.ArithmExpr) string {
	if w, ok := idx.(*syntax.Word); ok {
		s, _ := Literal(cfg, w)
		return s
	}
	var b strings.Builder
	skArithText(&b, idx)
	return b.String()
}

// skArithText writes x as it was written, without blanks.
func skArithText(b *strings.Builder, x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		_ = syntax.NewPrinter().Print(b, x)
	case *syntax.BinaryArithm:
		skArithText(b, x.X)
		b.WriteString(x.Op.String())
		skArithText(b, x.Y)
	case *syntax.UnaryArithm:
		if x.Post {
			skArithText(b, x.X)
			b.WriteString(x.Op.String())
		} else {
			b.WriteString(x.Op.String())
			skArithText(b, x.X)
		}
	case *syntax.ParenArithm:
		b.WriteByte('(')
		skArithText(b, x.X)
		b.WriteByte(')')
	}
}

// skAssocValues are the values of an associative array, in bash's
// order, for ${#m[@]} and ${m[@]}.
func skAssocValues(vr Variable) []string {
	return skAssocOrderedValues(vr.Map)
}

// SkillrunElemSet reports whether [[ -v name[idx] ]] holds: the element
// idx (an indexed array's arithmetic, negative from the end; an
// associative array's key, expanded) of vr is set. A string is element
// 0 of itself.
func SkillrunElemSet(cfg *Config, vr Variable, idx string) bool {
	if !vr.IsSet() {
		return false
	}
	if vr.Kind == Associative {
		var key string
		for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(idx)) {
			if err != nil {
				return false
			}
			key, _ = Literal(cfg, w)
			break
		}
		_, ok := vr.Map[key]
		return ok
	}
	x, err := syntax.NewParser().Arithmetic(strings.NewReader(idx))
	if err != nil || x == nil {
		return false
	}
	i, err := Arithm(cfg, x)
	if err != nil {
		return false
	}
	switch vr.Kind {
	case Indexed:
		if i < 0 {
			i += internal.IndexedMax(vr.List, vr.Indexes) + 1
			if i < 0 {
				return false
			}
		}
		_, ok := vr.indexedVal(i)
		return ok
	default:
		return i == 0
	}
}
