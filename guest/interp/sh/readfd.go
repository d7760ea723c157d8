package main

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readFromFD turns `read ... -u FD ...` into `read ... <&FD`: read's -u
// names one of the shell's descriptors, which the read builtin (called
// through the interpreter's call handler, see builtins.go) cannot reach,
// while a redirection of the statement can. Only option words written
// literally in the script are rewritten (`-u 3`, `-u "$fd"`, `-ru3`); a
// read built at run time by eval keeps the builtin's "invalid file
// descriptor" error.
func readFromFD(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "read" {
			return true
		}
		args := call.Args[:1]
		for i := 1; i < len(call.Args); i++ {
			w := call.Args[i]
			lit := w.Lit()
			if lit == "--" || len(lit) < 2 || lit[0] != '-' {
				args = append(args, call.Args[i:]...)
				break
			}
			j := strings.IndexAny(lit[1:], "adinNptu")
			if j < 0 {
				args = append(args, w)
				continue
			}
			j++
			var fd *syntax.Word
			switch {
			case j+1 < len(lit):
				fd = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: w.Pos(), ValueEnd: w.End(), Value: lit[j+1:]}}}
			case i+1 < len(call.Args):
				i++
				fd = call.Args[i]
			}
			if lit[j] != 'u' || fd == nil {
				args = append(args, w)
				if fd != nil && j+1 == len(lit) {
					args = append(args, fd)
				}
				continue
			}
			if j > 1 {
				args = append(args, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: w.Pos(), ValueEnd: w.End(), Value: lit[:j]}}})
			}
			st.Redirs = append(st.Redirs, &syntax.Redirect{OpPos: w.Pos(), Op: syntax.DplIn, Word: fd})
		}
		call.Args = args
		return true
	})
}
