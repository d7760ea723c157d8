//go:build ignore

// This file is added to skillrun's build copy of mvdan.cc/sh/v3/interp
// (internal/interp/shell.go writes it there without the ignore line and
// hooks it into runner.go and api.go). It is skillrun's code, not
// mvdan.cc/sh's: the interpreter keeps only descriptors 0, 1 and 2 and
// makes process substitutions from FIFOs, which WASI has none of, and
// published scripts use both (`exec 3>log`, `{fd}>file`, `read -u 3`,
// `diff <(sort a) <(sort b)`, `while read l; do ...; done < <(cmd)`).

package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skMaxFD bounds the descriptor numbers a script may name, as bash's own
// limit (the open-files limit, 1024 by default) does.
const skMaxFD = 1023

// skFirstNamed is the first descriptor a {var} redirection allocates, as
// in bash.
const skFirstNamed = 10

// skState is skillrun's part of a Runner.
type skState struct {
	// fds are the open descriptors above 2; a subshell gets a copy.
	fds map[int]*skFD
	// depth is the nesting of statements being run: what a statement's
	// expansions leave (the files of its process substitutions) is
	// cleaned up when the statement at that depth ends.
	depth   int
	temps   []skTemp
	pending []*skPending
	// atExit are the >(...) readers of files that exec kept open as the
	// shell's own descriptors: they run when the shell ends.
	atExit *[]*skPending
	// pos is the position of the redirection being opened, for the open
	// handler's messages.
	pos syntax.Pos
}

// skFD is one open descriptor: what reads and writes it, and what closes
// it when the shell gives it up (nil for a copy of another descriptor).
type skFD struct {
	r io.Reader
	w io.Writer
	c io.Closer
}

type skTemp struct {
	path  string
	depth int
}

// skPending is a >(...) process substitution: its commands run, with the
// file the command wrote as their standard input, once the command ends.
type skPending struct {
	path           string
	stmts          []*syntax.Stmt
	stdout, stderr io.Writer
	depth          int
}

func (s *skState) inherit() skState {
	return skState{fds: maps.Clone(s.fds), atExit: s.atExit}
}

// skBadFD is the error of a closed or never opened descriptor.
type skBadFD struct{}

func (skBadFD) Error() string { return "Bad file descriptor" }

// skClosed is a closed standard stream.
type skClosed struct{}

func (skClosed) Write([]byte) (int, error) { return 0, skBadFD{} }

// skGet returns descriptor n.
func (r *Runner) skGet(n int) (*skFD, bool) {
	switch n {
	case 0:
		if r.stdin == nil {
			return nil, false
		}
		return &skFD{r: r.stdin}, true
	case 1, 2:
		w := r.stdout
		if n == 2 {
			w = r.stderr
		}
		if _, closed := w.(skClosed); closed || w == nil {
			return nil, false
		}
		return &skFD{w: w}, true
	}
	f, ok := r.sk.fds[n]
	return f, ok
}

// skSet makes descriptor n f, or closes it for nil.
func (r *Runner) skSet(n int, f *skFD) {
	switch n {
	case 0:
		if f == nil || f.r == nil {
			r.stdin = nil
			return
		}
		if s, ok := f.r.(stdinFile); ok {
			r.stdin = s
			return
		}
		r.stdin, _ = newStdinFile(f.r)
	case 1, 2:
		var w io.Writer = skClosed{}
		if f != nil && f.w != nil {
			w = f.w
		}
		if n == 1 {
			r.stdout = w
		} else {
			r.stderr = w
		}
	default:
		if f == nil {
			delete(r.sk.fds, n)
			return
		}
		if r.sk.fds == nil {
			r.sk.fds = map[int]*skFD{}
		}
		r.sk.fds[n] = f
	}
}

// skStmtStart begins a statement and returns the descriptors to restore
// after it.
func (r *Runner) skStmtStart() map[int]*skFD {
	r.sk.depth++
	return maps.Clone(r.sk.fds)
}

// skKept is the end of a statement whose redirections exec kept: the
// descriptors it replaced or closed are closed for good, and the readers
// of its >(...) files run when the shell ends.
func (r *Runner) skKept(old map[int]*skFD) {
	for n, f := range old {
		if cur, ok := r.sk.fds[n]; (!ok || cur != f) && f.c != nil && !r.skInUse(f.c) {
			f.c.Close()
		}
	}
	if r.sk.atExit == nil {
		r.sk.atExit = new([]*skPending)
	}
	keep := r.sk.pending[:0]
	for _, p := range r.sk.pending {
		if p.depth >= r.sk.depth {
			*r.sk.atExit = append(*r.sk.atExit, p)
		} else {
			keep = append(keep, p)
		}
	}
	r.sk.pending = keep
}

