package textcmd

import (
	"bytes"
	"fmt"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const commOpts = "1 2 3 ,check-order ,nocheck-order ,output-delimiter: ,total z,zero-terminated"

func comm(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: commOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	usage := func(msg string) int {
		return e.Usage("comm", 1, "%s", msg)
	}
	if err != nil {
		return usage(err.Error())
	}
	var hide [4]bool
	checkOrder, noCheck, total, zero := false, false, false, false
	delim := "\t"
	for _, o := range opts {
		switch o.Key {
		case "1", "2", "3":
			hide[o.Key[0]-'0'] = true
		case "check-order":
			checkOrder = true
		case "nocheck-order":
			noCheck = true
		case "output-delimiter":
			delim = o.Val
			if delim == "" {
				delim = "\x00"
			}
		case "total":
			total = true
		case "z":
			zero = true
		}
	}
	switch len(operands) {
	case 0:
		return usage("missing operand")
	case 1:
		return usage("missing operand after " + quoteArg(operands[0]))
	case 2:
	default:
		return usage("extra operand " + quoteArg(operands[2]))
	}
	sep := sepByte(zero)
	var lrs [2]*lineReader
	for i, name := range operands {
		rc, err := e.Open(name)
		if err != nil {
			fmt.Fprintf(e.Stderr, "comm: %s: %s\n", quoteName(name), proc.ErrorText(err))
			return 1
		}
		defer rc.Close()
		lrs[i] = newLineReader(rc, sep)
	}
	out := newOutput(e.Stdout)
	var counts [4]int64
	write := func(col int, line []byte) {
		counts[col]++
		if hide[col] {
			return
		}
		for c := 1; c < col; c++ {
			if !hide[c] {
				_, _ = out.WriteString(delim)
			}
		}
		_, _ = out.Write(line)
		_ = out.WriteByte(sep)
	}
	var cur [2][]byte
	var prev [2][]byte
	var have [2]bool
	var warned [2]bool
	unsorted := false
	advance := func(i int) {
		if have[i] {
			prev[i] = append(prev[i][:0], cur[i]...)
		}
		had := have[i]
		have[i] = lrs[i].next()
		if have[i] {
			cur[i] = append(cur[i][:0], lrs[i].line...)
			if had && !noCheck && !warned[i] && bytes.Compare(prev[i], cur[i]) > 0 {
				warned[i] = true
				unsorted = true
				_ = out.flush()
				fmt.Fprintf(e.Stderr, "comm: file %d is not in sorted order\n", i+1)
				if checkOrder {
					// --check-order makes disorder fatal.
					have = [2]bool{}
				}
			}
		}
	}
	advance(0)
	advance(1)
	for (have[0] || have[1]) && !e.Cancelled() && !out.failed() {
		switch {
		case !have[1] || have[0] && bytes.Compare(cur[0], cur[1]) < 0:
			write(1, cur[0])
			advance(0)
		case !have[0] || bytes.Compare(cur[0], cur[1]) > 0:
			write(2, cur[1])
			advance(1)
		default:
			write(3, cur[0])
			advance(0)
			advance(1)
		}
	}
	if total {
		fmt.Fprintf(out, "%d%s%d%s%d%stotal%c", counts[1], delim, counts[2], delim, counts[3], delim, sep)
	}
	status := 0
	if out.flush() != nil {
		status = 1
	}
	if unsorted {
		fmt.Fprintln(e.Stderr, "comm: input is not in sorted order")
		status = 1
	}
	return status
}
