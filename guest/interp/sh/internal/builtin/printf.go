package builtin

import (
	"strings"
	"time"
)

// maxField bounds field widths and precisions. Bash passes them to the C
// library unchecked, so %999999999d prints a gigabyte of blanks; here a
// value above the bound is an error instead of a way to exhaust memory.
const maxField = 1 << 20

// maxOutput bounds the output of one printf call for the same reason: a
// format is reused for every remaining argument, each use may pad to
// maxField, and the shell keeps the result in memory.
const maxOutput = 64 << 20

// now and startTime give %(fmt)T its clock: -1 means now and -2 the time
// the shell started, which for the guest is when this package initialised.
var (
	now       = time.Now
	startTime = time.Now()
)

// printer holds the state of one printf invocation.
type printer struct {
	out    []byte
	errs   strings.Builder
	args   []string
	status int
}

func (p *printer) warn(msg string) {
	p.errs.WriteString(msg)
	p.errs.WriteByte('\n')
}

// next returns the next argument, and false when there are none left (the
// conversion then uses an empty string or zero, as in bash).
func (p *printer) next() (string, bool) {
	if len(p.args) == 0 {
		return "", false
	}
	a := p.args[0]
	p.args = p.args[1:]
	return a, true
}

// Printf formats like bash's printf builtin. The format is reused while
// arguments remain, as long as each pass consumes some. It understands the
// escapes \a \b \e \E \f \n \r \t \v \\ \' \" \? \NNN \xHH \uHHHH
// \UHHHHHHHH; the conversions %d %i %o %u %x %X %c %s %b %q %Q %f %F %e %E
// %g %G %a %A %% and %(fmt)T with the flags - + space # 0 ', field width
// and precision, both possibly *. Numeric arguments may be decimal, 0octal,
// 0xhex or 'c (the character's code point); an argument that is not
// entirely a number is reported in errs, its leading number is used and
// the status becomes 1. Invalid conversions stop the output with status 1.
func Printf(format string, args []string) (out string, errs string, status int) {
	p := &printer{args: args}
	for {
		before := len(p.args)
		if !p.run(format) {
			break
		}
		if len(p.args) == 0 || len(p.args) == before || len(p.args) == len(args) {
			break
		}
	}
	return string(p.out), p.errs.String(), p.status
}

// run formats one pass over the format. It returns false if output must
// stop: a fatal format error or \c in a %b argument.
func (p *printer) run(f string) bool {
	for i := 0; i < len(f); {
		if len(p.out) > maxOutput {
			p.warn("printf: output too large")
			p.status = 1
			return false
		}
		c := f[i]
		if c == '\\' {
			var n int
			var warn string
			p.out, n, _, warn = printfEscape(p.out, f[i+1:], dialectFormat)
			if warn != "" {
				p.warn("printf: " + warn)
			}
			i += 1 + n
			continue
		}
		if c != '%' {
			j := i + 1
			for j < len(f) && f[j] != '%' && f[j] != '\\' {
				j++
			}
			p.out = append(p.out, f[i:j]...)
			i = j
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			p.out = append(p.out, '%')
			i += 2
			continue
		}
		next, ok := p.conversion(f, i)
		if !ok {
			return false
		}
		i = next
	}
	return true
}

