//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): the target of a redirection is expanded as
// bash expands it, once, with brace expansion, field splitting and
// globbing. A target that expands to other than one field is an
// "ambiguous redirect" (> $empty, > $two_words, > a-{x,y}, > *.txt with
// two matches); one match of a glob is the file used, and no match is
// the pattern itself (or "no match" with failglob). mvdan.cc/sh took the
// word as one string, so > one-* wrote a file named "one-*".

package interp

import (
	"io"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skRedirReported is the error of a redirection whose expansion already
// reported its failure: the caller writes nothing more.
type skRedirReported struct{}

func (skRedirReported) Error() string { return "" }

// skQuietErr reports whether err needs no message of the caller.
func skQuietErr(err error) bool {
	_, ok := err.(skRedirReported)
	return ok
}

// skRedirWord returns rd with its target expanded to the single field
// bash would use, as quoted text, so that the later steps read it as is
// and no expansion (a command substitution) runs twice. Here-documents
// and here-strings are returned unchanged: their words are not split or
// globbed.
func (r *Runner) skRedirWord(rd *syntax.Redirect) (*syntax.Redirect, error) {
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return rd, nil
	}
	if rd.Word == nil {
		return rd, nil
	}
	if r.skAbort || r.exit.exiting {
		return nil, skRedirReported{}
	}
	fields, err := expand.Fields(r.ecfg, rd.Word)
	if err != nil {
		r.expandErr(err)
		if r.exit.ok() {
			r.exit.code = 1
		}
		return nil, skRedirReported{}
	}
	if len(fields) != 1 {
		return nil, skAmbiguous{prefix: r.skErrPrefix(rd.Pos()), word: skWordSource(rd.Word)}
	}
	cp := *rd
	cp.Word = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: rd.Word.Pos(), Value: fields[0]}}}
	return &cp, nil
}

// skAmbiguous is the error of a redirection target that is not one
// field, naming the word as written.
type skAmbiguous struct{ prefix, word string }

func (e skAmbiguous) Error() string { return e.prefix + e.word + ": ambiguous redirect" }

// skWordSource is w as the script wrote it.
func skWordSource(w *syntax.Word) string {
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, w); err != nil {
		return w.Lit()
	}
	return sb.String()
}

// skFailGlob is the expansion option of shopt -s failglob.
func (r *Runner) skFailGlob() bool {
	on, _ := r.skShoptOpt("failglob")
	return on
}

// skRedirState is the part of a Runner for what a statement's
// redirections leave behind them, as in bash: a {var} redirection's
// descriptor stays open after its command, n>&m- leaves m closed, and
// xtrace writes a command's trace where stderr was before the command's
// own redirections.
type skRedirState struct {
	// named are the descriptors {var} redirections opened.
	named map[int]*skFD
	// moved are descriptors n>&m- closed, not restored after the
	// statement.
	moved []int
	// traceErr is stderr before the redirections of the statement
	// being started.
	traceErr io.Writer
}

// skKeepNamed keeps descriptor n, just opened by a {var} redirection,
// open after its statement.
func (r *Runner) skKeepNamed(n int) {
	f, ok := r.sk.fds[n]
	if !ok {
		return
	}
	if r.skRd.named == nil {
		r.skRd.named = map[int]*skFD{}
	}
	r.skRd.named[n] = f
}

// skMoved records that n>&m- closed m for good.
func (r *Runner) skMoved(m int) {
	if m > 2 && len(r.skRd.moved) < skMaxFD {
		r.skRd.moved = append(r.skRd.moved, m)
	}
}

// skRestoreFDs is old, the descriptors from before a statement's
// redirections, with those the statement's {var} redirections opened and
// without those its n>&m- closed.
func (r *Runner) skRestoreFDs(old map[int]*skFD) map[int]*skFD {
	for n, f := range r.skRd.named {
		if r.sk.fds[n] != f {
			delete(r.skRd.named, n) // closed or replaced since
			continue
		}
		if old == nil {
			old = map[int]*skFD{}
		}
		old[n] = f
	}
	for _, m := range r.skRd.moved {
		delete(old, m)
	}
	r.skRd.moved = nil
	return old
}

// skTraceOut is where xtrace writes the command being started: stderr
// from before its statement's redirections.
func (r *Runner) skTraceOut() io.Writer {
	w := r.skRd.traceErr
	r.skRd.traceErr = nil
	if w == nil {
		return r.stderr
	}
	return w
}
