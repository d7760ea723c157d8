package filecmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// strftime formats t as GNU date's +FORMAT does in the C locale,
// including GNU's flags (- _ 0 ^ #), field widths, the E and O
// modifiers (ignored in the C locale) and %:z, %::z and %:::z.
// Unknown conversions are copied through, as GNU does.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		start := i
		for i+1 < len(format) && strings.IndexByte("_-0^#", format[i+1]) >= 0 {
			i++
		}
		flags := format[start+1 : i+1]
		j := i + 1
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		width := -1
		if j > i+1 {
			width, _ = strconv.Atoi(format[i+1 : j])
		}
		i = j
		colons := 0
		for i < len(format) && format[i] == ':' {
			colons++
			i++
		}
		for i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		s, ok := strftimeField(t, format[i], colons, flags, width)
		if !ok {
			b.WriteString(format[start : i+1])
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}

// strftimeField formats one conversion with its flags and width.
func strftimeField(t time.Time, c byte, colons int, flags string, width int) (string, bool) {
	num := func(n, w int, pad byte) (string, byte, int, bool) { return strconv.Itoa(n), pad, w, true }
	var s string
	pad := byte(0) // 0: text, padded with spaces only when a width asks
	defWidth := 0
	numeric := false
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	isoYear, isoWeek := t.ISOWeek()
	upper, swap := false, false
	switch c {
	case 'a':
		s, swap = t.Weekday().String()[:3], true
	case 'A':
		s, swap = t.Weekday().String(), true
	case 'b', 'h':
		s, swap = t.Month().String()[:3], true
	case 'B':
		s, swap = t.Month().String(), true
	case 'c':
		s = strftime(t, "%a %b %e %H:%M:%S %Y")
	case 'C':
		s, pad, defWidth, numeric = num(floorDiv(t.Year(), 100), 2, '0')
	case 'd':
		s, pad, defWidth, numeric = num(t.Day(), 2, '0')
	case 'D', 'x':
		s = strftime(t, "%m/%d/%y")
	case 'e':
		s, pad, defWidth, numeric = num(t.Day(), 2, ' ')
	case 'F':
		s = strftime(t, "%Y-%m-%d")
	case 'g':
		s, pad, defWidth, numeric = num(((isoYear%100)+100)%100, 2, '0')
	case 'G':
		s, pad, defWidth, numeric = num(isoYear, 4, '0')
	case 'H':
		s, pad, defWidth, numeric = num(t.Hour(), 2, '0')
	case 'I':
		s, pad, defWidth, numeric = num(hour12, 2, '0')
	case 'j':
		s, pad, defWidth, numeric = num(t.YearDay(), 3, '0')
	case 'k':
		s, pad, defWidth, numeric = num(t.Hour(), 2, ' ')
	case 'l':
		s, pad, defWidth, numeric = num(hour12, 2, ' ')
	case 'm':
		s, pad, defWidth, numeric = num(int(t.Month()), 2, '0')
	case 'M':
		s, pad, defWidth, numeric = num(t.Minute(), 2, '0')
	case 'n':
		s = "\n"
	case 'N':
		ns := fmt.Sprintf("%09d", t.Nanosecond())
		if width > 0 && width < 9 {
			return ns[:width], true
		}
		if width > 9 {
			return ns + strings.Repeat("0", width-9), true
		}
		return ns, true
	case 'p':
		s = "AM"
		if t.Hour() >= 12 {
			s = "PM"
		}
		if strings.Contains(flags, "#") {
			s = strings.ToLower(s)
			flags = strings.ReplaceAll(flags, "#", "")
		}
	case 'P':
		s = "am"
		if t.Hour() >= 12 {
			s = "pm"
		}
	case 'q':
		s, pad, defWidth, numeric = num((int(t.Month())+2)/3, 1, '0')
	case 'r':
		s = strftime(t, "%I:%M:%S %p")
	case 'R':
		s = strftime(t, "%H:%M")
	case 's':
		s, pad, defWidth, numeric = strconv.FormatInt(t.Unix(), 10), '0', 1, true
	case 'S':
		s, pad, defWidth, numeric = num(t.Second(), 2, '0')
	case 't':
		s = "\t"
	case 'T', 'X':
		s = strftime(t, "%H:%M:%S")
	case 'u':
		s, pad, defWidth, numeric = num((int(t.Weekday())+6)%7+1, 1, '0')
	case 'U':
		s, pad, defWidth, numeric = num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0')
	case 'V':
		s, pad, defWidth, numeric = num(isoWeek, 2, '0')
	case 'w':
		s, pad, defWidth, numeric = num(int(t.Weekday()), 1, '0')
	case 'W':
		s, pad, defWidth, numeric = num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0')
	case 'y':
		s, pad, defWidth, numeric = num(((t.Year()%100)+100)%100, 2, '0')
	case 'Y':
		s, pad, _, numeric = num(t.Year(), 4, '0')
		defWidth = 1
	case 'z':
		s = zoneOffset(t, colons)
		pad, numeric = '0', true
	case 'Z':
		s, _ = t.Zone()
		if strings.Contains(flags, "#") {
			s = strings.ToLower(s)
			flags = strings.ReplaceAll(flags, "#", "")
		}
	case '%':
		s = "%"
	default:
		return "", false
	}
	if colons > 0 && c != 'z' {
		return "", false
	}
	for _, f := range flags {
		switch f {
		case '^':
			upper = true
		case '#':
			if swap {
				upper = true
			}
		}
	}
	if upper {
		s = strings.ToUpper(s)
	}
	// The last padding flag wins; '-' drops padding entirely.
	for i := len(flags) - 1; i >= 0; i-- {
		switch flags[i] {
		case '-':
			return s, true
		case '_':
			pad = ' '
		case '0':
			pad = '0'
		default:
			continue
		}
		break
	}
	if width < 0 {
		width = defWidth
	}
	if pad == 0 {
		pad = ' '
	}
	neg := numeric && strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")
	if n := width - len(s); n > 0 {
		if pad == '0' && neg {
			return s[:1] + strings.Repeat("0", n) + s[1:], true
		}
		return strings.Repeat(string(pad), n) + s, true
	}
	return s, true
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// zoneOffset formats t's UTC offset as %z (+hhmm), %:z (+hh:mm),
// %::z (+hh:mm:ss) or %:::z (as short as it can be: +hh, +hh:mm).
func zoneOffset(t time.Time, colons int) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	h, m, s := off/3600, off/60%60, off%60
	switch colons {
	case 0:
		return fmt.Sprintf("%c%02d%02d", sign, h, m)
	case 1:
		return fmt.Sprintf("%c%02d:%02d", sign, h, m)
	case 2:
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, h, m, s)
	}
	switch {
	case s != 0:
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, h, m, s)
	case m != 0:
		return fmt.Sprintf("%c%02d:%02d", sign, h, m)
	}
	return fmt.Sprintf("%c%02d", sign, h)
}
