//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): bash's $'...' quoting (its ansic_quote),
// shared by ${x@Q} here and by set, declare -p and printf %q in interp,
// so that all of them write a control character the same way: \001
// rather than mvdan.cc/sh's \x01.

package expand

import (
	"fmt"
	"strings"
)

// SkANSIQuote is s in $'...' as bash writes it: the C escapes by name,
// other control characters in octal, every other byte as it is.
func SkANSIQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case 0x1b:
			b.WriteString(`\E`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
