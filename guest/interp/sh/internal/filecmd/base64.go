package filecmd

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func base64Cmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "base64", 1, proc.Getopt{Spec: "d,decode i,ignore-garbage w,wrap:"}, args[1:])
	if !ok {
		return st
	}
	decode, garbage, wrap := false, false, 76
	for _, o := range opts {
		switch o.Key {
		case "d":
			decode = true
		case "i":
			garbage = true
		case "w":
			n, err := strconv.Atoi(o.Val)
			if err != nil || n < 0 {
				e.Errorf("base64", "invalid wrap size: %s", q(o.Val))
				return 1
			}
			wrap = n
		}
	}
	name := "-"
	switch len(ops) {
	case 0:
	case 1:
		name = ops[0]
	default:
		return e.Usage("base64", 1, "extra operand %s", q(ops[1]))
	}
	f, err := e.Open(name)
	if err != nil {
		e.Errorf("base64", "%s: %s", qf(name), proc.ErrorText(err))
		return 1
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		e.Errorf("base64", "%s: %s", qf(name), proc.ErrorText(err))
		return 1
	}
	w := bufio.NewWriter(e.Stdout)
	if !decode {
		enc := base64.StdEncoding.EncodeToString(data)
		for wrap > 0 && len(enc) > wrap {
			_, _ = w.WriteString(enc[:wrap] + "\n")
			enc = enc[wrap:]
		}
		// With -w 0 GNU ends without a newline.
		if wrap == 0 {
			_, _ = w.WriteString(enc)
		} else if enc != "" {
			_, _ = w.WriteString(enc + "\n")
		}
		if err := w.Flush(); err != nil {
			return writeFailed(e, "base64", err)
		}
		return 0
	}
	// Newlines are always ignored; with -i everything outside the
	// alphabet is too.
	clean := make([]byte, 0, len(data))
	for _, c := range data {
		switch {
		case c == '\n':
		case garbage && !isBase64(c):
		default:
			clean = append(clean, c)
		}
	}
	// Whole quanta first: Go's decoder returns what it decoded before
	// an error, and GNU prints that much too.
	n := len(clean) / 4 * 4
	out, err := base64.StdEncoding.DecodeString(string(clean[:n]))
	_, _ = w.Write(out)
	if err == nil && n < len(clean) {
		// A final quantum without its padding decodes, then fails.
		tail, _ := base64.RawStdEncoding.DecodeString(string(clean[n:]))
		_, _ = w.Write(tail)
		err = base64.CorruptInputError(n)
	}
	if ferr := w.Flush(); ferr != nil {
		return writeFailed(e, "base64", ferr)
	}
	if err != nil {
		e.Errorf("base64", "invalid input")
		return 1
	}
	return 0
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
