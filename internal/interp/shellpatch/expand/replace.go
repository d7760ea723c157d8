//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): ${x/#pat/rep} and ${x/%pat/rep}, the
// replacements anchored at the start or the end, which mvdan.cc/sh read
// as a pattern starting with a literal # or %, so they never matched:
// ${f/%.txt/.md} left f as it was, and ${arr[@]/#/prefix-}, a common way
// to prefix every element, prefixed none.

package expand

import "mvdan.cc/sh/v3/syntax"

// skAnchoredReplace does repl when its pattern starts with an unquoted #
// or % (and it is not the // form, where they are literal); ok is false
// for every other replacement.
func (cfg *Config) skAnchoredReplace(repl *syntax.Replace, elems []string) (out []string, ok bool, err error) {
	if repl.All || repl.Orig == nil || len(repl.Orig.Parts) == 0 {
		return nil, false, nil
	}
	lit, isLit := repl.Orig.Parts[0].(*syntax.Lit)
	if !isLit || lit.Value == "" || lit.Value[0] != '#' && lit.Value[0] != '%' {
		return nil, false, nil
	}
	atEnd := lit.Value[0] == '%'
	rest := &syntax.Word{}
	if v := lit.Value[1:]; v != "" {
		rest.Parts = append(rest.Parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v})
	}
	rest.Parts = append(rest.Parts, repl.Orig.Parts[1:]...)
	pat := ""
	if len(rest.Parts) > 0 {
		if pat, err = Pattern(cfg, rest); err != nil {
			return nil, true, err
		}
	}
	with := ""
	if repl.With != nil {
		if with, err = Literal(cfg, repl.With); err != nil {
			return nil, true, err
		}
	}
	out = make([]string, len(elems))
	for i, elem := range elems {
		switch {
		case pat == "" && atEnd:
			out[i] = elem + with
		case pat == "":
			out[i] = with + elem
		default:
			// The longest match at that end, as bash takes.
			if kept := removePattern(elem, pat, atEnd, false); kept != elem {
				if atEnd {
					out[i] = kept + with
				} else {
					out[i] = with + kept
				}
			} else {
				out[i] = elem
			}
		}
	}
	return out, true, nil
}
