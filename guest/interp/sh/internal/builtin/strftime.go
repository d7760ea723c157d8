package builtin

import (
	"strconv"
	"strings"
	"time"
)

// strftimeLimit is the size of bash's buffer for %(fmt)T: a result that
// does not fit in it (including the terminating NUL) prints nothing.
const strftimeLimit = 128

var (
	weekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// strftime formats t like C's strftime in the C locale, with glibc's flags
// (- _ 0 ^ #) and field widths. Unknown conversions are copied verbatim.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		var flag byte
		upper := false
		for i < len(format) && strings.IndexByte("-_0^#", format[i]) >= 0 {
			if format[i] == '^' || format[i] == '#' {
				upper = true
			} else {
				flag = format[i]
			}
			i++
		}
		width := -1
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			if width < 0 {
				width = 0
			}
			if width < 1024 {
				width = width*10 + int(format[i]-'0')
			}
			i++
		}
		for i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i == len(format) {
			b.WriteString(format[start:])
			break
		}
		text, numeric, defWidth := strftimeConv(format[i], t)
		if text == "" && !strings.ContainsRune("%nt", rune(format[i])) && defWidth < 0 {
			b.WriteString(format[start : i+1])
			continue
		}
		if upper {
			text = strings.ToUpper(text)
		}
		b.WriteString(strftimePad(text, numeric, defWidth, flag, width))
	}
	return b.String()
}

// strftimePad applies a flag and width to one conversion. Numbers default
// to zero padding (or blank padding for %e %k %l) up to defWidth.
func strftimePad(text string, numeric bool, defWidth int, flag byte, width int) string {
	padc := byte(' ')
	if numeric {
		padc = '0'
		if defWidth < 0 { // blank padded by default
			padc = ' '
			defWidth = -defWidth
		}
		text = strings.TrimLeft(text, " ")
		neg := strings.HasPrefix(text, "-")
		if neg {
			text = text[1:]
		}
		text = strings.TrimLeft(text, "0")
		if text == "" {
			text = "0"
		}
		if neg {
			text = "-" + text
		}
		if width < 0 {
			width = defWidth
		}
	}
	switch flag {
	case '-':
		return text
	case '_':
		padc = ' '
	case '0':
		padc = '0'
	}
	if n := width - len(text); n > 0 {
		if padc == '0' && strings.HasPrefix(text, "-") {
			return "-" + strings.Repeat("0", n) + text[1:]
		}
		return strings.Repeat(string(padc), n) + text
	}
	return text
}

// strftimeConv returns the text of conversion c for t, whether it is a
// number, and its default width (negative: padded with blanks).
func strftimeConv(c byte, t time.Time) (text string, numeric bool, defWidth int) {
	num := func(v, w int) (string, bool, int) { return strconv.Itoa(v), true, w }
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	switch c {
	case 'a':
		return weekdays[t.Weekday()][:3], false, 0
	case 'A':
		return weekdays[t.Weekday()], false, 0
	case 'b', 'h':
		return months[t.Month()-1][:3], false, 0
	case 'B':
		return months[t.Month()-1], false, 0
	case 'c':
		return strftime("%a %b %e %H:%M:%S %Y", t), false, 0
	case 'C':
		return num(t.Year()/100, 2)
	case 'd':
		return num(t.Day(), 2)
	case 'D':
		return strftime("%m/%d/%y", t), false, 0
	case 'e':
		return num(t.Day(), -2)
	case 'F':
		return strftime("%Y-%m-%d", t), false, 0
	case 'g':
		y, _ := t.ISOWeek()
		return num((y%100+100)%100, 2)
	case 'G':
		y, _ := t.ISOWeek()
		return num(y, 1)
	case 'H':
		return num(t.Hour(), 2)
	case 'I':
		return num(hour12, 2)
	case 'j':
		return num(t.YearDay(), 3)
	case 'k':
		return num(t.Hour(), -2)
	case 'l':
		return num(hour12, -2)
	case 'm':
		return num(int(t.Month()), 2)
	case 'M':
		return num(t.Minute(), 2)
	case 'n':
		return "\n", false, 0
	case 'p':
		if t.Hour() < 12 {
			return "AM", false, 0
		}
		return "PM", false, 0
	case 'P':
		if t.Hour() < 12 {
			return "am", false, 0
		}
		return "pm", false, 0
	case 'r':
		return strftime("%I:%M:%S %p", t), false, 0
	case 'R':
		return strftime("%H:%M", t), false, 0
	case 's':
		return num(int(t.Unix()), 1)
	case 'S':
		return num(t.Second(), 2)
	case 't':
		return "\t", false, 0
	case 'T', 'X':
		return strftime("%H:%M:%S", t), false, 0
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return num(wd, 1)
	case 'U':
		return num((t.YearDay()+6-int(t.Weekday()))/7, 2)
	case 'V':
		_, w := t.ISOWeek()
		return num(w, 2)
	case 'w':
		return num(int(t.Weekday()), 1)
	case 'W':
		return num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2)
	case 'x':
		return strftime("%m/%d/%y", t), false, 0
	case 'y':
		return num((t.Year()%100+100)%100, 2)
	case 'Y':
		return num(t.Year(), 1)
	case 'z':
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		return string(sign) + strftimePad(strconv.Itoa(off/3600*100+off%3600/60), true, 4, 0, -1), false, 0
	case 'Z':
		name, _ := t.Zone()
		return name, false, 0
	case '%':
		return "%", false, 0
	}
	return "", false, -1
}
