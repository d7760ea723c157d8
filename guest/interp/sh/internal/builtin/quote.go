package builtin

import (
	"strings"
	"unicode"
)

// shellMeta marks the ASCII characters that bash's printf %q escapes with a
// backslash wherever they appear (sh_backslash_quote's table).
var shellMeta = func() (t [128]bool) {
	for _, c := range " \t\n!\"$&'()*,;<>?[\\]^`{|}" {
		t[c] = true
	}
	return t
}()

// isPrintRune approximates glibc's iswprint in C.UTF-8: everything but
// control characters, surrogates, line and paragraph separators and
// unassigned code points.
func isPrintRune(r uint32) bool {
	switch {
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return false
	case r < 0x7f:
		return true
	case r > unicode.MaxRune || r == 0x2028 || r == 0x2029:
		return false
	}
	c := rune(r)
	return unicode.IsGraphic(c) || unicode.In(c, unicode.Cf, unicode.Co)
}

// needsANSIQuote reports whether s must be quoted as $'...' because it holds
// a non-printable character or invalid UTF-8 (bash's ansic_shouldquote).
func needsANSIQuote(s string) bool {
	for i := 0; i < len(s); {
		r, n := decodeGlibcUTF8(s[i:])
		if n == 0 || !isPrintRune(r) {
			return true
		}
		i += n
	}
	return false
}

// shellQuote quotes s for reuse as shell input the way bash's printf %q does:
// ” for the empty string, $'...' when s has control characters or invalid
// UTF-8, and otherwise backslashes before the characters the shell would
// interpret.
func shellQuote(s string) string {
	switch {
	case s == "":
		return "''"
	case needsANSIQuote(s):
		return ansiCQuote(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80 && shellMeta[c],
			c == '#' && i == 0,
			c == '~' && (i == 0 || s[i-1] == ':' || s[i-1] == '='):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ansiCQuote quotes s as $'...' like bash's ansic_quote: C escapes for the
// usual control characters, \E for escape, three-digit octal for other
// unprintable bytes, printable UTF-8 characters kept as they are.
func ansiCQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		c := s[i]
		esc := byte(0)
		switch c {
		case 0x1b:
			esc = 'E'
		case '\a':
			esc = 'a'
		case '\v':
			esc = 'v'
		case '\b':
			esc = 'b'
		case '\f':
			esc = 'f'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case '\t':
			esc = 't'
		case '\\', '\'':
			esc = c
		}
		if esc != 0 {
			b.WriteByte('\\')
			b.WriteByte(esc)
			i++
			continue
		}
		r, n := decodeGlibcUTF8(s[i:])
		if n == 0 || !isPrintRune(r) {
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
			i++
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}
