package awk

import (
	"math"
	"math/rand"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// builtin evaluates a call of a built-in function.
func (in *interp) builtin(c *CallExpr) value {
	a := c.Args
	arg := func(i int) value { return in.eval(a[i]) }
	sarg := func(i int) string { return in.toStr(in.eval(a[i])) }
	narg := func(i int) float64 { return in.eval(a[i]).toNum() }
	switch c.Name {
	case "length":
		if len(a) == 0 {
			return num(float64(charLen(in.record)))
		}
		if r, ok := a[0].(*VarRef); ok {
			if arr := in.arrayIfAny(r); arr != nil {
				return num(float64(len(arr)))
			}
		}
		return num(float64(charLen(sarg(0))))
	case "substr":
		s := sarg(0)
		m := narg(1)
		n := math.Inf(1)
		if len(a) == 3 {
			n = narg(2)
		}
		return str(substr(s, m, n))
	case "index":
		s, t := sarg(0), sarg(1)
		i := strings.Index(s, t)
		if i < 0 {
			return num(0)
		}
		return num(float64(charLen(s[:i]) + 1))
	case "split":
		return in.split(c)
	case "sub", "gsub":
		return in.sub(c)
	case "match":
		s := sarg(0)
		re := in.regexOf(a[1])
		loc := re.FindStringIndex(s)
		start, length := 0, -1
		if loc != nil {
			start = charLen(s[:loc[0]]) + 1
			length = charLen(s[loc[0]:loc[1]])
		}
		in.globals[gRSTART].v = num(float64(start))
		in.globals[gRLENGTH].v = num(float64(length))
		if len(a) == 3 {
			// gawk's third argument: the match and its groups
			r, ok := a[2].(*VarRef)
			if !ok {
				in.fatal("match: third argument must be an array")
			}
			arr := in.array(r)
			clear(arr)
			if m := re.FindStringSubmatch(s); m != nil {
				for i, g := range m {
					arr[itoa(i)] = strnum(g)
				}
			}
		}
		return num(float64(start))
	case "sprintf":
		vals := make([]value, len(a)-1)
		for i := range vals {
			vals[i] = arg(i + 1)
		}
		s, err := sprintf(sarg(0), vals, in.convfmt)
		if err != nil {
			in.fatal("sprintf: %v", err)
		}
		return str(s)
	case "tolower":
		return str(strings.ToLower(sarg(0)))
	case "toupper":
		return str(strings.ToUpper(sarg(0)))
	case "int":
		return num(math.Trunc(narg(0)))
	case "sqrt":
		return num(negNaN(math.Sqrt(narg(0))))
	case "exp":
		return num(math.Exp(narg(0)))
	case "log":
		return num(negNaN(math.Log(narg(0))))
	case "sin":
		return num(math.Sin(narg(0)))
	case "cos":
		return num(math.Cos(narg(0)))
	case "atan2":
		return num(math.Atan2(narg(0), narg(1)))
	case "rand":
		return num(in.rng.Float64())
	case "srand":
		prev := in.seed
		if len(a) == 0 {
			in.seed = float64(time.Now().Unix())
		} else {
			in.seed = narg(0)
		}
		in.rng = rand.New(rand.NewSource(int64(in.seed)))
		return num(prev)
	case "system":
		cmd := sarg(0)
		var stdin = in.e.Stdin
		if in.stdin != nil {
			stdin = in.stdin
		}
		return num(float64(in.runCmd(cmd, stdin, in.e.Stdout)))
	case "close":
		return num(float64(in.closeStream(sarg(0))))
	case "fflush":
		if len(a) == 0 {
			in.flushAll()
			return num(0)
		}
		name := sarg(0)
		if o := in.outputs[name]; o != nil {
			if o.w.Flush() != nil {
				return num(-1)
			}
			return num(0)
		}
		if name == "/dev/stdout" {
			if in.stdout.Flush() != nil {
				return num(-1)
			}
			return num(0)
		}
		return num(-1)
	}
	in.fatal("function %s not implemented", c.Name)
	return value{}
}

// arrayIfAny returns the array r names, or nil if r is not an array.
func (in *interp) arrayIfAny(r *VarRef) map[string]value {
	if !r.Local && r.Idx == gNF {
		return nil
	}
	c := in.cellOf(r)
	for c.arr == nil && c.ref != nil && c.v.k == kUninit {
		c = c.ref
	}
	return c.arr
}

// charLen counts characters: UTF-8 text counts runes, as gawk does in
// a UTF-8 locale.
func charLen(s string) int {
	return utf8.RuneCountInString(s)
}

// substr is awk's substr with its rounding and clamping: characters
// from position m (1-based) for n characters, clipped to the string.
func substr(s string, m, n float64) string {
	if math.IsNaN(m) || math.IsNaN(n) {
		return ""
	}
	ascii := isASCII(s)
	length := len(s)
	if !ascii {
		length = utf8.RuneCountInString(s)
	}
	start := math.Floor(m + 0.5)
	end := float64(length + 1)
	if !math.IsInf(n, 1) {
		end = start + math.Floor(n+0.5)
	}
	if start < 1 {
		start = 1
	}
	if end > float64(length+1) {
		end = float64(length + 1)
	}
	if end <= start {
		return ""
	}
	i, j := int(start)-1, int(end)-1
	if ascii {
		return s[i:j]
	}
	r := []rune(s)
	return string(r[i:j])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func itoa(i int) string { return numToStr(float64(i), "%.6g") }

// split implements split(s, a [, sep]).
func (in *interp) split(c *CallExpr) value {
	s := in.toStr(in.eval(c.Args[0]))
	arr := in.array(c.Args[1].(*VarRef))
	var parts []string
	switch {
	case len(c.Args) < 3:
		parts = in.splitFS(s, in.fs, false, nil)
	default:
		if re, ok := c.Args[2].(*RegexLit); ok {
			parts = splitRegex(s, re.Re, nil)
		} else {
			parts = in.splitFS(s, in.toStr(in.eval(c.Args[2])), false, nil)
		}
	}
	clear(arr)
	for i, p := range parts {
		arr[itoa(i+1)] = strnum(p)
	}
	return num(float64(len(parts)))
}

// splitFS splits s into fields by the field separator fs: " " means runs
// of blanks with leading and trailing ones ignored, another single
// character separates literally, "" splits characters, and anything
// longer is a regex. In paragraph mode newline always separates too.
func (in *interp) splitFS(s, fs string, para bool, dst []string) []string {
	if s == "" {
		return dst
	}
	switch {
	case fs == " ":
		for i := 0; i < len(s); {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
				i++
			}
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
				j++
			}
			if j > i {
				dst = append(dst, s[i:j])
			}
			i = j
		}
		return dst
	case fs == "":
		for _, r := range s {
			dst = append(dst, string(r))
		}
		return dst
	case len(fs) == 1 && fs != "\\" && !para:
		return append(dst, strings.Split(s, fs)...)
	}
	src := fs
	if len(fs) == 1 {
		src = regexp.QuoteMeta(fs)
	}
	if para {
		src = "(" + src + ")|\n"
	}
	re, err := in.regexes.get(src)
	if err != nil {
		in.fatal("%v", err)
	}
	return splitRegex(s, re, dst)
}

