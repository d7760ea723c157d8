//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/syntax (see
// internal/interp/shellhooks_lit4.go): [k]+=v elements of array
// literals, which bash reads as appending v to element k.

package syntax

import "strings"

// skArrayAppendOp reports whether the token after an element's [index]
// starts with +=, as in a=([k]+=v): the lexer reads "+=v" as a literal.
// The word is parsed as usual and skTrimAppend removes the += from it.
func (p *Parser) skArrayAppendOp() bool {
	return !p.spaced && (p.tok == _Lit || p.tok == _LitWord) && strings.HasPrefix(p.val, "+=")
}

// skTrimAppend removes the leading += of a [k]+=v element's word; a word
// that was only += becomes nil, the empty value.
func skTrimAppend(w *Word) *Word {
	if w == nil || len(w.Parts) == 0 {
		return w
	}
	lit, ok := w.Parts[0].(*Lit)
	if !ok || !strings.HasPrefix(lit.Value, "+=") {
		return w
	}
	lit.Value = lit.Value[len("+="):]
	lit.ValuePos = posAddCol(lit.ValuePos, len("+="))
	if lit.Value == "" {
		w.Parts = w.Parts[1:]
	}
	if len(w.Parts) == 0 {
		return nil
	}
	return w
}

// skEmptyIndex reads the ] of an empty index, as in a[]=v, which bash
// parses but fails to assign ("bad array subscript"); the caller sets
// Assign.SkBad. The index stands for 0 in the syntax tree.
func (p *Parser) skEmptyIndex() ArithmExpr {
	pos := p.nextPos()
	p.rune() // the ]
	p.next()
	return &Word{Parts: []WordPart{&Lit{ValuePos: pos, ValueEnd: pos, Value: "0"}}}
}

// skListToElem is the error of as, a[i]=(list), which bash parses but
// fails to assign.
func skListToElem(as *Assign) string {
	var sb strings.Builder
	sb.WriteString(as.Name.Value)
	sb.WriteByte('[')
	_ = NewPrinter().Print(&sb, as.Index)
	sb.WriteString("]: cannot assign list to array member")
	return sb.String()
}