// skInUse reports whether c still closes an open descriptor.
func (r *Runner) skInUse(c io.Closer) bool {
	for _, f := range r.sk.fds {
		if f.c == c {
			return true
		}
	}
	return false
}

// skStmtEnd ends a statement: the readers of its >(...) files run and
// the files of its <(...) are removed.
func (r *Runner) skStmtEnd(ctx context.Context) {
	d := r.sk.depth
	r.sk.depth--
	var run []*skPending
	keep := r.sk.pending[:0]
	for _, p := range r.sk.pending {
		if p.depth >= d {
			run = append(run, p)
		} else {
			keep = append(keep, p)
		}
	}
	r.sk.pending = keep
	for _, p := range run {
		r.skRunPending(ctx, p)
	}
	keepT := r.sk.temps[:0]
	for _, t := range r.sk.temps {
		if t.depth >= d {
			os.Remove(t.path)
		} else {
			keepT = append(keepT, t)
		}
	}
	r.sk.temps = keepT
}

// skExit runs what the shell left for its end: the readers of >(...)
// files that exec made the shell's own descriptors.
func (r *Runner) skExit(ctx context.Context) {
	if r.sk.atExit == nil {
		return
	}
	list := *r.sk.atExit
	*r.sk.atExit = nil
	for _, p := range list {
		r.skRunPending(ctx, p)
	}
}

func (r *Runner) skRunPending(ctx context.Context, p *skPending) {
	defer os.Remove(p.path)
	f, err := os.Open(p.path)
	if err != nil {
		fmt.Fprintf(p.stderr, "process substitution: %v\n", err)
		return
	}
	defer f.Close()
	r2 := r.subshell(false)
	r2.stdin, _ = newStdinFile(f)
	r2.stdout, r2.stderr = p.stdout, p.stderr
	r2.sk.pending, r2.sk.temps = nil, nil
	r2.stmts(ctx, p.stmts)
	r2.skStmtEndAll(ctx)
}

// skStmtEndAll cleans up after a subshell run outside stmtSync.
func (r *Runner) skStmtEndAll(ctx context.Context) {
	r.sk.depth = 1
	r.skStmtEnd(ctx)
}

// skProcSubst makes a process substitution a file of the shell's temp
// folder: <(...) runs its commands to the end into the file; >(...)
// gives the command an empty file and runs its commands on what the
// command wrote when the command ends. Unlike bash's pipes, the two sides
// do not run at the same time, so a producer that never ends runs into
// the run's timeout.
func (r *Runner) skProcSubst(ctx context.Context, ps *syntax.ProcSubst) (string, error) {
	if ps.Op == syntax.CmdInTemp {
		return "", fmt.Errorf("unsupported")
	}
	f, err := os.CreateTemp(r.tempDir, "sh-procsubst-")
	if err != nil {
		return "", fmt.Errorf("process substitution: %v", err)
	}
	path := f.Name()
	switch ps.Op {
	case syntax.CmdIn:
		r2 := r.subshell(false)
		r2.stdout = f
		r2.sk.pending, r2.sk.temps = nil, nil
		r2.stmts(ctx, ps.Stmts)
		r2.skStmtEndAll(ctx)
		f.Close()
		r.sk.temps = append(r.sk.temps, skTemp{path: path, depth: r.sk.depth})
	default:
		f.Close()
		r.sk.pending = append(r.sk.pending, &skPending{path: path, stmts: ps.Stmts, stdout: r.stdout, stderr: r.stderr, depth: r.sk.depth})
	}
	return path, nil
}

