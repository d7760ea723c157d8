package filecmd

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// expr evaluates its arguments with GNU expr's grammar and arbitrary
// precision integers. Exit status: 0 for a non-null result, 1 for null
// or 0, 2 for syntax or arithmetic errors, 3 for other errors.
func expr(e *proc.Env, args []string) (status int) {
	args = args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
		_, _, st, _ := parseArgs(e, "expr", 1, proc.Getopt{}, args)
		return st
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return e.Usage("expr", 2, "missing operand")
	}
	p := &exprParser{args: args}
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(exprError)
			if !ok {
				panic(r)
			}
			e.Errorf("expr", "%s", err.msg)
			status = err.status
		}
	}()
	v := p.or(true)
	if p.i < len(p.args) {
		p.fail("syntax error: unexpected argument %s", q(p.args[p.i]))
	}
	fmt.Fprintln(e.Stdout, v.String())
	if v.null() {
		return 1
	}
	return 0
}

type exprError struct {
	msg    string
	status int
}

// An exprValue is an integer or a string, as in GNU expr.
type exprValue struct {
	n *big.Int // nil for a string
	s string
}

func (v exprValue) String() string {
	if v.n != nil {
		return v.n.String()
	}
	return v.s
}

// null reports whether v is false: 0, "", or a string of zeros.
func (v exprValue) null() bool {
	if v.n != nil {
		return v.n.Sign() == 0
	}
	s := strings.TrimPrefix(v.s, "-")
	return v.s == "" || strings.Trim(s, "0") == "" && s != ""
}

// toInt converts v to an integer if it looks like one.
func (v exprValue) toInt() (*big.Int, bool) {
	if v.n != nil {
		return v.n, true
	}
	s := strings.TrimPrefix(v.s, "-")
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return nil, false
	}
	n, ok := new(big.Int).SetString(v.s, 10)
	return n, ok
}

func intValue(n int64) exprValue { return exprValue{n: big.NewInt(n)} }

type exprParser struct {
	args []string
	i    int
}

func (p *exprParser) fail(format string, a ...any) {
	panic(exprError{fmt.Sprintf(format, a...), 2})
}

func (p *exprParser) accept(tok string) bool {
	if p.i < len(p.args) && p.args[p.i] == tok {
		p.i++
		return true
	}
	return false
}

func (p *exprParser) requireMore() {
	if p.i >= len(p.args) {
		p.fail("syntax error: missing argument after %s", q(p.args[p.i-1]))
	}
}

func (p *exprParser) or(eval bool) exprValue {
	l := p.and(eval)
	for p.accept("|") {
		r := p.and(eval && l.null())
		if l.null() {
			l = r
			if l.null() {
				l = intValue(0)
			}
		}
	}
	return l
}

func (p *exprParser) and(eval bool) exprValue {
	l := p.compare(eval)
	for p.accept("&") {
		r := p.compare(eval && !l.null())
		if l.null() || r.null() {
			l = intValue(0)
		}
	}
	return l
}

func (p *exprParser) compare(eval bool) exprValue {
	l := p.sum(eval)
	for {
		var op string
		for _, o := range []string{"<", "<=", "=", "==", "!=", ">=", ">"} {
			if p.accept(o) {
				op = o
				break
			}
		}
		if op == "" {
			return l
		}
		r := p.sum(eval)
		if !eval {
			continue
		}
		var c int
		ln, lok := l.toInt()
		rn, rok := r.toInt()
		if lok && rok {
			c = ln.Cmp(rn)
		} else {
			c = strings.Compare(l.String(), r.String())
		}
		t := map[string]bool{"<": c < 0, "<=": c <= 0, "=": c == 0, "==": c == 0, "!=": c != 0, ">=": c >= 0, ">": c > 0}[op]
		if t {
			l = intValue(1)
		} else {
			l = intValue(0)
		}
	}
}

