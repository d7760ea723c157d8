//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shell.go and shellhooks_fds3.go): a here-document
// delimiter with an expansion in it, as in cat <<${a} or cat <<$(a),
// which bash takes as the literal text "${a}" (never expanded) and
// mvdan.cc/sh rejected as a syntax error.

package syntax

import "bytes"

// skHdocWordPart appends to buf the text of wp, an expansion in a
// here-document delimiter, as the printer writes it: the delimiter
// line must match that text.
func skHdocWordPart(buf []byte, wp WordPart) []byte {
	var b bytes.Buffer
	if err := NewPrinter().Print(&b, wp); err != nil {
		return buf
	}
	return append(buf, b.Bytes()...)
}

// skHdocStopLine is for r, the first rune of a line of an unquoted
// here-document body: when the line is the delimiter and the delimiter
// has a character the body lexer stops at ($ or `), it consumes the
// rest of the line and returns the rune after it (a newline or EOF),
// so that the caller compares the whole line with the delimiter;
// otherwise it returns r, consuming nothing.
func (p *Parser) skHdocStopLine(r rune, stop []byte) rune {
	if len(stop) == 0 || !bytes.ContainsAny(stop, "$`") || r != rune(stop[0]) || r >= 0x80 {
		return r
	}
	rest := stop[1:]
	// Have the line and the byte after it in the buffer; fill keeps the
	// bytes not yet read, and stops growing at the buffer's size.
	for len(p.bs)-int(p.bsp) <= len(rest) && !p.readEOF && p.err == nil {
		if p.fill() == 0 {
			break
		}
	}
	ahead := p.bs[p.bsp:]
	if !bytes.HasPrefix(ahead, rest) {
		return r
	}
	if len(ahead) > len(rest) && ahead[len(rest)] != '\n' {
		return r
	}
	for start := p.bsp; p.bsp-start < uint(len(rest)); {
		p.rune()
	}
	return p.rune()
}
