package main

import (
	"mvdan.cc/sh/v3/syntax"
)

// subshellPipeEnds makes the last command of every pipeline run in a
// subshell, as bash runs each command of a pipeline (without lastpipe):
// `find ... | while read f; do ISSUES+=(...); done` leaves ISSUES
// unchanged after the loop in bash, and scripts' output depends on it.
// mvdan.cc/sh runs the last command in the current shell instead, so the
// parsed script is rewritten: `a | b` becomes `a | (b)`. The first
// commands already run in subshells.
func subshellPipeEnds(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		bc, ok := n.(*syntax.BinaryCmd)
		if !ok || (bc.Op != syntax.Pipe && bc.Op != syntax.PipeAll) {
			return true
		}
		if _, isSub := bc.Y.Cmd.(*syntax.Subshell); isSub || bc.Y.Cmd == nil {
			return true
		}
		inner := *bc.Y
		bc.Y = &syntax.Stmt{
			Position: inner.Position,
			Cmd:      &syntax.Subshell{Lparen: inner.Pos(), Rparen: inner.End(), Stmts: []*syntax.Stmt{&inner}},
		}
		return true
	})
}
