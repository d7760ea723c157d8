package main

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// partialScript is what bash runs of a script with a syntax error: bash
// reads and runs one line at a time, so the commands of the lines before
// the error run, then the error is reported and the shell exits 2, its
// EXIT trap running as for any exit. It returns the complete statements
// ending before the error's line followed by that report and exit, or
// nil if no statement comes before the error (nothing to run).
func partialScript(text, name string, parseErr error) *syntax.File {
	line := errorLine(parseErr)
	if line <= 1 {
		return nil
	}
	var kept []*syntax.Stmt
	for st, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(strings.NewReader(text)) {
		if err != nil || st.End().Line() >= line {
			break
		}
		kept = append(kept, st)
	}
	if len(kept) == 0 {
		return nil
	}
	msg, err := syntax.Quote(name+": "+parseErr.Error(), syntax.LangBash)
	if err != nil {
		return nil
	}
	tail, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("printf '%s\\n' "+msg+" >&2\nexit 2\n"), name)
	if err != nil {
		return nil
	}
	return &syntax.File{Name: name, Stmts: append(kept, tail.Stmts...)}
}

// errorLine is the line of a parse error, or 0 if it has none.
func errorLine(err error) uint {
	if pe, ok := errors.AsType[syntax.ParseError](err); ok {
		return pe.Pos.Line()
	}
	if le, ok := errors.AsType[syntax.LangError](err); ok {
		return le.Pos.Line()
	}
	return 0
}
