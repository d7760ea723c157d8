package builtin

import (
	"math/big"
	"strconv"
	"strings"
)

// Bash formats floating-point conversions with long double, which on the
// x86-64 machines scripts are written on is the x87 80-bit format with a
// 64-bit mantissa. big.Float with 64 bits of precision reproduces its
// rounding, so %.20f and %a print the same digits as bash does there.
const (
	ldMantBits = 64
	ldMaxExp   = 16384  // values at or above 2**16384 overflow
	ldMinExp   = -16381 // MantExp of the smallest normal value
	ldTinyExp  = -16444 // below this a value underflows to zero
)

// floatArg is a parsed floating-point argument. f holds finite values and
// infinities; NaN, which big.Float lacks, is the nan flag with its sign.
type floatArg struct {
	f   *big.Float
	nan bool
	neg bool
}

func newFloat() *big.Float {
	return new(big.Float).SetPrec(ldMantBits).SetMode(big.ToNearestEven)
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// scanDigits returns the end of the run of digits of s starting at i, in
// base 16 if hex, else base 10.
func scanDigits(s string, i int, hex bool) int {
	for i < len(s) {
		c := s[i]
		if (hex && hexVal(c) < 0) || (!hex && (c < '0' || c > '9')) {
			break
		}
		i++
	}
	return i
}

// scanFloat parses the longest prefix of s that strtold accepts: blanks, a
// sign, then a decimal or 0x hexadecimal number with optional exponent,
// inf, infinity or nan. end is 0 if there is no number; rangeErr reports a
// value too large or too small for long double.
func scanFloat(s string) (v floatArg, end int, rangeErr bool) {
	v.f = newFloat()
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		v.f.SetInf(neg)
		return v, i + 8, false
	case hasPrefixFold(rest, "inf"):
		v.f.SetInf(neg)
		return v, i + 3, false
	case hasPrefixFold(rest, "nan"):
		v.nan, v.neg = true, neg
		i += 3
		if j := strings.IndexByte(s[i:], ')'); i < len(s) && s[i] == '(' && j > 0 {
			ok := true
			for _, c := range s[i+1 : i+j] {
				if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
					ok = false
				}
			}
			if ok {
				i += j + 1
			}
		}
		return v, i, false
	}
	hex := len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') &&
		(hexVal(rest[2]) >= 0 || rest[2] == '.' && len(rest) > 3 && hexVal(rest[3]) >= 0)
	if hex {
		i += 2
	}
	intEnd := scanDigits(s, i, hex)
	fracStart, fracEnd := intEnd, intEnd
	if intEnd < len(s) && s[intEnd] == '.' {
		fracStart = intEnd + 1
		fracEnd = scanDigits(s, fracStart, hex)
	}
	if intEnd == i && fracEnd == fracStart {
		return v, 0, false
	}
	end = fracEnd
	// The exponent is kept apart and clamped so that absurd exponents
	// cannot make big.Float compute huge powers.
	exp := int64(0)
	expChar := byte('e')
	if hex {
		expChar = 'p'
	}
	if end < len(s) && (s[end]|0x20) == expChar {
		j := end + 1
		eneg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			eneg = s[j] == '-'
			j++
		}
		if k := scanDigits(s, j, false); k > j {
			for _, c := range s[j:k] {
				if exp < 1<<30 {
					exp = exp*10 + int64(c-'0')
				}
			}
			if eneg {
				exp = -exp
			}
			end = k
		}
	}
	mant := strings.TrimLeft(s[i:intEnd], "0") + "." + s[fracStart:fracEnd]
	if strings.Trim(mant, "0.") == "" {
		if neg {
			v.f.Neg(v.f)
		}
		return v, end, false
	}
	if hex {
		return finishHexFloat(v, mant, exp, neg, end)
	}
	// Decide overflow and underflow from the decimal magnitude first.
	intDigits := int64(len(strings.TrimLeft(s[i:intEnd], "0")))
	mag := exp + intDigits
	if intDigits == 0 {
		frac := s[fracStart:fracEnd]
		mag = exp - int64(len(frac)-len(strings.TrimLeft(frac, "0")))
	}
	switch {
	case mag > 4934:
		v.f.SetInf(neg)
		return v, end, true
	case mag < -4952:
		if neg {
			v.f.Neg(v.f)
		}
		return v, end, true
	}
	text := mant + "e" + strconv.FormatInt(exp, 10)
	if _, _, err := v.f.Parse(text, 10); err != nil {
		v.f = newFloat()
		return v, 0, false
	}
	if neg {
		v.f.Neg(v.f)
	}
	return clampLongDouble(v, end)
}

// finishHexFloat converts the hexadecimal mantissa digits (with a point)
// and binary exponent of a 0x float.
func finishHexFloat(v floatArg, mant string, exp int64, neg bool, end int) (floatArg, int, bool) {
	dot := strings.IndexByte(mant, '.')
	digits := mant[:dot] + mant[dot+1:]
	exp -= int64(4 * (len(mant) - dot - 1))
	if len(digits) > 40 { // beyond 64 bits only the sticky bit matters
		exp += int64(4 * (len(digits) - 40))
		sticky := strings.Trim(digits[40:], "0") != ""
		digits = digits[:40]
		if sticky {
			digits += "1"
			exp -= 4
		}
	}
	n, ok := new(big.Int).SetString(digits, 16)
	if !ok {
		return v, 0, false
	}
	e2 := exp + int64(n.BitLen())
	switch {
	case e2 > ldMaxExp+1:
		v.f.SetInf(neg)
		return v, end, true
	case e2 < ldTinyExp-2:
		if neg {
			v.f.Neg(v.f)
		}
		return v, end, true
	}
	v.f.SetInt(n)
	v.f.SetMantExp(v.f, int(exp))
	if neg {
		v.f.Neg(v.f)
	}
	return clampLongDouble(v, end)
}

