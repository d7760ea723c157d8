//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go), with expand/arith.go: arithmetic errors as
// bash reports them. mvdan.cc/sh reads a malformed constant (0x1X, 09,
// 2#A, 42x) as 0 and goes on, and its errors carry no expression; bash
// fails with "EXPR: message (error token is ...)" and abandons the
// command line (the interpreter's interp/arith2.go does that part).
// Shifts take their count modulo 64, as bash's (the machine's) do, and
// set -u applies to names read in arithmetic.

package expand

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SkillrunArithError is an error of arithmetic: Expr is the text of the
// outermost expression being evaluated, Msg bash's message, Token the
// error token bash names ("" for none).
type SkillrunArithError struct {
	Expr, Msg, Token string
	Pos              syntax.Pos
}

func (e *SkillrunArithError) Error() string {
	s := e.Expr + ": " + e.Msg
	if e.Token != "" {
		s += ` (error token is "` + e.Token + `")`
	}
	return s
}

// skArithErr is err of evaluating expr as SkillrunArithError, naming the
// outermost expression; an unset name under set -u, and errors of the
// environment (a readonly variable), stay as they are.
func skArithErr(expr syntax.ArithmExpr, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[UnsetParameterError](err); ok {
		return err
	}
	text := skArithSource(expr)
	var ae *SkillrunArithError
	if errors.As(err, &ae) {
		if text != "" {
			ae.Expr, ae.Pos = text, expr.Pos()
		}
		return ae
	}
	switch msg := err.Error(); msg {
	case "division by zero":
		return &SkillrunArithError{Expr: text, Msg: "division by 0", Pos: expr.Pos()}
	case "exponent less than 0", "attempted assignment to non-variable":
		return &SkillrunArithError{Expr: text, Msg: msg, Pos: expr.Pos()}
	}
	return err
}

// skArithSource is expr as text, for messages.
func skArithSource(expr syntax.ArithmExpr) string {
	var sb strings.Builder
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.ArithmExp{X: expr}}}
	if err := syntax.NewPrinter().Print(&sb, w); err != nil {
		return ""
	}
	s := strings.TrimSuffix(strings.TrimPrefix(sb.String(), "$(("), "))")
	return strings.TrimSpace(strings.ReplaceAll(s, "\\\n", ""))
}

// skSglQuoted reports whether w has single quotes of its own, which
// bash does not take in arithmetic: $(( '1' + 2 )) is a syntax error.
func skSglQuoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.SglQuoted); ok {
			return true
		}
	}
	return false
}

// skNounset is bash's set -u error for a name arithmetic reads unset.
func skNounset(cfg *Config, name string) error {
	if cfg.NoUnset && syntax.ValidName(name) && !cfg.Env.Get(name).IsSet() {
		return UnsetParameterError{Node: &syntax.ParamExp{Param: &syntax.Lit{Value: name}}, Message: "unbound variable"}
	}
	return nil
}

// skParseNum reads an integer constant as bash does: decimal, 0 for
// octal, 0x for hexadecimal, BASE#DIGITS for bases 2 to 64; a digit
// outside the base is an error, as is a base outside 2 to 64.
func skParseNum(s string) (int64, error) {
	t := s
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	base := int64(10)
	digits := t
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, digits = 16, t[2:]
	case strings.Contains(t, "#") && t[0] != '0':
		b, d, _ := strings.Cut(t, "#")
		base = 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, &SkillrunArithError{Msg: "invalid number", Token: s}
			}
			base = base*10 + int64(c-'0')
			if base > 64 {
				break
			}
		}
		if base < 2 || base > 64 {
			return 0, &SkillrunArithError{Msg: "invalid arithmetic base", Token: s}
		}
		digits = d
	case strings.HasPrefix(t, "0"):
		base = 8
	}
	var n int64
	for _, c := range digits {
		var d int64
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case c >= 'a' && c <= 'z':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int64(c - 'A')
			if base > 36 {
				d += 36
			} else {
				d += 10
			}
		case c == '@':
			d = 62
		case c == '_':
			d = 63
		default:
			return 0, &SkillrunArithError{Msg: "invalid number", Token: s}
		}
		if d >= base {
			return 0, &SkillrunArithError{Msg: "value too great for base", Token: s}
		}
		n = n*base + d
	}
	if neg {
		n = -n
	}
	return n, nil
}

// skArithmExp is the value of $(( x )), where bash takes no single
// quotes ($(( '1' + 2 )) is an error) though (( )) and let do.
func skArithmExp(cfg *Config, x syntax.ArithmExpr) (int, error) {
	if skHasSglQuoted(x) {
		return 0, &SkillrunArithError{Expr: skArithSource(x), Msg: "syntax error: operand expected", Pos: x.Pos()}
	}
	return Arithm(cfg, x)
}

// skHasSglQuoted reports whether an operand of x is single-quoted.
func skHasSglQuoted(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		return skSglQuoted(x)
	case *syntax.ParenArithm:
		return skHasSglQuoted(x.X)
	case *syntax.UnaryArithm:
		return skHasSglQuoted(x.X)
	case *syntax.BinaryArithm:
		return skHasSglQuoted(x.X) || skHasSglQuoted(x.Y)
	}
	return false
}

// SkillrunArithText is the value of text as an arithmetic expression,
// as [[ x -eq y ]] reads its operands: [[ 1+2 -eq 3 ]] is true.
func SkillrunArithText(cfg *Config, text string) (int, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, nil
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(t))
	if err != nil || expr == nil {
		return 0, &SkillrunArithError{Expr: t, Msg: "syntax error in expression"}
	}
	if end := int(expr.End().Offset()); end < len(t) {
		return 0, &SkillrunArithError{Expr: t, Msg: "syntax error in expression", Token: strings.TrimSpace(t[end:])}
	}
	n, err := Arithm(cfg, expr)
	if ae, ok := err.(*SkillrunArithError); ok {
		ae.Expr = t
	}
	return n, err
}

// skArithVal is the value of the name str in arithmetic: an associative
// array's is its element "0", as bash has it (an indexed array's is its
// first element already).
func skArithVal(cfg *Config, str string) string {
	if vr := cfg.Env.Get(str); vr.Kind == Associative {
		return vr.Map["0"]
	}
	return cfg.envGet(str)
}