func (p *exprParser) arith(eval bool, l, r exprValue, op string) exprValue {
	if !eval {
		return intValue(0)
	}
	a, aok := l.toInt()
	b, bok := r.toInt()
	if !aok || !bok {
		p.fail("non-integer argument")
	}
	n := new(big.Int)
	switch op {
	case "+":
		n.Add(a, b)
	case "-":
		n.Sub(a, b)
	case "*":
		n.Mul(a, b)
	case "/", "%":
		if b.Sign() == 0 {
			p.fail("division by zero")
		}
		if op == "/" {
			n.Quo(a, b)
		} else {
			n.Rem(a, b)
		}
	}
	return exprValue{n: n}
}

func (p *exprParser) sum(eval bool) exprValue {
	l := p.product(eval)
	for {
		switch {
		case p.accept("+"):
			l = p.arith(eval, l, p.product(eval), "+")
		case p.accept("-"):
			l = p.arith(eval, l, p.product(eval), "-")
		default:
			return l
		}
	}
}

func (p *exprParser) product(eval bool) exprValue {
	l := p.match(eval)
	for {
		var op string
		for _, o := range []string{"*", "/", "%"} {
			if p.accept(o) {
				op = o
				break
			}
		}
		if op == "" {
			return l
		}
		l = p.arith(eval, l, p.match(eval), op)
	}
}

func (p *exprParser) match(eval bool) exprValue {
	l := p.unary(eval)
	for p.accept(":") {
		r := p.unary(eval)
		if eval {
			l = p.colon(l, r)
		}
	}
	return l
}

func (p *exprParser) unary(eval bool) exprValue {
	switch {
	case p.accept("+"):
		p.requireMore()
		p.i++
		return exprValue{s: p.args[p.i-1]}
	case p.accept("length"):
		v := p.unary(eval)
		return intValue(int64(utf8.RuneCountInString(v.String())))
	case p.accept("match"):
		l := p.unary(eval)
		r := p.unary(eval)
		if eval {
			return p.colon(l, r)
		}
		return intValue(0)
	case p.accept("index"):
		s := p.unary(eval).String()
		chars := p.unary(eval).String()
		for i, r := range []rune(s) {
			if strings.ContainsRune(chars, r) {
				return intValue(int64(i + 1))
			}
		}
		return intValue(0)
	case p.accept("substr"):
		s := []rune(p.unary(eval).String())
		pos, pok := p.unary(eval).toInt()
		n, nok := p.unary(eval).toInt()
		if !pok || !nok || pos.Sign() <= 0 || n.Sign() <= 0 || !pos.IsInt64() || pos.Int64() > int64(len(s)) {
			return exprValue{s: ""}
		}
		start := pos.Int64() - 1
		end := int64(len(s))
		if n.IsInt64() && start+n.Int64() < end {
			end = start + n.Int64()
		}
		return exprValue{s: string(s[start:end])}
	}
	return p.primary(eval)
}

func (p *exprParser) primary(eval bool) exprValue {
	p.requireMore()
	if p.accept("(") {
		v := p.or(eval)
		if p.i >= len(p.args) {
			p.fail("syntax error: expecting ')' after %s", q(p.args[p.i-1]))
		}
		if !p.accept(")") {
			p.fail("syntax error: expecting ')' instead of %s", q(p.args[p.i]))
		}
		return v
	}
	if p.accept(")") {
		p.fail("syntax error: unexpected ')'")
	}
	p.i++
	return exprValue{s: p.args[p.i-1]}
}

// colon is STRING : REGEX: the regex (a POSIX basic one) is anchored at
// the start; the result is the first \( \) group or the match length.
func (p *exprParser) colon(l, r exprValue) exprValue {
	re, groups, err := compileBRE(r.String())
	if err != nil {
		panic(exprError{err.Error(), 2})
	}
	s := l.String()
	m := re.FindStringSubmatchIndex(s)
	if groups > 0 {
		if m == nil || m[2] < 0 {
			return exprValue{s: ""}
		}
		return exprValue{s: s[m[2]:m[3]]}
	}
	if m == nil {
		return intValue(0)
	}
	return intValue(int64(utf8.RuneCountInString(s[:m[1]])))
}

