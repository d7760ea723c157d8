package filecmd

import (
	"bufio"
	"errors"
	"io"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// catState carries line numbering and blank-line squeezing from one file
// to the next: GNU cat numbers the concatenation, not each file.
type catState struct {
	number, nonblank, squeeze, ends, tabs, nonprint bool
	line                                            int
	atStart                                         bool
	blanks                                          int
}

func cat(e *proc.Env, args []string) int {
	opts, files, st, ok := parseArgs(e, "cat", 1, proc.Getopt{Spec: "A,show-all b,number-nonblank e E,show-ends n,number s,squeeze-blank t T,show-tabs u v,show-nonprinting"}, args[1:])
	if !ok {
		return st
	}
	s := &catState{atStart: true}
	for _, o := range opts {
		switch o.Key {
		case "A":
			s.nonprint, s.ends, s.tabs = true, true, true
		case "b":
			s.nonblank, s.number = true, true
		case "e":
			s.nonprint, s.ends = true, true
		case "E":
			s.ends = true
		case "n":
			s.number = true
		case "s":
			s.squeeze = true
		case "t":
			s.nonprint, s.tabs = true, true
		case "T":
			s.tabs = true
		case "v":
			s.nonprint = true
		}
	}
	plain := !s.number && !s.squeeze && !s.ends && !s.tabs && !s.nonprint
	if len(files) == 0 {
		files = []string{"-"}
	}
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	status := 0
	for _, name := range files {
		if e.Cancelled() {
			status = 1
			break
		}
		f, err := e.Open(name)
		if err != nil {
			e.Errorf("cat", "%s: %s", qf(name), proc.ErrorText(err))
			status = 1
			continue
		}
		if plain {
			// Hide out's ReadFrom: it would keep a read error as the
			// writer's own, and the next Flush would report it again.
			_, err = io.Copy(struct{ io.Writer }{out}, f)
		} else {
			err = s.copy(out, f)
		}
		f.Close()
		if err != nil {
			e.Errorf("cat", "%s: %s", qf(name), proc.ErrorText(err))
			status = 1
		}
		// Flush per file so output and errors interleave as GNU's do.
		if err := out.Flush(); err != nil {
			return writeFailed(e, "cat", err)
		}
	}
	return status
}

// copy copies r to w applying the numbering and display options.
func (s *catState) copy(w *bufio.Writer, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			s.writeLine(w, line)
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// writeLine writes a line or, for very long lines, a piece of one.
func (s *catState) writeLine(w *bufio.Writer, line []byte) {
	if s.atStart {
		blank := line[0] == '\n'
		if blank {
			s.blanks++
			if s.squeeze && s.blanks > 1 {
				return
			}
		} else {
			s.blanks = 0
		}
		if s.number && !(s.nonblank && blank) {
			s.line++
			_, _ = w.WriteString(pad6(s.line))
			_ = w.WriteByte('\t')
		}
	}
	s.atStart = line[len(line)-1] == '\n'
	for _, c := range line {
		switch {
		case c == '\n':
			if s.ends {
				_ = w.WriteByte('$')
			}
			_ = w.WriteByte('\n')
		case c == '\t':
			if s.tabs {
				_, _ = w.WriteString("^I")
			} else {
				_ = w.WriteByte(c)
			}
		case s.nonprint:
			writeNonprint(w, c)
		default:
			_ = w.WriteByte(c)
		}
	}
}

// writeNonprint writes c in cat -v notation: ^X for controls, ^? for
// DEL and M- for bytes with the high bit set.
func writeNonprint(w *bufio.Writer, c byte) {
	if c >= 128 {
		_, _ = w.WriteString("M-")
		c -= 128
	}
	switch {
	case c < 32:
		_ = w.WriteByte('^')
		_ = w.WriteByte(c + 64)
	case c == 127:
		_, _ = w.WriteString("^?")
	default:
		_ = w.WriteByte(c)
	}
}

// pad6 formats n right-aligned in six columns, as cat -n does.
func pad6(n int) string {
	s := itoa(n)
	for len(s) < 6 {
		s = " " + s
	}
	return s
}
