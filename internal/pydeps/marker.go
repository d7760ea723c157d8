package pydeps

import (
	"fmt"
	"strings"
)

// wasiEnv is the PEP 508 marker environment of the interpreter skillrun
// runs: Debian's CPython 3.11.2 built for WASI (internal/interp). The
// values are what that interpreter reports: sys.platform is "wasi", and
// platform.system() falls back to sys.platform because WASI has no
// os.uname. platform_machine is "wasm32", the target, so that markers
// excluding x86_64 or arm64 builds keep their meaning. platform_release
// and platform_version are empty, as platform.uname() leaves them there.
var wasiEnv = map[string]string{
	"python_version":                 "3.11",
	"python_full_version":            "3.11.2",
	"implementation_version":         "3.11.2",
	"implementation_name":            "cpython",
	"platform_python_implementation": "CPython",
	"sys_platform":                   "wasi",
	"os_name":                        "posix",
	"platform_system":                "wasi",
	"platform_machine":               "wasm32",
	"platform_release":               "",
	"platform_version":               "",
}

// legacyNames are PEP 345's dotted spellings, still found in old metadata.
var legacyNames = map[string]string{
	"os.name":                        "os_name",
	"sys.platform":                   "sys_platform",
	"platform.version":               "platform_version",
	"platform.machine":               "platform_machine",
	"platform.python_implementation": "platform_python_implementation",
	"python_implementation":          "platform_python_implementation",
}

// A marker is a parsed PEP 508 environment marker.
type marker interface {
	eval(extra string) bool
}

type markerAnd struct{ l, r marker }
type markerOr struct{ l, r marker }

// markerCmp compares two values, each a variable name or a quoted string
// (lVar and rVar say which).
type markerCmp struct {
	op         string
	lhs, rhs   string
	lVar, rVar bool
}

func (m markerAnd) eval(extra string) bool { return m.l.eval(extra) && m.r.eval(extra) }
func (m markerOr) eval(extra string) bool  { return m.l.eval(extra) || m.r.eval(extra) }

// value substitutes a variable. An unknown variable has no value: a
// comparison with it is false, whatever the operator, so that a marker
// naming something this environment cannot answer never pulls a
// dependency in (nor, through "!=", pulls one in by accident).
func value(s string, isVar bool, extra string) (string, bool) {
	if !isVar {
		return s, true
	}
	if s == "extra" {
		return extra, true
	}
	v, ok := wasiEnv[s]
	return v, ok
}

func (m markerCmp) eval(extra string) bool {
	l, ok := value(m.lhs, m.lVar, extra)
	if !ok {
		return false
	}
	r, ok := value(m.rhs, m.rVar, extra)
	if !ok {
		return false
	}
	if (m.lVar && m.lhs == "extra") || (m.rVar && m.rhs == "extra") {
		// Extra names compare normalized (PEP 685).
		l, r = Normalize(l), Normalize(r)
	}
	switch m.op {
	case "in":
		return strings.Contains(r, l)
	case "not in":
		return !strings.Contains(r, l)
	}
	// Like the packaging library: compare as versions when the right side
	// makes a valid specifier, else as strings.
	if spec, err := ParseSpecifier(m.op + r); err == nil && len(spec) == 1 {
		if v, err := ParseVersion(l); err == nil {
			return spec.Contains(v)
		}
	}
	switch m.op {
	case "==", "===":
		return l == r
	case "!=":
		return l != r
	case "<":
		return l < r
	case "<=":
		return l <= r
	case ">":
		return l > r
	case ">=":
		return l >= r
	}
	return false // ~= on strings has no meaning
}

// parseMarker parses a PEP 508 marker expression.
func parseMarker(s string) (marker, error) {
	p := &markerParser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	if len(p.toks) == 0 {
		return nil, fmt.Errorf("invalid marker %q: empty", s)
	}
	m, err := p.or()
	if err != nil {
		return nil, fmt.Errorf("invalid marker %q: %w", s, err)
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("invalid marker %q: unexpected %q", s, p.toks[p.pos].text)
	}
	return m, nil
}

