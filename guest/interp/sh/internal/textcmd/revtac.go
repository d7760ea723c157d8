package textcmd

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// rev reverses the characters of each line (util-linux rev); bytes that
// are not UTF-8 are reversed as single characters.
func rev(e *proc.Env, args []string) int {
	operands := args[1:]
	if len(operands) > 0 && operands[0] == "--" {
		operands = operands[1:]
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
			fmt.Fprintf(e.Stderr, "rev: cannot open %s: %s\n", name, proc.ErrorText(err))
			status = 1
			continue
		}
		lr := newLineReader(rc, '\n')
		var buf []byte
		for lr.next() && !e.Cancelled() && !out.failed() {
			line := lr.line
			buf = buf[:0]
			for len(line) > 0 {
				_, n := utf8.DecodeLastRune(line)
				buf = append(buf, line[len(line)-n:]...)
				line = line[:len(line)-n]
			}
			_, _ = out.Write(buf)
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

const tacOpts = "b,before r,regex s,separator:"

// tac prints lines in reverse order. Like GNU tac it reverses records
// that end with the separator, so a last line without one is printed
// glued to the line that then follows it.
func tac(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: tacOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("tac", 1, "%v", err)
	}
	sep := []byte("\n")
	before := false
	for _, o := range opts {
		switch o.Key {
		case "s":
			if o.Val == "" {
				fmt.Fprintln(e.Stderr, "tac: separator cannot be empty")
				return 1
			}
			sep = []byte(o.Val)
		case "b":
			before = true
		case "r":
			fmt.Fprintln(e.Stderr, "tac: --regex is not supported")
			return 1
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
			fmt.Fprintf(e.Stderr, "tac: failed to open %s for reading: %s\n", quoteAlways(name), proc.ErrorText(err))
			status = 1
			continue
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "tac: %s: read error: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
			continue
		}
		var records [][]byte
		for len(data) > 0 {
			i := bytes.Index(data, sep)
			if before {
				j := bytes.Index(data[min(len(sep), len(data)):], sep)
				if i != 0 || j < 0 {
					if i <= 0 {
						records = append(records, data)
						break
					}
					records = append(records, data[:i])
					data = data[i:]
					continue
				}
				records = append(records, data[:len(sep)+j])
				data = data[len(sep)+j:]
				continue
			}
			if i < 0 {
				records = append(records, data)
				break
			}
			records = append(records, data[:i+len(sep)])
			data = data[i+len(sep):]
		}
		for i := len(records) - 1; i >= 0 && !out.failed(); i-- {
			_, _ = out.Write(records[i])
		}
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}
