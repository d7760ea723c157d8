package builtin

import (
	"math"
	"strconv"
	"strings"
)

// isCSpace reports whether c is white space to C's isspace in the C and
// C.UTF-8 locales; strtol and friends skip it before a number.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// numError says why a numeric argument was not entirely a number, in the
// words of bash's sh_invalidnum, which looks only at the argument's start.
func numError(arg string) string {
	switch {
	case len(arg) > 1 && arg[0] == '0' && arg[1] >= '0' && arg[1] <= '9':
		return "printf: " + arg + ": invalid octal number"
	case len(arg) > 1 && arg[0] == '0' && arg[1] == 'x':
		return "printf: " + arg + ": invalid hex number"
	}
	return "printf: " + arg + ": invalid number"
}

// charCode returns the value of a 'c or "c argument: the code point of the
// character after the quote as glibc's mbtowc decodes it, or that byte
// itself when it does not start a valid multibyte character.
func charCode(arg string) int64 {
	if len(arg) < 2 {
		return 0
	}
	if r, n := decodeGlibcUTF8(arg[1:]); n > 0 {
		return int64(r)
	}
	return int64(arg[1])
}

// decodeGlibcUTF8 decodes the first character of s like glibc's UTF-8
// decoder: besides standard UTF-8 it accepts code points above U+10FFFF in
// up to six bytes, and it rejects overlong forms and surrogates. n is 0 if s
// does not start with a complete valid character.
func decodeGlibcUTF8(s string) (r uint32, n int) {
	if s == "" {
		return 0, 0
	}
	c := s[0]
	var min uint32
	switch {
	case c < 0x80:
		return uint32(c), 1
	case c >= 0xc2 && c <= 0xdf:
		n, r, min = 2, uint32(c&0x1f), 0x80
	case c >= 0xe0 && c <= 0xef:
		n, r, min = 3, uint32(c&0x0f), 0x800
	case c >= 0xf0 && c <= 0xf7:
		n, r, min = 4, uint32(c&0x07), 0x10000
	case c >= 0xf8 && c <= 0xfb:
		n, r, min = 5, uint32(c&0x03), 0x200000
	case c >= 0xfc && c <= 0xfd:
		n, r, min = 6, uint32(c&0x01), 0x4000000
	default:
		return 0, 0
	}
	if len(s) < n {
		return 0, 0
	}
	for i := 1; i < n; i++ {
		if s[i]&0xc0 != 0x80 {
			return 0, 0
		}
		r = r<<6 | uint32(s[i]&0x3f)
	}
	if r < min || (r >= 0xd800 && r <= 0xdfff) {
		return 0, 0
	}
	return r, n
}

// scanInt parses the longest prefix of s that strtoimax/strtoumax accept
// with base 0: blanks, a sign, then decimal, 0octal or 0xhex digits. It
// returns the magnitude, the sign, how many bytes were used (0 if there
// were no digits) and whether the magnitude exceeded 64 bits.
func scanInt(s string) (mag uint64, neg bool, end int, overflow bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	if i < len(s) && s[i] == '0' {
		if i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && hexVal(s[i+2]) >= 0 {
			base = 16
			i += 2
		} else {
			base = 8
		}
	}
	start := i
	for ; i < len(s); i++ {
		d := hexVal(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if mag > (math.MaxUint64-uint64(d))/base {
			overflow = true
		}
		mag = mag*base + uint64(d)
	}
	if i == start {
		return 0, false, 0, false
	}
	return mag, neg, i, overflow
}

// argInt converts a printf argument for %d and %i like bash's getintmax:
// a character code for 'c, otherwise strtoimax, clamping on overflow.
func (p *printer) argInt(arg string) int64 {
	if arg != "" && (arg[0] == '\'' || arg[0] == '"') {
		return charCode(arg)
	}
	mag, neg, end, overflow := scanInt(arg)
	var v int64
	switch {
	case !neg && (overflow || mag > math.MaxInt64):
		v, overflow = math.MaxInt64, true
	case neg && (overflow || mag > 1<<63):
		v, overflow = math.MinInt64, true
	case neg:
		v = -int64(mag)
	default:
		v = int64(mag)
	}
	p.checkNumEnd(arg, end, overflow)
	return v
}

// argUint converts a printf argument for %o %u %x %X like bash's
// getuintmax: negative numbers wrap around as in C.
func (p *printer) argUint(arg string) uint64 {
	if arg != "" && (arg[0] == '\'' || arg[0] == '"') {
		return uint64(charCode(arg))
	}
	mag, neg, end, overflow := scanInt(arg)
	v := mag
	switch {
	case overflow:
		v = math.MaxUint64
	case neg:
		v = -mag
	}
	p.checkNumEnd(arg, end, overflow)
	return v
}

// checkNumEnd reports, as bash does, an argument with trailing garbage (an
// error that makes the status 1 but still prints the value parsed so far)
// or out of range (a warning only).
func (p *printer) checkNumEnd(arg string, end int, overflow bool) {
	if end < len(arg) {
		p.warn(numError(arg))
		p.status = 1
	} else if overflow {
		p.warn("printf: warning: " + arg + ": Numerical result out of range")
	}
}

// intSpec is a parsed conversion specification: flags, width, precision.
type intSpec struct {
	minus, plus, space, hash, zero bool
	width                          int
	prec                           int // < 0: none
}

// formatInt formats an integer like C's printf for conversion conv (one of
// d i o u x X), given its sign and magnitude.
func formatInt(sp intSpec, conv byte, neg bool, mag uint64) string {
	base := 10
	switch conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if sp.prec == 0 && mag == 0 {
		digits = ""
	}
	if sp.prec > len(digits) {
		digits = strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	prefix := ""
	switch conv {
	case 'd', 'i':
		switch {
		case neg:
			prefix = "-"
		case sp.plus:
			prefix = "+"
		case sp.space:
			prefix = " "
		}
	case 'o':
		if sp.hash && (digits == "" || digits[0] != '0') {
			digits = "0" + digits
		}
	case 'x', 'X':
		if sp.hash && mag != 0 {
			prefix = "0" + string(conv)
		}
	}
	return pad(sp, prefix, digits, sp.zero && sp.prec < 0)
}

// pad applies the field width to a number made of prefix (sign, 0x) and
// body, with zeros between them if zeroPad, else with blanks.
func pad(sp intSpec, prefix, body string, zeroPad bool) string {
	n := sp.width - len(prefix) - len(body)
	if n <= 0 {
		return prefix + body
	}
	switch {
	case sp.minus:
		return prefix + body + strings.Repeat(" ", n)
	case zeroPad:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

// padString applies width and precision to a string conversion (%s, %b,
// %q, %c, %T); both count bytes, as in bash.
func padString(sp intSpec, s string) string {
	if sp.prec >= 0 && sp.prec < len(s) {
		s = s[:sp.prec]
	}
	n := sp.width - len(s)
	if n <= 0 {
		return s
	}
	if sp.minus {
		return s + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + s
}
