//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): the parts of word expansion where bash's
// fields differ from mvdan.cc/sh's: "$@" among other parts of a double
// quoted word ("-$@-" gives one field per argument, the first and last
// joined to the text around), the words of ${v:-word} and ${v+word}
// (their quoted parts are not split, their unquoted text is), \cX in
// $'...', and brace expansions (empty alternatives elided, literal parts
// joined so that a tilde they put first is expanded), and quoted dashes
// in glob brackets.

package expand

import (
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// skQuotedLists expands a double-quoted word holding "$@"-like parts
// with other parts: each element of a list is its own field, the first
// joined to what precedes it and the last to what follows. ok is false
// (nothing done) for a word without list parts; empty is true when the
// word yields no field at all (only lists, all without elements).
func (cfg *Config) skQuotedLists(parts []syntax.WordPart, curField *[]fieldPart, flush func()) (ok, empty bool, err error) {
	if len(parts) < 2 || !cfg.skHasListPart(parts) {
		return false, false, nil
	}
	empty = true
	for _, p := range parts {
		if pe, isPE := p.(*syntax.ParamExp); isPE {
			elems, err := cfg.quotedElemFields(pe)
			if err != nil {
				return true, false, err
			}
			if elems != nil {
				for i, elem := range elems {
					if i > 0 {
						flush()
					}
					*curField = append(*curField, fieldPart{quote: quoteDouble, val: elem})
					empty = false
				}
				continue
			}
		}
		empty = false
		fps, err := cfg.wordField([]syntax.WordPart{p}, quoteDouble)
		if err != nil {
			return true, false, err
		}
		for _, fp := range fps {
			fp.quote = quoteDouble
			*curField = append(*curField, fp)
		}
	}
	return true, empty, nil
}

// skHasListPart reports whether one of parts is a "$@" or "${a[@]}"
// expansion, which yields fields of its own in double quotes.
func (cfg *Config) skHasListPart(parts []syntax.WordPart) bool {
	for _, p := range parts {
		pe, ok := p.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Length || pe.Width || pe.IsSet || pe.Excl {
			continue
		}
		if pe.Param.Value == "@" || nodeLit(pe.Index) == "@" {
			return true
		}
	}
	return false
}

// skAltSentinel stands for an operator's word in skAltChosen: no shell
// value can hold a NUL byte.
const skAltSentinel = "\x00skillrun-alt"

// skAltChosen reports whether the unquoted ${v:-word}-like pe expands to
// its word (rather than to v's value or nothing). It asks paramExp with
// the word replaced by a sentinel, so that set-ness is what paramExp
// decides for every kind of parameter.
func (cfg *Config) skAltChosen(pe *syntax.ParamExp) (bool, error) {
	if pe.Param == nil || pe.Exp == nil || pe.Exp.Word == nil || pe.Length || pe.Width || pe.IsSet || pe.Excl {
		return false, nil
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
	default:
		return false, nil
	}
	probe := *pe
	probe.Exp = &syntax.Expansion{Op: pe.Exp.Op, Word: &syntax.Word{
		Parts: []syntax.WordPart{&syntax.SglQuoted{Value: skAltSentinel}},
	}}
	val, err := cfg.paramExp(&probe)
	return err == nil && val == skAltSentinel, err
}

// skAltWordFields expands the word of an unquoted ${v:-word} (or :+, -,
// +) that is chosen as bash does: its unquoted text and expansions are
// split on IFS, its quoted parts are not and may make empty fields. ok
// is false when pe is not such an expansion; quoted reports a quoted
// part (the word then makes a field even if empty).
func (cfg *Config) skAltWordFields(pe *syntax.ParamExp, curField *[]fieldPart, splitAdd func(string), flush func()) (ok, quoted bool, err error) {
	chosen, err := cfg.skAltChosen(pe)
	if err != nil || !chosen {
		return false, false, err
	}
	for _, p := range pe.Exp.Word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			cfg.skSplitLit(p.Value, curField, splitAdd)
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
			fps, err := cfg.wordField([]syntax.WordPart{p}, quoteNone)
			if err != nil {
				return true, quoted, err
			}
			if len(fps) == 0 {
				fps = []fieldPart{{}}
			}
			for _, fp := range fps {
				fp.quote = quoteDouble
				*curField = append(*curField, fp)
			}
		case *syntax.ParamExp:
			ok, q, err := cfg.skAltWordFields(p, curField, splitAdd, flush)
			if err != nil {
				return true, quoted, err
			}
			quoted = quoted || q
			if ok {
				continue
			}
			val, err := cfg.paramExp(p)
			if err != nil {
				return true, quoted, err
			}
			splitAdd(val)
		default:
			fps, err := cfg.wordField([]syntax.WordPart{p}, quoteNone)
			if err != nil {
				return true, quoted, err
			}
			for _, fp := range fps {
				splitAdd(fp.val)
			}
		}
	}
	return true, quoted, nil
}

// skSplitLit adds the unquoted text s of an operator's word: split on
// IFS, except for backslash-escaped characters, which are quoted.
func (cfg *Config) skSplitLit(s string, curField *[]fieldPart, splitAdd func(string)) {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i == len(s)-1 {
			break
		}
		splitAdd(s[:i])
		*curField = append(*curField, fieldPart{quote: quoteSingle, val: s[i+1 : i+2]})
		s = s[i+2:]
	}
	splitAdd(s)
}

// skCtrlEscapes rewrites the \cX escapes of a $'...' string, which Format
// (shared with printf and echo -e, where \c means something else) lacks,
// into the \xHH of their control character: X's code masked with 0x1f,
// as bash does.
func skCtrlEscapes(s string) string {
	if !strings.Contains(s, `\c`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'c' && i+2 < len(s) {
			c := s[i+2] & 0x1f
			sb.WriteString(`\x`)
			sb.WriteByte("0123456789abcdef"[c>>4])
			sb.WriteByte("0123456789abcdef"[c&0xf])
			i += 2
			continue
		}
		sb.WriteString(s[i : i+2])
		i++
	}
	return sb.String()
}

// skBraceWord is a word that brace expansion made from parts: adjacent
// literals joined (so "~" and "/bar" are the tilde prefix "~/bar"), and
// empty literals dropped, so that an empty alternative of an unquoted
// brace expansion yields no field, as in bash.
func skBraceWord(parts []syntax.WordPart) *syntax.Word {
	out := make([]syntax.WordPart, 0, len(parts))
	for _, p := range parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			out = append(out, p)
			continue
		}
		if lit.Value == "" {
			continue
		}
		if n := len(out); n > 0 {
			if prev, ok := out[n-1].(*syntax.Lit); ok {
				out[n-1] = &syntax.Lit{ValuePos: prev.ValuePos, ValueEnd: lit.ValueEnd, Value: prev.Value + lit.Value}
				continue
			}
		}
		out = append(out, lit)
	}
	return &syntax.Word{Parts: out}
}

// skQuoteMeta is pattern.QuoteMeta that also escapes '-' and ']', so
// that a quoted or escaped dash in a bracket expression ([C\-D]) is
// itself, not a range, and a quoted ']' (['[]']) does not end it, as in
// bash; and '(', ')' and '|', so that quoted parentheses after a '*'
// (*'()') are no extended pattern, which QuoteMeta ignores its mode for.
func skQuoteMeta(s string) string {
	return skQuoteMetaReplacer.Replace(pattern.QuoteMeta(s, 0))
}

var skQuoteMetaReplacer = strings.NewReplacer("-", `\-`, "]", `\]`, "(", `\(`, ")", `\)`, "|", `\|`)
