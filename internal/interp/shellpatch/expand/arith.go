//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): arithmetic that assigns to an array element,
// (( count[$word]++ )), (( a[i] += 2 )), let "a[0]=1", which mvdan.cc/sh
// reads as a variable with no name and panics on, ending the whole
// shell (counting words in an associative array is a common idiom of
// published scripts); and text evaluated as an expression, as bash does
// with a variable's value and let's quoted arguments.

package expand

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// SkillrunIndexSetter is an Environ that sets one element of an array,
// as an assignment a[i]=v does (the interpreter's environment is one).
type SkillrunIndexSetter interface {
	SkillrunSetIndex(name string, index syntax.ArithmExpr, value string) error
}

// skRef is the variable an arithmetic assignment or increment names: a
// plain name, or an element name[key] whose key (an associative array's
// text, an indexed array's number) was evaluated once, as bash does:
// (( a[i++] += 2 )) moves i by one.
type skRef struct {
	name  string
	key   *syntax.Word // nil for a plain name
	assoc bool
}

// skArithRef is the variable x names; anything else is bash's error.
func skArithRef(cfg *Config, x syntax.ArithmExpr) (skRef, error) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return skRef{}, fmt.Errorf("attempted assignment to non-variable")
	}
	if name := w.Lit(); syntax.ValidName(name) {
		return skRef{name: name}, nil
	}
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Index != nil && syntax.ValidName(pe.Param.Value) &&
			!pe.Excl && !pe.Length && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil {
			r := skRef{name: pe.Param.Value}
			if cfg.Env.Get(r.name).Kind == Associative {
				k, err := Literal(cfg, skIndexWord(pe.Index))
				if err != nil {
					return skRef{}, err
				}
				r.key, r.assoc = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: k}}}, true
				return r, nil
			}
			n, err := Arithm(cfg, pe.Index)
			if err != nil {
				return skRef{}, err
			}
			r.key = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: strconv.Itoa(n)}}}
			return r, nil
		}
	}
	// A name made by an expansion: $(( x$foo = 42 )).
	if name, err := Literal(cfg, w); err != nil {
		return skRef{}, err
	} else if syntax.ValidName(name) && name != w.Lit() {
		return skRef{name: name}, nil
	}
	return skRef{}, fmt.Errorf("attempted assignment to non-variable")
}

// skIndexWord is an index as a word, for an associative array's key.
func skIndexWord(x syntax.ArithmExpr) *syntax.Word {
	if w, ok := x.(*syntax.Word); ok {
		return w
	}
	return &syntax.Word{}
}

func (r skRef) get(cfg *Config) string {
	if r.key == nil {
		return cfg.envGet(r.name)
	}
	s, _ := Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Param: &syntax.Lit{Value: r.name}, Index: r.key}}})
	return s
}

func (r skRef) set(cfg *Config, value string) error {
	if r.key == nil {
		return cfg.envSet(r.name, value)
	}
	s, ok := cfg.Env.(SkillrunIndexSetter)
	if !ok {
		return fmt.Errorf("%s: cannot assign to an array element here", r.name)
	}
	return s.SkillrunSetIndex(r.name, r.key, value)
}

// skArithDepth counts nested evaluations of text as arithmetic, which a
// variable holding its own name in an expression would make endless.
var skArithDepth atomic.Int32

// skMaxArithDepth is bash's "expression recursion level exceeded" bound.
const skMaxArithDepth = 1024

// skDynamic is the value of text met in arithmetic that is neither a
// number nor a name: bash evaluates it as an expression (x="1+2";
// $((x*2)) is 6; let "a[0]=7" assigns). Text that does not parse is
// bash's syntax error.
func skDynamic(cfg *Config, str string) (int, error) {
	t := strings.TrimSpace(str)
	if t == "" || t == "@" || t == "*" {
		// @ or * is the index of ${s[@]} on a string: 0, as before.
		return 0, nil
	}
	if syntax.ValidName(t) {
		// A name here is unset or empty: 0, or set -u's error.
		return 0, skNounset(cfg, t)
	}
	if skNumber(t) {
		n, err := skParseNum(t)
		return int(n), err
	}
	if skArithDepth.Add(1) > skMaxArithDepth {
		skArithDepth.Add(-1)
		return 0, fmt.Errorf("%s: expression recursion level exceeded", t)
	}
	defer skArithDepth.Add(-1)
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(t))
	if err != nil || expr == nil {
		return 0, &SkillrunArithError{Expr: t, Msg: "syntax error in expression"}
	}
	if end := int(expr.End().Offset()); end < len(t) {
		// Text after a whole expression: "12 34".
		return 0, &SkillrunArithError{Expr: t, Msg: "syntax error in expression", Token: strings.TrimSpace(t[end:])}
	}
	if w, ok := expr.(*syntax.Word); ok && w.Lit() == t {
		// Text that is one word of itself (an index such as @ that
		// mvdan.cc/sh reads here): what it read before, 0.
		return int(atoi(str)), nil
	}
	return Arithm(cfg, expr)
}

// skNumber reports whether s is an integer constant as atoi reads one
// (a sign, then digits, 0x..., or BASE#DIGITS).
func skNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '@' || c == '_') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}
