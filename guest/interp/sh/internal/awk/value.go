package awk

import (
	"math"
	"strconv"
	"strings"
)

// kind says how a value compares: awk decides between numeric and string
// comparison from where a value came from, not only from its text.
type kind uint8

const (
	kUninit kind = iota // never assigned: "" and 0, compares as a number
	kNum                // result of arithmetic or a numeric constant
	kStr                // string constant or string operation result
	kStrNum             // input that looks numeric (fields, getline, -v)
)

// value is an awk scalar. For kStrNum both s and n are valid.
type value struct {
	k kind
	s string
	n float64
}

func num(n float64) value { return value{k: kNum, n: n} }
func str(s string) value  { return value{k: kStr, s: s} }

func boolNum(b bool) value {
	if b {
		return num(1)
	}
	return num(0)
}

// strnum makes a value from user input: it compares numerically when the
// text looks like a number, as POSIX requires for fields and the like.
func strnum(s string) value {
	if n, ok := looksNumeric(s); ok {
		return value{k: kStrNum, s: s, n: n}
	}
	return str(s)
}

// isNumeric reports whether v compares as a number.
func (v value) isNumeric() bool { return v.k != kStr }

// toNum converts v to a number; a string converts by its leading numeric
// prefix ("3abc" is 3, "abc" is 0).
func (v value) toNum() float64 {
	switch v.k {
	case kNum, kStrNum:
		return v.n
	case kStr:
		return strToNum(v.s)
	}
	return 0
}

// toBool is awk truth: non-zero numbers and non-empty strings.
func (v value) toBool() bool {
	switch v.k {
	case kNum, kStrNum:
		return v.n != 0
	case kStr:
		return v.s != ""
	}
	return false
}

// numToStr formats n as awk does: integral values as integers, others
// with format (CONVFMT or OFMT).
func numToStr(n float64, format string) string {
	switch {
	case math.IsNaN(n):
		if math.Signbit(n) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(n, 1):
		return "inf"
	case math.IsInf(n, -1):
		return "-inf"
	case n == math.Trunc(n):
		if n >= -1e18 && n <= 1e18 {
			return strconv.FormatInt(int64(n), 10)
		}
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	if format == "%.6g" {
		return cFormatG(n, 6)
	}
	s, err := sprintf(format, []value{num(n)}, "%.6g")
	if err != nil {
		return cFormatG(n, 6)
	}
	return s
}

// cFormatG is C's %.<prec>g, which Go's 'g' verb differs from in the
// exponent form (C always writes at least two exponent digits).
func cFormatG(n float64, prec int) string {
	if prec == 0 {
		prec = 1
	}
	s := strconv.FormatFloat(n, 'g', prec, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := exp[0]
		exp = exp[1:]
		if len(exp) < 2 {
			exp = "0" + exp
		}
		s = mant + "e" + string(sign) + exp
	}
	return s
}

// numPrefix returns the length of the longest prefix of s (after leading
// blanks) that is a decimal number, and where that number starts.
func numPrefix(s string) (start, end int) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	start = i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return start, start
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return start, i
}

// strToNum is awk's string-to-number conversion (like strtod on the
// leading decimal prefix, hexadecimal and "inf" not included).
func strToNum(s string) float64 {
	start, end := numPrefix(s)
	if end == start {
		return 0
	}
	n, err := strconv.ParseFloat(s[start:end], 64)
	if err != nil && !math.IsInf(n, 0) {
		return 0
	}
	return n
}

// looksNumeric reports whether all of s (but surrounding blanks) is a
// number, which makes input data a strnum.
func looksNumeric(s string) (float64, bool) {
	start, end := numPrefix(s)
	if end == start {
		return 0, false
	}
	for i := end; i < len(s); i++ {
		if !isBlank(s[i]) {
			return 0, false
		}
	}
	return strToNum(s[start:end]), true
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