// EvalMarker evaluates a PEP 508 marker for skillrun's interpreter
// (CPython 3.11 on WASI) with the given extra ("" for none). An empty
// marker is true.
func EvalMarker(s, extra string) (bool, error) {
	if strings.TrimSpace(s) == "" {
		return true, nil
	}
	m, err := parseMarker(s)
	if err != nil {
		return false, err
	}
	return m.eval(extra), nil
}

type markerTok struct {
	kind byte // 'v' variable, 's' string, 'o' operator, '(' ')' 'a' and, 'r' or
	text string
}

type markerParser struct {
	src  string
	toks []markerTok
	pos  int
}

func (p *markerParser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '(' || c == ')':
			p.toks = append(p.toks, markerTok{kind: c, text: string(c)})
			i++
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return fmt.Errorf("invalid marker %q: unterminated string", s)
			}
			p.toks = append(p.toks, markerTok{kind: 's', text: s[i+1 : i+1+end]})
			i += end + 2
		case strings.ContainsRune("=!<>~", rune(c)):
			j := i
			for j < len(s) && strings.ContainsRune("=!<>~", rune(s[j])) {
				j++
			}
			op := s[i:j]
			switch op {
			case "==", "!=", "<", "<=", ">", ">=", "~=", "===":
			default:
				return fmt.Errorf("invalid marker %q: unknown operator %q", s, op)
			}
			p.toks = append(p.toks, markerTok{kind: 'o', text: op})
			i = j
		case isIdentByte(c):
			j := i
			for j < len(s) && (isIdentByte(s[j]) || s[j] == '.') {
				j++
			}
			w := s[i:j]
			switch w {
			case "and":
				p.toks = append(p.toks, markerTok{kind: 'a', text: w})
			case "or":
				p.toks = append(p.toks, markerTok{kind: 'r', text: w})
			case "in":
				p.toks = append(p.toks, markerTok{kind: 'o', text: w})
			case "not":
				k := j
				for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
					k++
				}
				if !strings.HasPrefix(s[k:], "in") || (k+2 < len(s) && isIdentByte(s[k+2])) {
					return fmt.Errorf("invalid marker %q: \"not\" must be followed by \"in\"", s)
				}
				p.toks = append(p.toks, markerTok{kind: 'o', text: "not in"})
				j = k + 2
			default:
				if n, ok := legacyNames[w]; ok {
					w = n
				}
				p.toks = append(p.toks, markerTok{kind: 'v', text: w})
			}
			i = j
		default:
			return fmt.Errorf("invalid marker %q: unexpected %q", s, string(c))
		}
	}
	return nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *markerParser) peek() byte {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].kind
	}
	return 0
}

func (p *markerParser) or() (marker, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == 'r' {
		p.pos++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = markerOr{l, r}
	}
	return l, nil
}

func (p *markerParser) and() (marker, error) {
	l, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.peek() == 'a' {
		p.pos++
		r, err := p.atom()
		if err != nil {
			return nil, err
		}
		l = markerAnd{l, r}
	}
	return l, nil
}

func (p *markerParser) atom() (marker, error) {
	if p.peek() == '(' {
		p.pos++
		m, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("missing )")
		}
		p.pos++
		return m, nil
	}
	if p.pos+3 > len(p.toks) {
		return nil, fmt.Errorf("incomplete comparison")
	}
	l, op, r := p.toks[p.pos], p.toks[p.pos+1], p.toks[p.pos+2]
	if (l.kind != 'v' && l.kind != 's') || op.kind != 'o' || (r.kind != 'v' && r.kind != 's') {
		return nil, fmt.Errorf("expected a comparison at %q", l.text)
	}
	p.pos += 3
	return markerCmp{op: op.text, lhs: l.text, rhs: r.text, lVar: l.kind == 'v', rVar: r.kind == 'v'}, nil
}
