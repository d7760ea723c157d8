//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): the word of ${x-word}, ${x:-word}, ${x+word}
// and ${x:+word} as bash expands it. mvdan.cc/sh expanded the word to a
// string before knowing whether it is used (so ${x:-$((i++))} counted
// even when x was set) and then split that string as a whole, so
// ${u:-'a b'} gave two fields where bash gives one, and inside double
// quotes it read the word's single quotes as quotes where bash keeps
// them ("${u:-'a'}" is 'a' with its quotes). Lists ($@, ${a[@]}) are set
// when they have elements, as in bash 5.
//
// Unquoted, the word's parts take the place of the expansion in the
// word around it: what is quoted in it stays one field, the rest is
// split. Within double quotes, the word is read as double-quoted text.

package expand

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skOpResult is what a -/+ operator's expansion gives: word, when the
// operator's word is used, or else the parameter's elements (none for
// an unused +word) and their joined value.
type skOpResult struct {
	ok     bool // the expansion is ${x-word}, ${x:-word}, ${x+word} or ${x:+word}
	list   bool // the parameter is a list: $@, $*, ${a[@]}, ${a[*]}
	star   bool // the list joins into one field within double quotes
	word   *syntax.Word
	elems  []string
	joined string
}

// skOpTest decides whether pe's -/+ operator uses its word. quoted tells
// that "*" lists join with IFS's first character (within double quotes,
// as assignments do) rather than a space, which decides whether such a
// list is null.
func (cfg *Config) skOpTest(pe *syntax.ParamExp, quoted bool) (skOpResult, error) {
	var r skOpResult
	if pe == nil || pe.Param == nil || pe.Exp == nil || pe.Length || pe.Width || pe.IsSet ||
		pe.Names != 0 || pe.Slice != nil || pe.Repl != nil {
		return r, nil
	}
	op := pe.Exp.Op
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
	default:
		return r, nil
	}
	indirect := pe.Excl
	if np, err := cfg.skIndirect(pe); err != nil {
		return r, err
	} else if np != nil {
		pe = np
	}
	if pe.Excl || pe.Param.Value == "LINENO" {
		return r, nil // a nameref's name, keys: mvdan.cc/sh's own
	}
	base := *pe
	base.Exp = nil
	var set, null bool
	if elems, star, isList := cfg.listElems(&base); isList {
		r.list, r.star = true, star
		r.elems, set = elems, len(elems) > 0
		if star && quoted {
			r.joined = cfg.ifsJoin(elems)
		} else {
			r.joined = strings.Join(elems, " ")
		}
		// Through an indirection, bash 5.2 takes a list with elements
		// for non-null.
		null = r.joined == "" && !indirect
	} else {
		vr := cfg.Env.Get(base.Param.Value)
		if n, v := vr.Resolve(cfg.Env); n != "" {
			vr = v
		}
		str, isSet, err := cfg.varInd(vr, base.Index)
		if err != nil {
			return r, err
		}
		r.elems, r.joined, set, null = []string{str}, str, isSet, str == ""
	}
	r.ok = true
	present := set
	if op == syntax.DefaultUnsetOrNull || op == syntax.AlternateUnsetOrNull {
		present = set && !null
	}
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if !present {
			r.word, r.elems, r.joined = skWordOrEmpty(pe.Exp.Word), []string{}, ""
		}
	default:
		r.elems, r.joined = []string{}, ""
		if present {
			r.word = skWordOrEmpty(pe.Exp.Word)
		}
	}
	return r, nil
}

// skWordOrEmpty is w, or an empty word for an operator without one.
func skWordOrEmpty(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{}
	}
	return w
}

// skInsertOpWord puts the parts of an unquoted operator's word after
// parts[i], the expansion it replaces, and marks its literals for field
// splitting in split (created if nil).
func skInsertOpWord(parts []syntax.WordPart, i int, w *syntax.Word, split map[*syntax.Lit]bool) ([]syntax.WordPart, map[*syntax.Lit]bool) {
	if split == nil {
		split = make(map[*syntax.Lit]bool)
	}
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			split[lit] = true
		}
	}
	return slices.Concat(parts[:i+1], w.Parts, parts[i+1:]), split
}

// skLitAdd adds s, unquoted text of a word, to the field: split on IFS
// when it comes from an operator's word, as is otherwise.
func skLitAdd(s string, split bool, curField *[]fieldPart, splitAdd func(string)) {
	if split {
		splitAdd(s)
		return
	}
	*curField = append(*curField, fieldPart{val: s})
}

// skDquoteOpWord is the parts of an operator's word within double
// quotes: single quotes are plain characters around double-quoted text,
// double quotes only group, and \} is a brace.
func skDquoteOpWord(w *syntax.Word) []syntax.WordPart {
	var out []syntax.WordPart
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\}`) {
				np := *p
				np.Value = skUnescapeBrace(p.Value)
				out = append(out, &np)
			} else {
				out = append(out, p)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				out = append(out, p)
				continue
			}
			out = append(out, &syntax.Lit{ValuePos: p.Pos(), ValueEnd: p.Pos(), Value: "'"})
			doc, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(p.Value))
			if err != nil {
				out = append(out, &syntax.Lit{ValuePos: p.Pos(), ValueEnd: p.End(), Value: p.Value})
			} else {
				out = append(out, doc.Parts...)
			}
			out = append(out, &syntax.Lit{ValuePos: p.End(), ValueEnd: p.End(), Value: "'"})
		case *syntax.DblQuoted:
			out = append(out, p.Parts...)
		default:
			out = append(out, p)
		}
	}
	return out
}

// skUnescapeBrace drops the backslash of each \} in s, leaving other
// escapes for double-quote rules.
func skUnescapeBrace(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] != '}' {
				sb.WriteByte(s[i])
			}
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// skQuotedOpElems is the fields of "${list-word}" and "${list+word}"
// when the word is not used: the list's elements, one field each for @
// and one joined field for *. It is nil otherwise, for the expansion to
// go on as a double-quoted word.
func (r skOpResult) skQuotedOpElems() []string {
	switch {
	case !r.ok || r.word != nil || !r.list:
		return nil
	case r.star:
		return []string{r.joined}
	}
	return r.elems
}

// skOpArg expands the word of pe's operator: a pattern, whose quoted
// characters match themselves (${v#"?"} strips a question mark), for the
// removal and case operators; a string for the others.
func skOpArg(cfg *Config, exp *syntax.Expansion) (string, error) {
	switch exp.Op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix,
		syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		return Pattern(cfg, exp.Word)
	}
	return Literal(cfg, exp.Word)
}

// skSlashRepl is pe's replacement as bash reads ${x////c} and ${x///}:
// the pattern of the // form cannot be empty, so a slash right after
// it is the pattern (replace every slash), where mvdan.cc/sh read an
// empty pattern and a replacement starting with the slash.
func skSlashRepl(pe *syntax.ParamExp) *syntax.Replace {
	repl := *pe.Repl
	if repl.All && (repl.Orig == nil || len(repl.Orig.Parts) == 0) {
		slash := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: "/"}}}
		switch {
		case repl.With != nil && len(repl.With.Parts) > 0:
			if lit, ok := repl.With.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "/") {
				rest := *lit
				rest.Value = lit.Value[1:]
				repl.Orig = slash
				repl.With = &syntax.Word{Parts: slices.Concat([]syntax.WordPart{&rest}, repl.With.Parts[1:])}
			}
		case pe.Index == nil && pe.Param != nil && pe.Rbrace.Offset() == pe.Param.End().Offset()+3:
			repl.Orig = slash // ${x///}
		}
	}
	return &repl
}
