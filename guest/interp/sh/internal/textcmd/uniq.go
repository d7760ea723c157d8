package textcmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const uniqOpts = "c,count d,repeated D ,all-repeated:: u,unique i,ignore-case f,skip-fields: s,skip-chars: w,check-chars: z,zero-terminated"

func uniq(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: uniqOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	usage := func(msg string) int {
		return e.Usage("uniq", 1, "%s", msg)
	}
	if err != nil {
		return usage(err.Error())
	}
	var count, repeated, allRepeated, unique, icase, zero bool
	delimit := "" // --all-repeated=prepend|separate
	skipFields, skipChars, checkChars := 0, 0, -1
	num := func(o proc.Opt, what string) (int, bool) {
		n, err := strconv.Atoi(o.Val)
		if err != nil || n < 0 {
			fmt.Fprintf(e.Stderr, "uniq: %s: invalid number of %s\n", o.Val, what)
			return 0, false
		}
		return n, true
	}
	var ok bool
	for _, o := range opts {
		switch o.Key {
		case "c":
			count = true
		case "d":
			repeated = true
		case "D":
			allRepeated = true
		case "all-repeated":
			allRepeated = true
			delimit = o.Val
			if delimit == "none" {
				delimit = ""
			}
			if delimit != "" && delimit != "prepend" && delimit != "separate" {
				return usage(fmt.Sprintf("invalid argument %s for '--all-repeated'", quoteArg(o.Val)))
			}
		case "u":
			unique = true
		case "i":
			icase = true
		case "f":
			if skipFields, ok = num(o, "fields to skip"); !ok {
				return 1
			}
		case "s":
			if skipChars, ok = num(o, "bytes to skip"); !ok {
				return 1
			}
		case "w":
			if checkChars, ok = num(o, "bytes to compare"); !ok {
				return 1
			}
		case "z":
			zero = true
		}
	}
	if len(operands) > 2 {
		return usage("extra operand " + quoteArg(operands[2]))
	}
	if allRepeated && count {
		return usage("printing all duplicated lines and repeat counts is meaningless")
	}
	in, outName := "-", "-"
	if len(operands) > 0 {
		in = operands[0]
	}
	if len(operands) > 1 {
		outName = operands[1]
	}
	rc, err := e.Open(in)
	if err != nil {
		fmt.Fprintf(e.Stderr, "uniq: %s: %s\n", quoteName(in), proc.ErrorText(err))
		return 1
	}
	defer rc.Close()
	var w io.Writer = e.Stdout
	if outName != "-" {
		f, err := os.Create(e.Path(outName))
		if err != nil {
			fmt.Fprintf(e.Stderr, "uniq: %s: %s\n", quoteName(outName), proc.ErrorText(err))
			return 1
		}
		defer f.Close()
		w = f
	}
	sep := sepByte(zero)
	out := newOutput(w)
	// key is the part of a line uniq compares.
	key := func(line []byte) []byte {
		p := 0
		for f := 0; f < skipFields; f++ {
			for p < len(line) && isBlank(line[p]) {
				p++
			}
			for p < len(line) && !isBlank(line[p]) {
				p++
			}
		}
		p = min(p+skipChars, len(line))
		k := line[p:]
		if checkChars >= 0 && len(k) > checkChars {
			k = k[:checkChars]
		}
		return k
	}
	equal := func(a, b []byte) bool {
		if icase {
			return bytes.EqualFold(key(a), key(b))
		}
		return bytes.Equal(key(a), key(b))
	}
	var prev []byte
	var n int64
	groups := 0
	flush := func() {
		if n == 0 {
			return
		}
		switch {
		case allRepeated:
			return // printed as they come
		case repeated && n < 2, unique && n > 1:
			return
		}
		if count {
			fmt.Fprintf(out, "%7d ", n)
		}
		_, _ = out.Write(prev)
		_ = out.WriteByte(sep)
	}
	lr := newLineReader(rc, sep)
	for lr.next() && !e.Cancelled() && !out.failed() {
		line := lr.line
		if n > 0 && equal(prev, line) {
			n++
			if allRepeated && !unique {
				if n == 2 {
					if delimit == "prepend" || delimit == "separate" && groups > 0 {
						_ = out.WriteByte(sep)
					}
					groups++
					_, _ = out.Write(prev)
					_ = out.WriteByte(sep)
				}
				_, _ = out.Write(line)
				_ = out.WriteByte(sep)
			}
			continue
		}
		flush()
		prev = append(prev[:0], line...)
		n = 1
	}
	flush()
	status := 0
	if lr.err != nil {
		fmt.Fprintf(e.Stderr, "uniq: %s: %s\n", quoteName(in), proc.ErrorText(lr.err))
		status = 1
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}