// reError is a pattern's syntax error. Its text is GNU regerror's
// message, capitalised as GNU prints it.
type reError string

func (e reError) Error() string { return string(e) }

// compileBRE translates a POSIX basic regular expression (with GNU's
// \| \+ \? extensions) into an equivalent Go regexp anchored at the
// start, using leftmost-longest matching as POSIX requires.
func compileBRE(pat string) (*regexp.Regexp, int, error) {
	var b strings.Builder
	groups, open := 0, 0
	atStart := true // where '*' is literal and '^' an anchor
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		start := atStart
		atStart = false
		switch c {
		case '\\':
			if i+1 >= len(pat) {
				return nil, 0, reError("Trailing backslash")
			}
			i++
			switch d := pat[i]; d {
			case '(':
				groups++
				open++
				b.WriteByte('(')
				atStart = true
			case ')':
				if open == 0 {
					return nil, 0, reError("Unmatched ) or \\)")
				}
				open--
				b.WriteByte(')')
			case '|':
				b.WriteByte('|')
				atStart = true
			case '{':
				j := strings.Index(pat[i:], "\\}")
				if j < 0 {
					return nil, 0, reError("Unmatched \\{")
				}
				b.WriteString("{" + pat[i+1:i+j] + "}")
				i += j + 1
			case '+', '?':
				b.WriteByte(d)
			case '<', '>':
				b.WriteString(`\b`)
			case 'w', 'W', 's', 'S', 'b', 'B':
				b.WriteByte('\\')
				b.WriteByte(d)
			case '`':
				b.WriteString(`\A`)
			case '\'':
				b.WriteString(`\z`)
			default:
				if d >= '1' && d <= '9' {
					return nil, 0, fmt.Errorf("back-references are not supported")
				}
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
		case '*':
			if start {
				b.WriteString(`\*`)
			} else {
				b.WriteByte('*')
			}
		case '^':
			if start {
				b.WriteByte('^')
				atStart = true
			} else {
				b.WriteString(`\^`)
			}
		case '$':
			if i == len(pat)-1 || strings.HasPrefix(pat[i+1:], `\)`) || strings.HasPrefix(pat[i+1:], `\|`) {
				b.WriteByte('$')
			} else {
				b.WriteString(`\$`)
			}
		case '[':
			j := i + 1
			if j < len(pat) && pat[j] == '^' {
				j++
			}
			if j < len(pat) && pat[j] == ']' {
				j++
			}
			for j < len(pat) && pat[j] != ']' {
				if pat[j] == '[' && j+1 < len(pat) && (pat[j+1] == ':' || pat[j+1] == '.' || pat[j+1] == '=') {
					k := strings.Index(pat[j+2:], string(pat[j+1])+"]")
					if k >= 0 {
						j += k + 4
						continue
					}
				}
				j++
			}
			if j >= len(pat) {
				return nil, 0, reError("Unmatched [, [^, [:, [., or [=")
			}
			// Inside brackets a backslash is literal and ']' first is a
			// member; Go needs both escaped.
			body := pat[i+1 : j]
			neg := strings.HasPrefix(body, "^")
			body = strings.TrimPrefix(body, "^")
			body = strings.ReplaceAll(body, `\`, `\\`)
			if strings.HasPrefix(body, "]") {
				body = `\]` + body[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			b.WriteString(body + "]")
			i = j
		case '.':
			b.WriteByte('.')
		case '(', ')', '|', '+', '?', '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if open > 0 {
		return nil, 0, reError("Unmatched ( or \\(")
	}
	re, err := regexp.Compile(`^(?s:` + b.String() + `)`)
	if err != nil {
		return nil, 0, reError("Invalid regular expression")
	}
	re.Longest()
	return re, groups, nil
}
