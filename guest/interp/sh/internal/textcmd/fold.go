package textcmd

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const foldOpts = "b,bytes s,spaces w,width: 0 1 2 3 4 5 6 7 8 9"

// fold wraps lines at a width counted in columns of bytes (GNU fold has
// no multibyte support: "é" is two columns), tabs to the next multiple
// of 8, backspace back one, carriage return to 0.
func fold(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: foldOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("fold", 1, "%v", err)
	}
	width := 80
	byBytes, spaces := false, false
	digits := ""
	for _, o := range opts {
		if len(o.Key) == 1 && isDigit(o.Key[0]) {
			digits += o.Key
			width, _ = strconv.Atoi(digits)
			continue
		}
		digits = ""
		switch o.Key {
		case "b":
			byBytes = true
		case "s":
			spaces = true
		case "w":
			n, err := strconv.Atoi(o.Val)
			if err != nil || n <= 0 {
				fmt.Fprintf(e.Stderr, "fold: invalid number of columns: %s\n", quoteArg(o.Val))
				return 1
			}
			width = n
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	out := newOutput(e.Stdout)
	status := 0
	for _, name := range operands {
		rc, err := e.Open(name)
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "fold: %s: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
			continue
		}
		lr := newLineReader(rc, '\n')
		for lr.next() && !e.Cancelled() && !out.failed() {
			foldLine(out, lr.line, width, byBytes, spaces)
			if lr.hasSep {
				_ = out.WriteByte('\n')
			}
		}
		rc.Close()
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}

func advanceCol(col int, c byte, byBytes bool) int {
	if byBytes {
		return col + 1
	}
	switch c {
	case '\t':
		return col + 8 - col%8
	case '\b':
		return max(col-1, 0)
	case '\r':
		return 0
	}
	return col + 1
}

// foldLine writes one line folded, as GNU fold's loop does.
func foldLine(out *output, line []byte, width int, byBytes, spaces bool) {
	var buf []byte
	col := 0
	for _, c := range line {
		next := advanceCol(col, c, byBytes)
		if next > width && len(buf) > 0 {
			if spaces {
				if i := lastBlank(buf); i >= 0 {
					_, _ = out.Write(buf[:i+1])
					_ = out.WriteByte('\n')
					rest := append([]byte(nil), buf[i+1:]...)
					buf = rest
					col = 0
					for _, b := range buf {
						col = advanceCol(col, b, byBytes)
					}
					next = advanceCol(col, c, byBytes)
					if next <= width {
						buf = append(buf, c)
						col = next
						continue
					}
				}
			}
			if len(buf) > 0 {
				_, _ = out.Write(buf)
				_ = out.WriteByte('\n')
				buf = buf[:0]
			}
			col = 0
			next = advanceCol(col, c, byBytes)
		}
		buf = append(buf, c)
		col = next
	}
	_, _ = out.Write(buf)
}

func lastBlank(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ' ' || b[i] == '\t' {
			return i
		}
	}
	return -1
}

const expandOpts = "i,initial t,tabs: 0 1 2 3 4 5 6 7 8 9"

// expand turns tabs into spaces, to tab stops every 8 columns or as -t
// lists them.
func expand(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: expandOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("expand", 1, "%v", err)
	}
	initial := false
	spec := ""
	for _, o := range opts {
		switch {
		case o.Key == "i":
			initial = true
		case o.Key == "t":
			if spec != "" {
				spec += ","
			}
			spec += o.Val
		default:
			spec += o.Key
		}
	}
	stops := []int{8}
	if spec != "" {
		stops = nil
		for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if err != nil || n <= 0 || len(stops) > 0 && n <= stops[len(stops)-1] {
				fmt.Fprintf(e.Stderr, "expand: tab size contains invalid character(s): %s\n", quoteArg(f))
				return 1
			}
			stops = append(stops, n)
		}
	}
	nextStop := func(col int) int {
		if len(stops) == 1 {
			return col + stops[0] - col%stops[0]
		}
		for _, s := range stops {
			if s > col {
				return s
			}
		}
		return col + 1
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	out := newOutput(e.Stdout)
	status := 0
	for _, name := range operands {
		rc, err := e.Open(name)
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "expand: %s: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
			continue
		}
		br := bufio.NewReader(rc)
		col, leading := 0, true
		for !e.Cancelled() && !out.failed() {
			c, err := br.ReadByte()
			if err == io.EOF {
				break
			}
			if err != nil {
				status = 1
				break
			}
			switch {
			case c == '\t' && (leading || !initial):
				n := nextStop(col)
				_, _ = out.WriteString(strings.Repeat(" ", n-col))
				col = n
			case c == '\n':
				_ = out.WriteByte(c)
				col, leading = 0, true
			case c == '\b':
				_ = out.WriteByte(c)
				col = max(col-1, 0)
			default:
				if c != ' ' && c != '\t' {
					leading = false
				}
				_ = out.WriteByte(c)
				col++
			}
		}
		rc.Close()
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}
