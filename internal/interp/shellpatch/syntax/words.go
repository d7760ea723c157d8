//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shell.go): a line continuation right after a dollar
// sign, as in "$\<newline>?", which bash removes before it sees what the
// dollar starts ($?) and mvdan.cc/sh took for a literal dollar.

package syntax

// skRuneAfterDollar reads the rune after a dollar sign, skipping line
// continuations. Each one skipped consumes input, so the loop ends.
func (p *Parser) skRuneAfterDollar() rune {
	r := p.rune()
	for r == escNewl {
		r = p.rune()
	}
	return r
}
