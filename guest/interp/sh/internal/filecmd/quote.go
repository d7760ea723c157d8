package filecmd

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// GNU tools quote file names in messages in one of three ways, chosen
// per message by gnulib's quote functions; matching them matters because
// scripts and tests compare error output. In LANG=C.UTF-8:
//   - q (gnulib quote) uses the locale's quotation marks: ‘a b’.
//   - qa (quoteaf) always uses shell quoting: 'a', "it's", 'a'$'\n''b'.
//   - qf (quotef) uses shell quoting only when the name needs it: a, 'a b'.

// q quotes s with the locale's quotation marks and C escapes.
func q(s string) string {
	var b strings.Builder
	b.WriteString("‘")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f:
			b.WriteString(cEscape(s[i]))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteString("’")
	return b.String()
}

// cEscape is the C escape of a byte that cannot be printed.
func cEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return fmt.Sprintf(`\%03o`, c)
}

// qa quotes s for a shell, always.
func qa(s string) string { return shellQuote(s, true, false) }

// qf quotes s for a shell when it has to, treating ':' as special too
// (quotef quotes names that are followed by ": message").
func qf(s string) string { return shellQuote(s, false, true) }

func shellQuote(s string, always, colon bool) string {
	if s == "" {
		return "''"
	}
	need, control := always, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, !unicode.IsPrint(r) && r != ' ':
			need, control = true, true
		case strings.ContainsRune(" \t!\"$&'()*;<=>?[\\^`|", r):
			need = true
		case r == ':' && colon:
			need = true
		case (r == '#' || r == '~') && i == 0:
			need = true
		case (r == '{' || r == '}') && len(s) == 1:
			need = true
		}
		i += size
	}
	if !need {
		return s
	}
	if !control && strings.Contains(s, "'") && !strings.ContainsAny(s, "$`\\\"!") {
		return `"` + s + `"`
	}
	var b strings.Builder
	b.WriteByte('\'')
	inQuote, inDollar := true, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (!unicode.IsPrint(r) && r != ' ') {
			if inQuote {
				b.WriteByte('\'')
				inQuote = false
			}
			if !inDollar {
				b.WriteString("$'")
				inDollar = true
			}
			for j := 0; j < size; j++ {
				b.WriteString(cEscape(s[i+j]))
			}
			i += size
			continue
		}
		if inDollar {
			b.WriteByte('\'')
			inDollar = false
		}
		if !inQuote {
			b.WriteByte('\'')
			inQuote = true
		}
		if r == '\'' {
			b.WriteString(`'\''`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if inQuote || inDollar {
		b.WriteByte('\'')
	}
	return b.String()
}
