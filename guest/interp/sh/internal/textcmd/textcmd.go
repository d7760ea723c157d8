// Package textcmd holds the text-processing commands of skillrun's
// sandboxed shell: grep, sed, tr, head, tail, wc, sort, uniq, cut, paste,
// comm, join, nl, rev, tac, fold, expand, od, hexdump, column and
// envsubst. They are written in Go, with the standard library only, so
// the whole shell stays one WebAssembly module; their output, error
// messages and exit statuses follow GNU grep 3.8, sed 4.9, coreutils 9.1
// and gettext 0.21 (hexdump and column: util-linux 2.38) in the C.UTF-8
// locale, because published skills' scripts are written against those
// tools.
package textcmd

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// Commands are the text commands by name.
var Commands = map[string]proc.Command{
	"grep":   grep,
	"egrep":  egrep,
	"fgrep":  fgrep,
	"sed":    sed,
	"tr":     tr,
	"head":   head,
	"tail":   tail,
	"wc":     wc,
	"sort":   sortCmd,
	"uniq":   uniq,
	"cut":    cut,
	"paste":  paste,
	"comm":   comm,
	"nl":     nl,
	"rev":    rev,
	"tac":    tac,
	"fold":   fold,
	"expand": expand,
	"column": column,
	"join":   join,

	"envsubst": envsubst,

	"od":      od,
	"hexdump": hexdump,
}

// output buffers a command's standard output. Its first write error is
// kept and later writes are dropped, so a command writing into a closed
// pipe stops cheaply: loops check failed and return.
type output struct {
	w   *bufio.Writer
	err error
}

func newOutput(w io.Writer) *output {
	return &output{w: bufio.NewWriterSize(w, 32*1024)}
}

func (o *output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.err = err
	return n, err
}

func (o *output) WriteString(s string) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.WriteString(s)
	o.err = err
	return n, err
}

func (o *output) WriteByte(c byte) error {
	if o.err != nil {
		return o.err
	}
	o.err = o.w.WriteByte(c)
	return o.err
}

// flush writes what is buffered; it reports the first error.
func (o *output) flush() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	return o.err
}

// failed reports whether a write has failed (a closed pipe).
func (o *output) failed() bool { return o.err != nil }

// lineReader reads lines ended by sep (newline, or NUL for -z). A line
// keeps no separator; hasSep tells whether it had one, because GNU tools
// keep a missing final newline missing.
type lineReader struct {
	r      *bufio.Reader
	sep    byte
	buf    []byte
	line   []byte
	hasSep bool
	err    error
}

func newLineReader(r io.Reader, sep byte) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), sep: sep}
}

// next reads the next line; it returns false at the end of the input or
// on a read error (err tells which).
func (lr *lineReader) next() bool {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice(lr.sep)
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.buf = append(lr.buf, chunk...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			lr.err = err
		}
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			chunk = lr.buf
		}
		if len(chunk) == 0 {
			return false
		}
		lr.hasSep = chunk[len(chunk)-1] == lr.sep && err == nil
		if lr.hasSep {
			chunk = chunk[:len(chunk)-1]
		}
		lr.line = chunk
		return true
	}
}

// text returns a copy of the current line, safe to keep.
func (lr *lineReader) text() string { return string(lr.line) }

// sepByte is the line separator: NUL with -z, else newline.
func sepByte(zero bool) byte {
	if zero {
		return 0
	}
	return '\n'
}

// quoteName quotes a file name as coreutils' quotef does in the C.UTF-8
// locale: bare when it holds only characters a shell leaves alone,
// between single quotes otherwise.
func quoteName(name string) string {
	if name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%^") == "" {
		return name
	}
	return quoteAlways(name)
}

// quoteAlways quotes name between single quotes, as coreutils' quoteaf
// does for "cannot open 'x' for reading".
func quoteAlways(name string) string {
	if !strings.Contains(name, "'") {
		return "'" + name + "'"
	}
	if !strings.ContainsAny(name, "\"$`\\") {
		return "\"" + name + "\""
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}

// quoteArg quotes an argument in an error message as coreutils does in
// the C.UTF-8 locale: between ‘curly quotes’.
func quoteArg(s string) string { return "‘" + s + "’" }

// posixlyCorrect reports whether POSIXLY_CORRECT is set, which makes the
// first operand end the options.
func posixlyCorrect(e *proc.Env) bool {
	return e.Getenv("POSIXLY_CORRECT") != ""
}
