package builtin

import "strings"

// escapeDialect selects one of bash's three slightly different sets of
// backslash escapes. They differ in how octal escapes are counted and in
// which sequences are kept verbatim, and scripts rely on those differences.
type escapeDialect int

const (
	// dialectFormat is the printf format string: \NNN takes up to three
	// octal digits, \', \" and \? lose their backslash, \c is literal.
	dialectFormat escapeDialect = iota
	// dialectPercentB is a %b argument: \0NNN takes up to three digits
	// after the 0, \c ends all output, \', \" and \? are kept.
	dialectPercentB
)

// hexVal returns the value of the hex digit c, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// hexDigits reads up to max hex digits at the start of s and returns
// their value and how many there were.
func hexDigits(s string, max int) (v uint32, n int) {
	for ; n < len(s) && n < max && hexVal(s[n]) >= 0; n++ {
		v = v*16 + uint32(hexVal(s[n]))
	}
	return v, n
}

// unicodeDigits is how many hex digits \u (4) or \U (8) takes.
func unicodeDigits(c byte) int {
	if c == 'U' {
		return 8
	}
	return 4
}

// controlEscape returns the byte of the escapes every dialect shares:
// \a \b \e \E \f \n \r \t \v and \\.
func controlEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'e', 'E':
		return 0x1b, true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	case '\\':
		return '\\', true
	}
	return 0, false
}

// appendUTF8 appends code point v encoded the way bash's u32toutf8 does:
// plain UTF-8 extended to the historical 5- and 6-byte forms, surrogates
// included, and nothing at all for values beyond 0x7fffffff.
func appendUTF8(b []byte, v uint32) []byte {
	switch {
	case v < 0x80:
		return append(b, byte(v))
	case v < 0x800:
		return append(b, byte(v>>6)|0xc0, byte(v&0x3f)|0x80)
	case v < 0x10000:
		return append(b, byte(v>>12)|0xe0, byte(v>>6&0x3f)|0x80, byte(v&0x3f)|0x80)
	case v < 0x200000:
		return append(b, byte(v>>18)|0xf0, byte(v>>12&0x3f)|0x80, byte(v>>6&0x3f)|0x80, byte(v&0x3f)|0x80)
	case v < 0x4000000:
		return append(b, byte(v>>24)|0xf8, byte(v>>18&0x3f)|0x80, byte(v>>12&0x3f)|0x80, byte(v>>6&0x3f)|0x80, byte(v&0x3f)|0x80)
	case v < 0x80000000:
		return append(b, byte(v>>30)|0xfc, byte(v>>24&0x3f)|0x80, byte(v>>18&0x3f)|0x80, byte(v>>12&0x3f)|0x80, byte(v>>6&0x3f)|0x80, byte(v&0x3f)|0x80)
	}
	return b
}

// printfEscape expands the escape whose text (after the backslash) starts
// s, as bash's printf does for its format (dialectFormat) and for %b
// arguments (dialectPercentB). It appends the expansion to out and returns
// how many bytes of s it used. A result of n == 0 means the backslash is
// literal: out gets a backslash and s is processed as ordinary text. stop
// reports \c in a %b argument, and warn is a diagnostic bash prints for an
// escape missing its digits.
func printfEscape(out []byte, s string, d escapeDialect) (_ []byte, n int, stop bool, warn string) {
	if s == "" {
		return append(out, '\\'), 0, false, ""
	}
	c := s[0]
	if b, ok := controlEscape(c); ok {
		return append(out, b), 1, false, ""
	}
	switch c {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		max := 2
		if v == 0 && d == dialectPercentB {
			max = 3
		}
		i := 1
		for ; i < len(s) && isOctal(s[i]) && max > 0; i, max = i+1, max-1 {
			v = v*8 + int(s[i]-'0')
		}
		return append(out, byte(v)), i, false, ""
	case 'x':
		v, n := hexDigits(s[1:], 2)
		if n == 0 {
			return append(out, '\\'), 0, false, `missing hex digit for \x`
		}
		return append(out, byte(v)), 1 + n, false, ""
	case 'u', 'U':
		v, n := hexDigits(s[1:], unicodeDigits(c))
		if n == 0 {
			return append(out, '\\'), 0, false, `missing unicode digit for \` + string(c)
		}
		return appendUTF8(out, v), 1 + n, false, ""
	case '\'', '"', '?':
		if d == dialectFormat {
			return append(out, c), 1, false, ""
		}
	case 'c':
		if d == dialectPercentB {
			return out, 1, true, ""
		}
	}
	return append(out, '\\'), 0, false, ""
}

// expandPercentB expands the escapes of a %b argument. stop reports \c,
// after which printf prints nothing more. A backslash ending the argument
// is kept.
func expandPercentB(s string) (out string, stop bool, warns []string) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c != '\\' || i == len(s) {
			b = append(b, c)
			continue
		}
		var n int
		var warn string
		b, n, stop, warn = printfEscape(b, s[i:], dialectPercentB)
		if warn != "" {
			warns = append(warns, warn)
		}
		if stop {
			break
		}
		i += n
	}
	return string(b), stop, warns
}

// expandEcho expands the escapes of one echo -e argument like bash's
// ansicstr in echo mode: \0NNN is octal but \NNN is not, \xHH needs a hex
// digit, unknown escapes keep their backslash, and \c stops all output
// (reported as stop).
func expandEcho(s string) (out string, stop bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c != '\\' || i == len(s) {
			b = append(b, c)
			continue
		}
		c = s[i]
		i++
		if e, ok := controlEscape(c); ok {
			b = append(b, e)
			continue
		}
		switch c {
		case '0':
			v := 0
			for max := 3; i < len(s) && isOctal(s[i]) && max > 0; i, max = i+1, max-1 {
				v = v*8 + int(s[i]-'0')
			}
			b = append(b, byte(v))
		case 'x':
			v, n := hexDigits(s[i:], 2)
			i += n
			if n == 0 {
				b = append(b, '\\', 'x')
			} else {
				b = append(b, byte(v))
			}
		case 'u', 'U':
			v, n := hexDigits(s[i:], unicodeDigits(c))
			i += n
			if n == 0 {
				b = append(b, '\\', c)
			} else {
				b = appendUTF8(b, v)
			}
		case 'c':
			return string(b), true
		default:
			b = append(b, '\\', c)
		}
	}
	return string(b), false
}
