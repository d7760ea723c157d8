//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): bash's indirect expansion ${!ref} names its
// target with the value of ref, and every operator after it applies to
// the target: ${!ref-default}, ${!ref:=x}, ${!ref#pat}, ${!ref/a/b},
// ${!ref@Q}, and a target that is an array element (ref='a[1]'), a whole
// array (ref='a[@]'), a positional or special parameter (ref=1, '@',
// '?'). mvdan.cc/sh only looks the value up as a plain name and ignores
// the operators; scripts pass variable names to functions this way.

package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SkillrunCommandError is an expansion error that fails the command at
// hand with status 1 and lets the shell go on, as bash does with an
// invalid indirect reference.
type SkillrunCommandError struct{ Msg string }

func (e SkillrunCommandError) Error() string { return e.Msg }

// SkillrunFailsCommand reports whether err is a SkillrunCommandError.
func SkillrunFailsCommand(err error) bool {
	_, ok := err.(SkillrunCommandError)
	return ok
}

// skIndirect is pe with its indirection resolved: the expansion of the
// parameter the value of pe's parameter names, with pe's operators. It
// is nil for any other expansion, and for ${!a[@]} and ${!a[*]} without
// an operator (the keys of a) and ${!nameref} (the name it refers to),
// which mvdan.cc/sh expands.
func (cfg *Config) skIndirect(pe *syntax.ParamExp) (*syntax.ParamExp, error) {
	if pe == nil || pe.Param == nil || !pe.Excl || pe.Names != 0 || pe.Length || pe.Width || pe.IsSet {
		return nil, nil
	}
	name := pe.Param.Value
	list := false
	switch nodeLit(pe.Index) {
	case "@", "*":
		if pe.Slice == nil && pe.Repl == nil && pe.Exp == nil {
			return nil, nil // keys
		}
		list = true
	}
	vr := cfg.Env.Get(name)
	if pe.Index == nil && vr.Kind == NameRef {
		return nil, nil
	}
	ref := &syntax.ParamExp{Dollar: pe.Dollar, Rbrace: pe.Rbrace, Param: pe.Param, Index: pe.Index}
	if name == "LINENO" {
		vr = Variable{Set: true, Kind: String}
	}
	if !vr.IsSet() && (pe.Index == nil || list) {
		return nil, SkillrunCommandError{name + ": invalid indirect expansion"}
	}
	var target string
	if list {
		elems, _, ok := cfg.listElems(ref)
		if !ok || len(elems) == 0 {
			return skUnsetTarget(pe), nil
		}
		target = strings.Join(elems, " ")
	} else {
		if pe.Index == nil && (vr.Kind == Indexed || vr.Kind == Associative) {
			// ${!a} refers through a[0].
			ref.Index = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "0"}}}
		}
		if ref.Index != nil {
			if _, set, err := cfg.skElemSet(ref); err != nil {
				return nil, err
			} else if !set {
				return skUnsetTarget(pe), nil
			}
		}
		s, err := cfg.paramExp(ref)
		if err != nil {
			return nil, err
		}
		target = s
	}
	param, index, err := skParseRef(target)
	if err != nil {
		return nil, err
	}
	np := *pe
	np.Excl = false
	np.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: param}
	np.Index = index
	return &np, nil
}

// skElemSet reports whether the element ref names is set.
func (cfg *Config) skElemSet(ref *syntax.ParamExp) (string, bool, error) {
	vr := cfg.Env.Get(ref.Param.Value)
	if n, v := vr.Resolve(cfg.Env); n != "" {
		vr = v
	}
	return cfg.varInd(vr, ref.Index)
}

// skUnsetTarget is pe referring to no variable: what an unset array
// element refers to in bash (an unset value, to which ${!a-x} gives x).
func skUnsetTarget(pe *syntax.ParamExp) *syntax.ParamExp {
	np := *pe
	np.Excl = false
	// No variable may have this name: it is unset.
	np.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: " skillrun unset"}
	np.Index = nil
	return &np
}

// skParseRef reads an indirect reference: a name, name[subscript], a
// positional parameter's number or a special parameter.
func skParseRef(s string) (string, syntax.ArithmExpr, error) {
	bad := SkillrunCommandError{s + ": invalid variable name"}
	if syntax.ValidName(s) {
		return s, nil, nil
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return s, nil, nil
	}
	switch s {
	case "@", "*", "#", "?", "-", "$", "!":
		return s, nil, nil
	}
	open := strings.IndexByte(s, '[')
	if open <= 0 || !syntax.ValidName(s[:open]) || !strings.HasSuffix(s, "]") || len(s) < open+3 {
		return "", nil, bad
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(": ${"+s+"}"), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", nil, bad
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) != 2 || len(call.Args[1].Parts) != 1 {
		return "", nil, bad
	}
	pe, ok := call.Args[1].Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Param.Value != s[:open] || pe.Index == nil || pe.Excl || pe.Length ||
		pe.Width || pe.IsSet || pe.Names != 0 || pe.Slice != nil || pe.Repl != nil || pe.Exp != nil {
		return "", nil, bad
	}
	return pe.Param.Value, pe.Index, nil
}
