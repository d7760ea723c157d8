//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shell.go): bash reads $(( ... )) and (( ... )) as text
// up to the matching "))" and parses that text as arithmetic only when
// it runs, after expanding it. mvdan.cc/sh parses the arithmetic with
// the script, so an expression bash takes at run time ($(( ${base}#a )),
// $(( x$foo[5] = 1 )), (( ))) or rejects only when it runs (1 + 2.3,
// (( a[1][2] = 3 ))) made the whole script a syntax error. Such an
// expression is kept here as a word of its text, which skillrun's
// expand/arith.go expands and evaluates as an expression when it runs.

package syntax

import "strings"

// skRawArithm reads the text of the arithmetic expression that starts at
// p.r, just after "((", when that text does not parse as arithmetic on
// its own (with quote as the parser's state): it returns the text as a
// word, the position of the closing "))", and true. Otherwise it reads
// nothing and returns false, and the caller parses the expression.
func (p *Parser) skRawArithm(quote quoteState) (*Word, Pos, bool) {
	if !p.lang.in(langBashLike) || p.err != nil || p.openBquotes > 0 || p.litBs != nil || p.r == runeEOF {
		return nil, Pos{}, false
	}
	first := ""
	if p.r != escNewl {
		first = string(p.r)
	}
	text := first + string(p.bs[p.bsp:])
	end := skArithEnd(text)
	for end == -1 && len(p.bs)-int(p.bsp) < bufSize && p.fill() > 0 {
		text = first + string(p.bs[p.bsp:])
		end = skArithEnd(text)
	}
	if end < len(first) {
		// No "))" within reach, or not arithmetic: "$((cmd) )".
		if end != 0 || first != ")" {
			return nil, Pos{}, false
		}
	}
	raw := text[:end]
	if strings.Contains(raw, "\n") && len(p.heredocs) > p.buriedHdocs {
		return nil, Pos{}, false // a here-document's body may be in the way
	}
	if skParsesAsArithm(p.lang, quote, raw) {
		return nil, Pos{}, false
	}
	// Read up to the closing "))": p.r is then its first parenthesis.
	target := p.offs + int64(p.bsp) + int64(end-len(first))
	for p.r != runeEOF && p.offs+int64(p.bsp) <= target {
		p.rune()
	}
	right := p.nextPos()
	p.rune()
	p.rune()
	p.next()
	return skArithWord(p.lang, raw), right, true
}

// skParsesAsArithm reports whether src is one whole arithmetic
// expression to mvdan.cc/sh's parser.
func skParsesAsArithm(lang LangVariant, quote quoteState, src string) bool {
	p := NewParser(Variant(lang))
	p.reset()
	p.f = &File{}
	p.src = strings.NewReader(src)
	p.rune()
	p.quote = quote
	p.next()
	x := p.arithmExpr(false)
	return p.err == nil && x != nil && p.tok == _EOF
}

// skArithWord is the text of an arithmetic expression as a word whose
// expansions ($x, ${x}, $(cmd)) happen when it runs, as bash's do.
func skArithWord(lang LangVariant, raw string) *Word {
	raw = strings.ReplaceAll(raw, "\\\n", "")
	if w, err := NewParser(Variant(lang)).Document(strings.NewReader(raw)); err == nil && w != nil {
		return w
	}
	return &Word{Parts: []WordPart{&Lit{Value: raw}}}
}

// skArithEnd is the index in s of the first parenthesis of the "))"
// that closes an arithmetic expression s starts, -1 if s does not reach
// it, or -2 if a ")" closes s's "((" on its own (nested subshells or a
// command substitution, not arithmetic). Quotes, escapes and
// parentheses nest as bash's matching of the text does.
func skArithEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return -1
			}
			i = j
		case '(':
			depth++
		case ')':
			switch {
			case depth > 0:
				depth--
			case i+1 >= len(s):
				return -1
			case s[i+1] == ')':
				return i
			default:
				return -2
			}
		}
	}
	return -1
}

// skSliceArithm is the offset of ${v:offset:length} after the colon at
// pos: an empty one (${a[@]: }) is 0 in bash, as an empty word is to
// skillrun's arithmetic.
func (p *Parser) skSliceArithm(pos Pos) ArithmExpr {
	if p.tok == rightBrace {
		return &Word{Parts: []WordPart{&Lit{ValuePos: p.pos, ValueEnd: p.pos}}}
	}
	return p.followArithm(colon, pos)
}
