package textcmd

import (
	"fmt"
	"io"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const pasteOpts = "d,delimiters: s,serial z,zero-terminated"

// pasteDelims expands paste's delimiter list: \n \t \\ and \0 (none).
func pasteDelims(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				out = append(out, "\n")
			case 't':
				out = append(out, "\t")
			case '0':
				out = append(out, "")
			default:
				out = append(out, string(s[i]))
			}
			continue
		}
		out = append(out, string(s[i]))
	}
	return out
}

func paste(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: pasteOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("paste", 1, "%v", err)
	}
	delims := []string{"\t"}
	serial, zero := false, false
	for _, o := range opts {
		switch o.Key {
		case "d":
			delims = pasteDelims(o.Val)
			if len(delims) == 0 {
				delims = []string{""}
			}
		case "s":
			serial = true
		case "z":
			zero = true
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	sep := sepByte(zero)
	// Every "-" shares standard input, so "paste - -" takes lines in turn.
	var stdin *lineReader
	readers := make([]*lineReader, len(operands))
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	for i, name := range operands {
		if name == "-" {
			if stdin == nil {
				stdin = newLineReader(e.Stdin, sep)
			}
			readers[i] = stdin
			continue
		}
		rc, err := e.Open(name)
		if err != nil {
			fmt.Fprintf(e.Stderr, "paste: %s: %s\n", quoteName(name), proc.ErrorText(err))
			return 1
		}
		closers = append(closers, rc)
		readers[i] = newLineReader(rc, sep)
	}
	out := newOutput(e.Stdout)
	if serial {
		for _, lr := range readers {
			n := 0
			for lr.next() && !e.Cancelled() {
				if n > 0 {
					_, _ = out.WriteString(delims[(n-1)%len(delims)])
				}
				_, _ = out.Write(lr.line)
				n++
			}
			_ = out.WriteByte(sep)
		}
	} else {
		done := make([]bool, len(readers))
		for !e.Cancelled() && !out.failed() {
			var line []byte
			any := false
			for i, lr := range readers {
				if i > 0 {
					line = append(line, delims[(i-1)%len(delims)]...)
				}
				if !done[i] && lr.next() {
					line = append(line, lr.line...)
					any = true
				} else {
					done[i] = true
				}
			}
			if !any {
				break
			}
			_, _ = out.Write(line)
			_ = out.WriteByte(sep)
		}
	}
	if out.flush() != nil {
		return 1
	}
	return 0
}