// clampLongDouble applies long double's exponent range to a parsed value.
func clampLongDouble(v floatArg, end int) (floatArg, int, bool) {
	if v.f.IsInf() || v.f.Sign() == 0 {
		return v, end, false
	}
	e := v.f.MantExp(nil)
	switch {
	case e > ldMaxExp:
		v.f.SetInf(v.f.Signbit())
		return v, end, true
	case e < ldTinyExp:
		neg := v.f.Signbit()
		v.f = newFloat()
		if neg {
			v.f.Neg(v.f)
		}
		return v, end, true
	case e < ldMinExp:
		return v, end, true
	}
	return v, end, false
}

// argFloat converts a printf argument for the floating-point conversions
// like bash's getfloatmax.
func (p *printer) argFloat(arg string) floatArg {
	if arg != "" && (arg[0] == '\'' || arg[0] == '"') {
		f := newFloat().SetInt64(charCode(arg))
		return floatArg{f: f}
	}
	v, end, rangeErr := scanFloat(arg)
	if end == 0 {
		v = floatArg{f: newFloat()}
	}
	p.checkNumEnd(arg, end, rangeErr)
	return v
}

// formatFloat formats v like C's printf for conv, one of f F e E g G a A.
func formatFloat(sp intSpec, conv byte, v floatArg) string {
	upper := conv >= 'A' && conv <= 'Z'
	neg := v.neg
	if !v.nan {
		neg = v.f.Signbit()
	}
	sign := ""
	switch {
	case neg:
		sign = "-"
	case sp.plus:
		sign = "+"
	case sp.space:
		sign = " "
	}
	if v.nan || v.f.IsInf() {
		body := "inf"
		if v.nan {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return pad(sp, sign, body, false)
	}
	x := newFloat().Abs(v.f)
	prec := sp.prec
	var body string
	switch conv | 0x20 {
	case 'f':
		if prec < 0 {
			prec = 6
		}
		body = x.Text('f', prec)
		if sp.hash && prec == 0 {
			body += "."
		}
	case 'e':
		if prec < 0 {
			prec = 6
		}
		body = fmtE(x, prec, sp.hash)
	case 'g':
		body = fmtG(x, prec, sp.hash)
	case 'a':
		body = fmtA(x, prec, sp.hash)
		if upper {
			body = strings.ToUpper(body)
		}
		if len(body) > 2 && (sp.zero && !sp.minus) {
			return pad(sp, sign+body[:2], body[2:], true)
		}
		return pad(sp, sign, body, false)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return pad(sp, sign, body, sp.zero)
}

// fmtE formats x >= 0 in C's %e style: at least two exponent digits.
func fmtE(x *big.Float, prec int, hash bool) string {
	s := x.Text('e', prec)
	i := strings.LastIndexByte(s, 'e')
	mant, exp := s[:i], s[i+1:]
	if hash && prec == 0 {
		mant += "."
	}
	sign := exp[:1]
	digits := strings.TrimLeft(exp[1:], "0")
	for len(digits) < 2 {
		digits = "0" + digits
	}
	return mant + "e" + sign + digits
}

// fmtG formats x >= 0 in C's %g style: %e or %f depending on the exponent,
// trailing zeros removed unless hash.
func fmtG(x *big.Float, prec int, hash bool) string {
	if prec < 0 {
		prec = 6
	}
	if prec == 0 {
		prec = 1
	}
	e := fmtE(x, prec-1, false)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	var s string
	if exp < prec && exp >= -4 {
		s = x.Text('f', prec-1-exp)
		if hash && !strings.Contains(s, ".") {
			s += "."
		}
		if !hash {
			s = trimFraction(s)
		}
		return s
	}
	s = fmtE(x, prec-1, hash)
	if !hash {
		i = strings.LastIndexByte(s, 'e')
		s = trimFraction(s[:i]) + s[i:]
	}
	return s
}

// trimFraction removes trailing zeros after a decimal point, and the point
// itself if nothing remains after it.
func trimFraction(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// fmtA formats x >= 0 like glibc's %a for an x87 long double: the 64-bit
// mantissa as one leading hex digit (8 to f) and fifteen fraction digits.
func fmtA(x *big.Float, prec int, hash bool) string {
	var lead, frac uint64
	exp := 0
	if x.Sign() != 0 {
		mant := newFloat()
		e := x.MantExp(mant)
		mant.SetMantExp(mant, ldMantBits)
		m, _ := mant.Uint64()
		lead, frac, exp = m>>60, m&(1<<60-1), e-4
	}
	digits := 15
	if prec >= 0 && prec < 15 {
		shift := uint(60 - 4*prec)
		full := lead<<(4*uint(prec)) | frac>>shift
		rem := frac & (1<<shift - 1)
		half := uint64(1) << (shift - 1)
		if rem > half || rem == half && full&1 == 1 {
			full++
		}
		lead, frac = full>>(4*uint(prec)), full&(1<<(4*uint(prec))-1)
		if lead > 0xf {
			lead, frac, exp = 1, 0, exp+4
		}
		digits = prec
	}
	var b strings.Builder
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(lead, 16))
	fd := ""
	if digits > 0 {
		fd = strconv.FormatUint(frac, 16)
		fd = strings.Repeat("0", digits-len(fd)) + fd
	}
	if prec < 0 {
		fd = strings.TrimRight(fd, "0")
	} else if prec > digits {
		fd += strings.Repeat("0", prec-digits)
	}
	if fd != "" || hash {
		b.WriteByte('.')
		b.WriteString(fd)
	}
	b.WriteByte('p')
	if exp >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}
