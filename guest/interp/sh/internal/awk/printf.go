package awk

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sprintf formats args by an awk printf format. It maps each C
// conversion onto Go's fmt, fixing what differs: %c of a number, %u, %i,
// %g's default precision, negative values in %x/%o/%u, and inf/nan.
func sprintf(format string, args []value, convfmt string) (string, error) {
	var b strings.Builder
	next := func() (value, error) {
		if len(args) == 0 {
			return value{}, errors.New("not enough arguments to satisfy format string")
		}
		v := args[0]
		args = args[1:]
		return v, nil
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		var flags []byte
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			flags = append(flags, format[i])
			i++
		}
		width, prec := -1, -1
		num := func() (int, error) {
			if i < len(format) && format[i] == '*' {
				i++
				v, err := next()
				if err != nil {
					return 0, err
				}
				n := v.toNum()
				if math.Abs(n) > float64(maxStringLen) || math.IsNaN(n) {
					return 0, errors.New("width or precision too large")
				}
				return int(n), nil
			}
			n := 0
			for i < len(format) && isDigit(format[i]) {
				n = n*10 + int(format[i]-'0')
				if n > maxStringLen {
					return 0, errors.New("width or precision too large")
				}
				i++
			}
			return n, nil
		}
		if i < len(format) && (format[i] == '*' || isDigit(format[i])) {
			w, err := num()
			if err != nil {
				return "", err
			}
			if w < 0 {
				flags = append(flags, '-')
				w = -w
			}
			width = w
		}
		if i < len(format) && format[i] == '.' {
			i++
			p, err := num()
			if err != nil {
				return "", err
			}
			if p >= 0 {
				prec = p
			}
		}
		for i < len(format) && strings.IndexByte("hlLqjzt", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		verb := format[i]
		spec := func(verb byte, prec int) string {
			s := "%" + string(flags)
			if width >= 0 {
				s += strconv.Itoa(width)
			}
			if prec >= 0 {
				s += "." + strconv.Itoa(prec)
			}
			return s + string(verb)
		}
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if strings.IndexByte("cdiouxXeEfFgGs", verb) < 0 {
			b.WriteString(format[start : i+1])
			continue
		}
		v, err := next()
		if err != nil {
			return "", err
		}
		switch verb {
		case 's':
			s := v.s
			if v.k == kNum {
				s = numToStr(v.n, convfmt)
			}
			b.WriteString(fmt.Sprintf(spec('s', prec), s))
		case 'c':
			var s string
			if v.k == kNum || v.k == kStrNum {
				n := int64(v.toNum())
				if n < 0 || n > utf8.MaxRune {
					n &= 0xff
				}
				if n < 0x80 {
					s = string([]byte{byte(n)})
				} else {
					s = string(rune(n))
				}
			} else if v.s != "" {
				r, size := utf8.DecodeRuneInString(v.s)
				if r == utf8.RuneError {
					s = v.s[:size]
				} else {
					s = string(r)
				}
			}
			b.WriteString(fmt.Sprintf(spec('s', -1), s))
		case 'd', 'i', 'o', 'u', 'x', 'X':
			n := v.toNum()
			if math.IsNaN(n) || math.IsInf(n, 0) {
				b.WriteString(fmt.Sprintf(spec('s', -1), specialFloat(n, flags, false)))
				continue
			}
			n = math.Trunc(n)
			switch {
			case verb == 'd' || verb == 'i':
				if math.Abs(n) < 1<<63 {
					b.WriteString(fmt.Sprintf(spec('d', prec), int64(n)))
				} else {
					b.WriteString(fmt.Sprintf(spec('s', -1), strconv.FormatFloat(n, 'f', 0, 64)))
				}
			default:
				var u uint64
				switch {
				case n < 0 && n >= -(1<<63):
					u = uint64(int64(n))
				case n >= 0 && n < 1<<64:
					u = uint64(n)
				default:
					u = math.MaxUint64
				}
				gv := verb
				if verb == 'u' {
					gv = 'd'
				}
				b.WriteString(fmt.Sprintf(spec(gv, prec), u))
			}
		default: // e E f F g G
			n := v.toNum()
			if math.IsNaN(n) || math.IsInf(n, 0) {
				upper := verb == 'E' || verb == 'F' || verb == 'G'
				b.WriteString(fmt.Sprintf(spec('s', -1), specialFloat(n, flags, upper)))
				continue
			}
			if prec < 0 {
				prec = 6
			}
			if (verb == 'g' || verb == 'G') && prec == 0 {
				prec = 1
			}
			s := fmt.Sprintf(spec(verb, prec), n)
			if verb == 'g' || verb == 'G' {
				// Go's %g drops the exponent's leading zero digit that C keeps.
				s = fixExponent(s)
			}
			b.WriteString(s)
		}
		if b.Len() > maxStringLen {
			return "", errors.New("string too long")
		}
	}
	return b.String(), nil
}

// specialFloat spells inf and nan as C does.
func specialFloat(n float64, flags []byte, upper bool) string {
	s := "nan"
	if math.IsInf(n, 0) {
		s = "inf"
	}
	switch {
	case math.Signbit(n):
		s = "-" + s
	case strings.IndexByte(string(flags), '+') >= 0:
		s = "+" + s
	case strings.IndexByte(string(flags), ' ') >= 0:
		s = " " + s
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s
}

// fixExponent makes "1e+6" into "1e+06" inside a formatted number.
func fixExponent(s string) string {
	i := strings.IndexAny(s, "eE")
	if i < 0 || i+2 >= len(s) {
		return s
	}
	j := i + 2
	k := j
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k-j == 1 {
		return s[:j] + "0" + s[j:]
	}
	return s
}
