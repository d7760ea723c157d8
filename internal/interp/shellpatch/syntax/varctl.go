//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shellhooks_varctl.go): expansions bash parses but
// fails to run ("bad substitution"): ${#x:1}, ${#x-word}, ${x:}. Bash
// only finds their closing brace when it reads a script, and fails at
// the command that expands them, with status 1, where mvdan.cc/sh
// rejected the whole script (status 2, nothing run). ${x::} and
// ${x:1:} are slices of length zero in bash, not syntax errors.

package syntax

import "strings"

// skBadSubstMax bounds the text kept of a bad substitution: it is only
// used in an error message.
const skBadSubstMax = 4096

// skBadSubst ends the parse of pe, an expansion bash reads but cannot
// expand: its text up to the matching closing brace goes to pe.SkBad,
// which fails the expansion when it runs (expand/varctl.go). pe.Width is
// set too, so that the list and operator expansions leave it alone.
// done is the text of what was read after pe's name and index; old is
// the quoting state to go back to.
func (p *Parser) skBadSubst(pe *ParamExp, done string, old quoteState) *ParamExp {
	var sb strings.Builder
	sb.WriteString("${")
	switch {
	case pe.Length:
		sb.WriteByte('#')
	case pe.Excl:
		sb.WriteByte('!')
	}
	if pe.Param != nil {
		sb.WriteString(pe.Param.Value)
	}
	if pe.Index != nil {
		sb.WriteByte('[')
		_ = NewPrinter().Print(&sb, pe.Index)
		sb.WriteByte(']')
	}
	sb.WriteString(done)
	depth := 0
	for p.r != runeEOF && (p.r != '}' || depth > 0) {
		switch p.r {
		case '{':
			depth++
		case '}':
			depth--
		case '\\':
			if sb.Len() < skBadSubstMax {
				sb.WriteRune(p.r)
			}
			p.rune()
		}
		if p.r != runeEOF && sb.Len() < skBadSubstMax {
			sb.WriteRune(p.r)
		}
		p.rune()
	}
	if p.r == runeEOF {
		p.tok = _EOF
		p.matchingErr(pe.Dollar, dollBrace, rightBrace)
		p.quote = old
		return pe
	}
	sb.WriteByte('}')
	pe.Rbrace = p.nextPos()
	p.rune()
	pe.SkBad, pe.Width = sb.String(), true
	pe.Length, pe.Excl, pe.Slice, pe.Exp, pe.Repl = false, false, nil, nil, nil
	p.quote = old
	p.next()
	return pe
}

// skZeroArithm is the empty length of ${x::} and ${x:i:},
// which bash reads as zero.
func skZeroArithm(pos Pos) ArithmExpr {
	return &Word{Parts: []WordPart{&Lit{ValuePos: pos, ValueEnd: pos, Value: "0"}}}
}
