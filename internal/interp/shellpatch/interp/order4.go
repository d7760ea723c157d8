//go:build ignore

package interp

import (
	"context"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skOuterIO are the standard streams and descriptors a statement had
// before it applied its redirections. Bash expands a simple command's
// words (and a declaration's arguments) first, so the command
// substitutions in them read and report through these, not through the
// command's own redirections: `x=$(cmd) 2>/dev/null` shows cmd's errors.
type skOuterIO struct {
	in  stdinFile
	err io.Writer
	fds map[int]*skFD
}

// skOuterBegin records the statement's outer descriptors when its
// redirections apply after its words are expanded, and returns what was
// recorded before, for skOuterEnd. A statement without redirections
// clears the record: its expansions see the current descriptors.
func (r *Runner) skOuterBegin(st *syntax.Stmt, in stdinFile, errw io.Writer, fds map[int]*skFD) *skOuterIO {
	old := r.skOuter
	r.skOuter = nil
	if len(st.Redirs) == 0 {
		return old
	}
	switch st.Cmd.(type) {
	case *syntax.CallExpr, *syntax.DeclClause:
		r.skOuter = &skOuterIO{in: in, err: errw, fds: fds}
	}
	return old
}

// skOuterEnd restores the record of the enclosing statement.
func (r *Runner) skOuterEnd(old *skOuterIO) { r.skOuter = old }

// skOuterApply gives a command substitution's subshell the outer
// descriptors of the statement being expanded, if it recorded them.
func (r *Runner) skOuterApply(r2 *Runner) {
	o := r.skOuter
	if o == nil {
		return
	}
	r2.stdin, r2.stderr = o.in, o.err
	r2.sk.fds = maps.Clone(o.fds)
}

// skExpandFirst expands the values of a declaration's assignments before
// any is made, as bash expands all words of a command before it runs it:
// each value becomes a quoted word of its expanded text, so that
// assigning it expands nothing again. Array values keep their own order.
func (r *Runner) skExpandFirst(seq iter.Seq[*syntax.Assign]) iter.Seq[*syntax.Assign] {
	var all []*syntax.Assign
	for as := range seq {
		if as.Value != nil && as.Array == nil && !skLiteralWord(as.Value) {
			cp := *as
			cp.Value = &syntax.Word{Parts: []syntax.WordPart{
				&syntax.SglQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Value: r.literal(as.Value)},
			}}
			as = &cp
		}
		all = append(all, as)
	}
	return slices.Values(all)
}

// skLiteralWord reports whether w has nothing to expand.
func skLiteralWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// skAliasDecl runs a simple command whose alias expansion made its first
// word a declaration keyword as that declaration, and reports whether it
// did.
func (r *Runner) skAliasDecl(ctx context.Context, cm *syntax.CallExpr, args []*syntax.Word) bool {
	if len(args) == 0 || len(cm.Args) == 0 || args[0] == cm.Args[0] || len(cm.Assigns) > 0 {
		return false
	}
	switch args[0].Lit() {
	case "declare", "typeset", "export", "readonly", "local":
	default:
		return false
	}
	decl := &syntax.DeclClause{Variant: &syntax.Lit{ValuePos: args[0].Pos(), Value: args[0].Lit()}}
	for _, w := range args[1:] {
		decl.Args = append(decl.Args, skWordAssign(w))
	}
	r.cmd(ctx, decl)
	return true
}

// skWordAssign makes a declaration's argument of a word, as the parser
// does: name=value or name+=value is an assignment whose value is not
// split; anything else is a word expanded and split when declared.
func skWordAssign(w *syntax.Word) *syntax.Assign {
	if len(w.Parts) == 0 {
		return &syntax.Assign{Naked: true, Value: w}
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return &syntax.Assign{Naked: true, Value: w}
	}
	name, rest, ok := strings.Cut(lit.Value, "=")
	appnd := strings.HasSuffix(name, "+")
	name = strings.TrimSuffix(name, "+")
	if !ok || !syntax.ValidName(name) {
		return &syntax.Assign{Naked: true, Value: w}
	}
	as := &syntax.Assign{Append: appnd, Name: &syntax.Lit{ValuePos: lit.Pos(), Value: name}}
	var parts []syntax.WordPart
	if rest != "" {
		parts = append(parts, &syntax.Lit{ValuePos: lit.Pos(), Value: rest})
	}
	parts = append(parts, w.Parts[1:]...)
	if len(parts) > 0 {
		as.Value = &syntax.Word{Parts: parts}
	}
	return as
}
