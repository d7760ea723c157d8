package filecmd

import (
	"math"
	"strconv"
	"strings"
)

// A floatVerb is one C printf conversion of a floating-point number
// ("%08.3f", "%-10g"), as seq -f uses them. Go's fmt differs from C for
// %g (Go prints the shortest representation, C six significant digits),
// so the conversions are done here.
type floatVerb struct {
	minus, plus, space, zero, alt bool
	width, prec                   int // prec -1: default
	verb                          byte
}

// parseFloatVerb parses the conversion that starts at s[0] == '%' and
// returns it and its length, or ok false.
func parseFloatVerb(s string) (v floatVerb, n int, ok bool) {
	i := 1
	for ; i < len(s) && strings.IndexByte("-+ 0#'", s[i]) >= 0; i++ {
		switch s[i] {
		case '-':
			v.minus = true
		case '+':
			v.plus = true
		case ' ':
			v.space = true
		case '0':
			v.zero = true
		case '#':
			v.alt = true
		}
	}
	j := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	v.width, _ = strconv.Atoi(s[j:i])
	v.prec = -1
	if i < len(s) && s[i] == '.' {
		i++
		j = i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		v.prec, _ = strconv.Atoi(s[j:i])
	}
	if i < len(s) && s[i] == 'L' {
		i++
	}
	if i >= len(s) || strings.IndexByte("eEfFgGaA", s[i]) < 0 {
		return v, i, false
	}
	v.verb = s[i]
	return v, i + 1, true
}

// format formats x as C's printf would.
func (v floatVerb) format(x float64) string {
	prec := v.prec
	if prec < 0 {
		prec = 6
	}
	var body string
	neg := math.Signbit(x)
	ax := math.Abs(x)
	switch {
	case math.IsInf(x, 0):
		body = "inf"
	case math.IsNaN(x):
		body = "nan"
	default:
		switch v.verb | 0x20 {
		case 'f':
			body = strconv.FormatFloat(ax, 'f', prec, 64)
			if v.alt && prec == 0 {
				body += "."
			}
		case 'e':
			body = cExp(strconv.FormatFloat(ax, 'e', prec, 64))
		case 'a':
			body = strconv.FormatFloat(ax, 'x', v.prec, 64)
		case 'g':
			if prec == 0 {
				prec = 1
			}
			exp := 0
			if ax != 0 {
				s := strconv.FormatFloat(ax, 'e', prec-1, 64)
				exp, _ = strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
			}
			if exp < -4 || exp >= prec {
				body = cExp(strconv.FormatFloat(ax, 'e', prec-1, 64))
				if !v.alt {
					m, e, _ := strings.Cut(body, "e")
					body = trimZeros(m) + "e" + e
				}
			} else {
				body = strconv.FormatFloat(ax, 'f', prec-1-exp, 64)
				if !v.alt {
					body = trimZeros(body)
				}
			}
		}
	}
	if v.verb >= 'A' && v.verb <= 'Z' {
		body = strings.ToUpper(body)
	}
	sign := ""
	switch {
	case neg:
		sign = "-"
	case v.plus:
		sign = "+"
	case v.space:
		sign = " "
	}
	pad := v.width - len(sign) - len(body)
	switch {
	case pad <= 0:
		return sign + body
	case v.minus:
		return sign + body + strings.Repeat(" ", pad)
	case v.zero && !math.IsInf(x, 0) && !math.IsNaN(x):
		return sign + strings.Repeat("0", pad) + body
	}
	return strings.Repeat(" ", pad) + sign + body
}

// cExp rewrites Go's exponent ("1e+06") in C's form with at least two
// digits ("1e+06" already is; Go prints "1e+100" and "1e-07" the same).
func cExp(s string) string {
	i := strings.IndexAny(s, "eE")
	if i < 0 || len(s)-i-2 >= 2 {
		return s
	}
	return s[:i+2] + "0" + s[i+2:]
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