// splitRegex splits s at the non-empty matches of re.
func splitRegex(s string, re *regexp.Regexp, dst []string) []string {
	if s == "" {
		return dst
	}
	last := 0
	for _, loc := range re.FindAllStringIndex(s, -1) {
		if loc[1] == loc[0] {
			continue
		}
		dst = append(dst, s[last:loc[0]])
		last = loc[1]
	}
	return append(dst, s[last:])
}

// sub implements sub and gsub: "&" in the replacement is the matched
// text and "\&" a literal ampersand.
func (in *interp) sub(c *CallExpr) value {
	re := in.regexOf(c.Args[0])
	repl := in.toStr(in.eval(c.Args[1]))
	var target Expr = &FieldRef{&NumLit{0}}
	if len(c.Args) == 3 {
		target = c.Args[2]
	}
	var l lval
	lv := isLvalue(unparen(target))
	var s string
	if lv {
		l = in.resolve(target)
		s = in.toStr(in.lget(l))
	} else {
		s = in.toStr(in.eval(target))
	}
	limit := 1
	if c.Name == "gsub" {
		limit = -1
	}
	matches := re.FindAllStringIndex(s, limit)
	if len(matches) == 0 {
		return num(0)
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		for i := 0; i < len(repl); i++ {
			switch ch := repl[i]; {
			case ch == '\\' && i+1 < len(repl) && (repl[i+1] == '&' || repl[i+1] == '\\'):
				i++
				b.WriteByte(repl[i])
			case ch == '&':
				b.WriteString(s[m[0]:m[1]])
			default:
				b.WriteByte(ch)
			}
		}
		last = m[1]
		in.checkLen(b.Len())
	}
	b.WriteString(s[last:])
	if lv {
		in.lset(l, str(b.String()))
	}
	return num(float64(len(matches)))
}

// negNaN gives a NaN result the sign C's libm gives it on common
// hardware, so that log(-1) prints "-nan" as gawk and mawk print it.
func negNaN(n float64) float64 {
	if math.IsNaN(n) {
		return math.Copysign(n, -1)
	}
	return n
}
