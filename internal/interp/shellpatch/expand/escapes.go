//go:build ignore

package expand

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// skUnescapeLits returns parts with each unquoted backslash escape made
// what bash makes it in a word that is not split (an assignment's value,
// a redirection's target, a case word, a [[ ]] operand): \X is the
// character X, quoted, and a trailing backslash stays. mvdan.cc/sh's
// Literal kept the backslashes, so `y=a\bc` held `a\bc` and `> a\ b`
// created a file named `a\ b`; it removes them only in words it splits.
// Pattern is left as it is: there an escape must stay an escape, and
// QuoteMeta does not quote every character extglob reads (`*\(\)`).
func skUnescapeLits(parts []syntax.WordPart) []syntax.WordPart {
	var out []syntax.WordPart
	for i, p := range parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value[:max(len(lit.Value)-1, 0)], `\`) {
			if out != nil {
				out = append(out, p)
			}
			continue
		}
		if out == nil {
			out = append(make([]syntax.WordPart, 0, len(parts)+2), parts[:i]...)
		}
		s := lit.Value
		for {
			j := strings.IndexByte(s, '\\')
			if j < 0 || j == len(s)-1 {
				break
			}
			_, size := utf8.DecodeRuneInString(s[j+1:])
			if j > 0 || len(out) == 0 {
				// The first part stays a Lit, even empty, so a
				// leading tilde is still expanded and a leading
				// backslash still stops it.
				out = append(out, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[:j]})
			}
			out = append(out, &syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: s[j+1 : j+1+size]})
			s = s[j+1+size:]
		}
		if s != "" {
			out = append(out, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s})
		}
	}
	if out == nil {
		return parts
	}
	return out
}
