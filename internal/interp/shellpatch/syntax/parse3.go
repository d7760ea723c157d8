//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shell.go): array assignments before a command
// (B=(b b) cmd), which bash takes as a string, "(b b)", where
// mvdan.cc/sh refused to parse the line.

package syntax

import "strings"

// skInlineArray turns the array of as, an assignment before a command
// word, into the string bash gives it: each element's index as written
// and its value, joined by spaces within parentheses. An element
// assignment (b[0]=2 cmd) is left for the runner to reject.
func skInlineArray(as *Assign) {
	if as.Array == nil {
		return
	}
	pos := as.Array.Lparen
	lit := func(s string) *Lit { return &Lit{ValuePos: pos, ValueEnd: pos, Value: s} }
	w := &Word{Parts: []WordPart{lit("(")}}
	for i, el := range as.Array.Elems {
		if i > 0 {
			w.Parts = append(w.Parts, lit(" "))
		}
		if el.Index != nil {
			w.Parts = append(w.Parts, lit(SkIndexText(el.Index)+"="))
		}
		if el.Value != nil {
			w.Parts = append(w.Parts, el.Value.Parts...)
		}
	}
	w.Parts = append(w.Parts, lit(")"))
	as.Array, as.Value = nil, w
}

// SkIndexText is index as a script would write it, within its brackets.
func SkIndexText(index ArithmExpr) string {
	var sb strings.Builder
	// The name shares the index's line, or the printer breaks the line.
	name := &Lit{ValuePos: index.Pos(), ValueEnd: index.Pos(), Value: "x"}
	as := &Assign{Name: name, Index: index, Naked: true}
	if err := NewPrinter(Minify(true)).Print(&sb, as); err != nil {
		return ""
	}
	return strings.TrimPrefix(sb.String(), "x")
}