// skRedir does the redirections mvdan.cc/sh does not: descriptors above
// 2 and {var} ones, duplicating and moving descriptors (n>&m, n<&m,
// n>&m-), <>, >| and here-documents on other descriptors. ok is false for
// what redir does itself.
func (r *Runner) skRedir(ctx context.Context, rd *syntax.Redirect) (cls io.Closer, ok bool, err error) {
	r.sk.pos = rd.Pos()
	fail := func(format string, a ...any) (io.Closer, bool, error) {
		return nil, true, errors.New(r.skErrPrefix(rd.Pos()) + fmt.Sprintf(format, a...))
	}
	if (rd.Op == syntax.RdrOut || rd.Op == syntax.RdrAll) && (rd.N == nil || rd.N.Value == "1" || rd.N.Value == "2") && r.skNoClobber() {
		// set -C: > and &> do not overwrite an existing file (>| does).
		name := r.literal(rd.Word)
		if fi, err := r.stat(ctx, name); err == nil && fi.Mode().IsRegular() {
			return fail("%s: cannot overwrite existing file", name)
		}
	}
	input := false
	switch rd.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		input = true
	case syntax.RdrAll, syntax.AppAll:
		return nil, false, nil
	}
	n, named := 1, ""
	if input {
		n = 0
	}
	if rd.N != nil {
		v := rd.N.Value
		if len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' {
			named = v[1 : len(v)-1]
		} else {
			m, err := strconv.Atoi(v)
			if err != nil || m > skMaxFD {
				return fail("%s: Bad file descriptor", v)
			}
			n = m
		}
	}
	dup := rd.Op == syntax.DplIn || rd.Op == syntax.DplOut
	if named == "" && n <= 2 && !dup && rd.Op != syntax.RdrInOut && rd.Op != syntax.ClbOut {
		return nil, false, nil
	}
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		r.skSet(n, &skFD{r: strings.NewReader(r.hdocString(rd))})
		return nil, true, nil
	case syntax.WordHdoc:
		r.skSet(n, &skFD{r: strings.NewReader(r.literal(rd.Word) + "\n")})
		return nil, true, nil
	}
	arg := r.literal(rd.Word)
	if dup && arg == "-" && named != "" {
		// {var}>&- closes the descriptor the variable holds.
		m, err := strconv.Atoi(r.lookupVar(named).String())
		if err != nil {
			return fail("%s: ambiguous redirect", "{"+named+"}")
		}
		r.skSet(m, nil)
		return nil, true, nil
	}
	if named != "" {
		// The descriptor stays open after its command (redirs.go).
		defer func() {
			if err == nil {
				r.skKeepNamed(n)
				cls = nil
			}
		}()
		n = skFirstNamed
		for ; n <= skMaxFD; n++ {
			if _, used := r.sk.fds[n]; !used {
				break
			}
		}
		if n > skMaxFD {
			return fail("%s: cannot allocate a file descriptor", named)
		}
		r.setVarString(named, strconv.Itoa(n))
	}
	if dup {
		switch {
		case arg == "-":
			r.skSet(n, nil)
			return nil, true, nil
		case skDigits(arg) || (len(arg) > 1 && strings.HasSuffix(arg, "-") && skDigits(arg[:len(arg)-1])):
			move := strings.HasSuffix(arg, "-")
			m, _ := strconv.Atoi(strings.TrimSuffix(arg, "-"))
			src, ok := r.skGet(m)
			if !ok || m > skMaxFD {
				return fail("%s: Bad file descriptor", strings.TrimSuffix(arg, "-"))
			}
			c := *src
			if m != n {
				c.c = nil
			}
			r.skSet(n, &c)
			if move && m != n {
				if f, ok := r.sk.fds[m]; ok && f.c != nil && n > 2 {
					// The moved descriptor now owns the file.
					r.sk.fds[n].c = f.c
				}
				r.skSet(m, nil)
				r.skMoved(m) // not restored after the statement, as in bash
			}
			return nil, true, nil
		case rd.Op == syntax.DplOut && (rd.N == nil || rd.N.Value == "1"):
			// >&word and 1>&word with a file name: stdout and stderr, as
			// &>word.
			f, err := r.open(ctx, arg, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644, false)
			if err != nil {
				return nil, true, err
			}
			r.stdout, r.stderr = f, f
			return f, true, nil
		default:
			return fail("%s: ambiguous redirect", arg)
		}
	}
	mode := os.O_RDONLY
	switch rd.Op {
	case syntax.RdrOut, syntax.ClbOut:
		mode = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case syntax.AppOut:
		mode = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case syntax.RdrInOut:
		mode = os.O_RDWR | os.O_CREATE
	}
	f, err := r.open(ctx, arg, mode, 0o644, false)
	if err != nil {
		return nil, true, err
	}
	fd := &skFD{c: f}
	if mode == os.O_RDONLY || mode&os.O_RDWR != 0 {
		fd.r = f
	}
	if mode != os.O_RDONLY {
		fd.w = f
	}
	r.skSet(n, fd)
	return f, true, nil
}

func skDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// skErrPrefix is what goes in front of an error of the script's line,
// as the shell's open handler writes it ("script.sh: line 3: ").
func (r *Runner) skErrPrefix(pos syntax.Pos) string {
	if r.filename == "" {
		return ""
	}
	return fmt.Sprintf("%s: line %d: ", r.filename, pos.Line())
}
