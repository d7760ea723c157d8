// Package termsafe makes untrusted text safe to print on a terminal.
//
// Skill, script, tool, agent and MCP server names, grant values and model
// output come from people skillrun does not trust. Printed raw, an escape
// sequence among them can move the cursor, clear a line or turn off line
// wrapping, and so hide or fake what a permission prompt asks; a bidi
// override or a zero-width character can make one name look like another.
// Every such string goes through [String] (inline) or [Quote] (a bounded,
// quoted name) before it reaches a terminal.
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns s with every rune that a terminal would not show as one
// visible glyph replaced by a visible Go-style escape: C0 and C1 control
// characters (ESC is \x1b), DEL, format characters such as bidi overrides
// and isolates and zero-width spaces and joiners (\u202e, \u200b), line and
// paragraph separators, non-ASCII spaces, unassigned and private-use code
// points, and bytes that are not UTF-8 (\xff). Printable text, ASCII space
// included, is kept as is, and so is the backslash: the result is for
// reading, not for parsing back. The result holds only printable runes, so
// String is idempotent.
func String(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case safeRune(r):
			b.WriteRune(r)
		default:
			// QuoteRuneToASCII gives 'x' with the escape inside.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// Text is [String] for text of many lines, such as a model's answer: the
// newlines are kept, everything else is escaped as String escapes it.
func Text(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}

// Quote returns s as a double-quoted Go string literal of at most max
// runes of s (a longer s is cut and marked with "…" after the closing
// quote), escaped as strconv.Quote escapes: every rune [String] escapes,
// plus the quote and the backslash, so where the name ends is never in
// doubt. Use it for names shown beside a decision (a prompt, a warning).
// A max below 1 means no bound.
func Quote(s string, max int) string {
	cut := false
	if max > 0 && utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	// strconv.Quote keeps U+FFFD raw; String escapes it too, so both
	// agree on what is shown as itself.
	q := String(strconv.Quote(s))
	if cut {
		q += "…"
	}
	return q
}

func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return utf8.ValidString(s) && allSafeRunes(s)
		}
	}
	return true
}

func allSafeRunes(s string) bool {
	for _, r := range s {
		if !safeRune(r) {
			return false
		}
	}
	return true
}

// safeRune reports whether r is shown as itself: printable in the sense
// of strconv.IsPrint (letters, marks, numbers, punctuation, symbols and
// the ASCII space; not controls, format characters, separators other
// than U+0020, private-use or unassigned code points), and not U+FFFD,
// which would hide which bytes were there.
func safeRune(r rune) bool {
	if r == ' ' {
		return true
	}
	if r < 0x20 || r == 0x7f {
		return false
	}
	return strconv.IsPrint(r) && r != utf8.RuneError
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
