package filecmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// cmp compares two files byte by byte: exit 0 when equal, 1 when they
// differ, 2 on trouble.
func cmp(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "cmp", 2, proc.Getopt{Spec: "b,print-bytes i,ignore-initial: l,verbose n,bytes: s,quiet,silent"}, args[1:])
	if !ok {
		return st
	}
	var verbose, silent, printBytes bool
	limit := int64(-1)
	for _, o := range opts {
		switch o.Key {
		case "b":
			printBytes = true
		case "l":
			verbose = true
		case "s":
			silent = true
		case "n":
			n, ok := parseSize(o.Val)
			if !ok {
				e.Errorf("cmp", "invalid --bytes value %s", q(o.Val))
				return 2
			}
			limit = n
		}
	}
	switch {
	case len(ops) == 0:
		return diffUsage(e, "cmp", "missing operand after '%s'", "cmp")
	case len(ops) > 2:
		return diffUsage(e, "cmp", "extra operand '%s'", ops[2])
	case len(ops) == 1:
		ops = append(ops, "-")
	}
	// The files are read whole: cmp -l needs their sizes for its column
	// width, and the sandbox's files are small.
	var data [2][]byte
	for i, name := range ops {
		f, err := e.Open(name)
		if err == nil {
			data[i], err = io.ReadAll(f)
			f.Close()
		}
		if err != nil {
			if !silent {
				e.Errorf("cmp", "%s: %s", name, proc.ErrorText(err))
			}
			return 2
		}
	}
	a, b := data[0], data[1]
	if limit >= 0 {
		a, b = a[:min(int64(len(a)), limit)], b[:min(int64(len(b)), limit)]
	}
	w := bufio.NewWriter(e.Stdout)
	defer func() { _ = w.Flush() }()
	width := len(fmt.Sprint(max(len(a), len(b))))
	status, line := 0, 1
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if silent {
				return 1
			}
			if !verbose {
				if printBytes {
					fmt.Fprintf(w, "%s %s differ: byte %d, line %d is %3o %s %3o %s\n", ops[0], ops[1], i+1, line, a[i], printable(a[i]), b[i], printable(b[i]))
				} else {
					fmt.Fprintf(w, "%s %s differ: byte %d, line %d\n", ops[0], ops[1], i+1, line)
				}
				return 1
			}
			if printBytes {
				fmt.Fprintf(w, "%*d %3o %-4s %3o %s\n", width, i+1, a[i], printable(a[i]), b[i], printable(b[i]))
			} else {
				fmt.Fprintf(w, "%*d %3o %3o\n", width, i+1, a[i], b[i])
			}
			status = 1
		}
		if a[i] == '\n' {
			line++
		}
	}
	if len(a) == len(b) {
		return status
	}
	if !silent {
		short := ops[0]
		if len(b) < len(a) {
			short = ops[1]
		}
		_ = w.Flush()
		switch {
		case n == 0:
			e.Errorf("cmp", "EOF on %s which is empty", short)
		case verbose:
			e.Errorf("cmp", "EOF on %s after byte %d", short, n)
		default:
			// "line N" after a complete line, "in line N" inside one.
			lines := bytes.Count(a[:n], []byte("\n"))
			if a[n-1] == '\n' {
				e.Errorf("cmp", "EOF on %s after byte %d, line %d", short, n, lines)
			} else {
				e.Errorf("cmp", "EOF on %s after byte %d, in line %d", short, n, lines+1)
			}
		}
	}
	return 1
}

// printable is cmp -b's rendering of a byte: itself, ^X, M-x.
func printable(c byte) string {
	s := ""
	if c >= 128 {
		s, c = "M-", c-128
	}
	switch {
	case c < 32:
		return s + "^" + string(rune(c+64))
	case c == 127:
		return s + "^?"
	}
	return s + string(rune(c))
}