// conversion formats the conversion specification starting at f[start]
// (a '%') and returns the index after it; ok is false if output must stop.
func (p *printer) conversion(f string, start int) (next int, ok bool) {
	sp := intSpec{prec: -1}
	i := start + 1
	for ; i < len(f) && strings.IndexByte("#'-+ 0", f[i]) >= 0; i++ {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		}
	}
	if i < len(f) && f[i] == '*' {
		i++
		w := p.starArg()
		if w < 0 {
			sp.minus = true
			w = -w
		}
		sp.width = int(min(w, maxField+1))
	} else {
		var n int
		n, i = scanField(f, i)
		sp.width = n
	}
	tooBig := sp.width > maxField
	if i < len(f) && f[i] == '.' {
		i++
		switch {
		case i < len(f) && f[i] == '*':
			i++
			if pr := p.starArg(); pr >= 0 {
				sp.prec = int(min(pr, maxField+1))
			}
		case i < len(f) && f[i] == '-':
			_, i = scanField(f, i+1)
		default:
			sp.prec, i = scanField(f, i)
		}
	}
	tooBig = tooBig || sp.prec > maxField
	for i < len(f) && strings.IndexByte("hjlLtz", f[i]) >= 0 {
		i++
	}
	if i == len(f) {
		p.warn("printf: `" + f[start:] + "': missing format character")
		p.status = 1
		return i, false
	}
	conv := f[i]
	if tooBig && strings.IndexByte("cs(bqQdiouxXeEfFgGaA", conv) >= 0 {
		p.warn("printf: `" + f[start:i+1] + "': field width or precision too large")
		p.status = 1
		return i, false
	}
	i++
	switch conv {
	case 'c':
		a, _ := p.next()
		b := "\x00"
		if a != "" {
			b = a[:1]
		}
		p.out = append(p.out, padString(intSpec{minus: sp.minus, width: sp.width, prec: -1}, b)...)
	case 's':
		a, _ := p.next()
		p.out = append(p.out, padString(sp, a)...)
	case 'b':
		a, _ := p.next()
		s, stop, warns := expandPercentB(a)
		for _, w := range warns {
			p.warn("printf: " + w)
		}
		p.out = append(p.out, padString(sp, s)...)
		if stop {
			return i, false
		}
	case 'q':
		a, _ := p.next()
		p.out = append(p.out, padString(sp, shellQuote(a))...)
	case 'Q':
		a, _ := p.next()
		if sp.prec >= 0 && sp.prec < len(a) {
			a = a[:sp.prec]
		}
		sp.prec = -1
		p.out = append(p.out, padString(sp, shellQuote(a))...)
	case 'd', 'i':
		a, _ := p.next()
		v := p.argInt(a)
		mag := uint64(v)
		if v < 0 {
			mag = -mag
		}
		p.out = append(p.out, formatInt(sp, conv, v < 0, mag)...)
	case 'o', 'u', 'x', 'X':
		a, _ := p.next()
		p.out = append(p.out, formatInt(sp, conv, false, p.argUint(a))...)
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		a, _ := p.next()
		p.out = append(p.out, formatFloat(sp, conv, p.argFloat(a))...)
	case 'n':
		// %n would store the byte count in a variable; consume the name.
		p.next()
	case '(':
		return p.timeConversion(f, start, i, sp)
	default:
		p.warn("printf: `" + string(conv) + "': invalid format character")
		p.status = 1
		return i, false
	}
	return i, true
}

// scanField reads the decimal digits of a width or precision at f[i:],
// saturating just above maxField.
func scanField(f string, i int) (n, next int) {
	for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
		if n <= maxField {
			n = n*10 + int(f[i]-'0')
		}
	}
	return n, i
}

// starArg reads a width or precision given as * from the arguments, like
// bash's getint: an int, clamped with a warning when out of range.
func (p *printer) starArg() int64 {
	a, ok := p.next()
	if !ok {
		return 0
	}
	v := p.argInt(a)
	if v > 1<<31-1 || v < -1<<31 {
		p.warn("printf: warning: " + a + ": Numerical result out of range")
		v = min(max(v, -1<<31), 1<<31-1)
	}
	return v
}

// timeConversion formats %(fmt)T; open is the index after the '('. The
// argument is seconds since the epoch, -1 (or none) meaning now and -2 the
// shell's start. A '(' not closed by ")T" is printed as a plain '%'.
func (p *printer) timeConversion(f string, start, open int, sp intSpec) (int, bool) {
	depth := 1
	j := open
	for ; j < len(f); j++ {
		if f[j] == '(' {
			depth++
		} else if f[j] == ')' {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	if j+1 >= len(f) || f[j+1] != 'T' {
		bad := ""
		if j+1 < len(f) {
			bad = f[j+1 : j+2]
		}
		p.warn("printf: warning: `" + bad + "': invalid time format specification")
		p.out = append(p.out, '%')
		return start + 1, true
	}
	tf := f[open:j]
	if tf == "" {
		tf = "%X"
	}
	secs := int64(-1)
	if a, ok := p.next(); ok {
		secs = p.argInt(a)
	}
	var t time.Time
	switch secs {
	case -1:
		t = now()
	case -2:
		t = startTime
	default:
		t = time.Unix(secs, 0)
	}
	s := strftime(tf, t.Local())
	if len(s) >= strftimeLimit {
		s = ""
	}
	p.out = append(p.out, padString(sp, s)...)
	return j + 2, true
}

// PrintfArgs runs a whole printf command line (args without the leading
// "printf"): it handles -v VAR and --, then formats with Printf. When
// varName is set, the caller assigns out to that variable instead of
// printing it. Usage errors and invalid names give status 2 as in bash.
func PrintfArgs(args []string) (varName, out, errs string, status int) {
	const usage = "printf: usage: printf [-v var] format [arguments]\n"
	haveVar := false
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if a[1] != 'v' {
			return "", "", "printf: " + a[:2] + ": invalid option\n" + usage, 2
		}
		haveVar = true
		switch {
		case len(a) > 2:
			varName = a[2:]
			args = args[1:]
		case len(args) > 1:
			varName = args[1]
			args = args[2:]
		default:
			return "", "", "printf: -v: option requires an argument\n" + usage, 2
		}
	}
	if len(args) == 0 {
		return "", "", usage, 2
	}
	if haveVar && !isAssignable(varName) {
		return "", "", "printf: `" + varName + "': not a valid identifier\n", 2
	}
	out, errs, status = Printf(args[0], args[1:])
	return varName, out, errs, status
}
