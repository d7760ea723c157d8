package filecmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// xargs builds command lines from its input and runs them one after the
// other through proc.Env.Exec (-P is accepted but commands never run in
// parallel). Input is read as the commands need it, so "yes | xargs -n1
// | head" ends.
type xargser struct {
	e        *proc.Env
	r        *bufio.Reader
	delim    int // -1: blank-separated with quotes
	lineMode bool
	eof      string
	hasEOF   bool
	done     bool
	pending  *pendingItem // an item read but left for the next command
}

// errQuote reports an unmatched quote; the text names which.
type errQuote string

func (e errQuote) Error() string { return string(e) }

const xargsMaxChars = 128 << 10

func xargs(e *proc.Env, args []string) int {
	opts, cmd, st, ok := parseArgs(e, "xargs", 1, proc.Getopt{Spec: "0,null a,arg-file: d,delimiter: E: e,eof:: I: i,replace:: L,max-lines: l:: n,max-args: o,open-tty p,interactive P,max-procs: ,process-slot-var: r,no-run-if-empty s,max-chars: ,show-limits t,verbose x,exit", Posix: true}, args[1:])
	if !ok {
		return st
	}
	x := &xargser{e: e, delim: -1}
	var replace string
	maxArgs, maxLines, maxChars := 0, 0, xargsMaxChars
	noEmpty, trace, exitOnSize := false, false, false
	input := e.Stdin
	for _, o := range opts {
		switch o.Key {
		case "0":
			x.delim = 0
		case "d":
			d, ok := parseDelim(o.Val)
			if !ok {
				e.Errorf("xargs", "invalid input delimiter specification %s: the delimiter must be either a single character or an escape sequence starting with \\.", o.Val)
				return 1
			}
			x.delim = int(d)
		case "a":
			f, err := e.Open(o.Val)
			if err != nil {
				e.Errorf("xargs", "Cannot open input file %s: %s", q(o.Val), proc.ErrorText(err))
				return 1
			}
			defer f.Close()
			input = f
		case "E", "e":
			x.eof, x.hasEOF = o.Val, o.Val != ""
		case "I", "i":
			replace = o.Val
			if o.Key == "i" && !o.HasVal {
				replace = "{}"
			}
			maxLines, maxArgs = 1, 0
			x.lineMode = true
		case "L", "l":
			n := 1
			if o.HasVal {
				v, err := strconv.Atoi(o.Val)
				if err != nil || v < 1 {
					e.Errorf("xargs", "invalid number %s for -L option", q(o.Val))
					return 1
				}
				n = v
			}
			maxLines, maxArgs, replace = n, 0, ""
			x.lineMode = false
		case "n":
			v, err := strconv.Atoi(o.Val)
			if err != nil || v < 1 {
				e.Errorf("xargs", "invalid number %s for -n option", q(o.Val))
				return 1
			}
			maxArgs, maxLines = v, 0
		case "s":
			v, err := strconv.Atoi(o.Val)
			if err != nil || v < 1 {
				e.Errorf("xargs", "invalid number %s for -s option", q(o.Val))
				return 1
			}
			maxChars = min(v, xargsMaxChars)
		case "P":
			if _, err := strconv.Atoi(o.Val); err != nil {
				e.Errorf("xargs", "invalid number %s for -P option", q(o.Val))
				return 1
			}
		case "r":
			noEmpty = true
		case "t", "p":
			trace = true
		case "x":
			exitOnSize = true
		case "show-limits":
			fmt.Fprintf(e.Stderr, "Size of command buffer we are actually using: %d\n", maxChars)
		}
	}
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	x.r = bufio.NewReader(input)
	base := 0
	for _, c := range cmd {
		base += len(c) + 1
	}
	status := 0
	// run runs one command line and reports whether xargs should go on.
	run := func(argv []string) bool {
		if trace {
			fmt.Fprintln(e.Stderr, strings.Join(argv, " "))
		}
		rc := 127
		if e.Exec != nil {
			rc = e.Exec(argv, e.Stdin, e.Stdout, e.Stderr)
		}
		switch {
		case rc == 0:
		case rc == 255:
			e.Errorf("xargs", "%s: exited with status 255; aborting", argv[0])
			status = 124
			return false
		case rc == 127:
			e.Errorf("xargs", "%s: No such file or directory", argv[0])
			status = 127
			return false
		case rc == 126:
			status = 126
			return false
		case rc > 128:
			e.Errorf("xargs", "%s: terminated by signal %d", argv[0], rc-128)
			status = 125
			return false
		default:
			status = 123
		}
		return !e.Cancelled()
	}
	ran := false
	for {
		var batch []string
		size, lines, lineHasItems := base, 0, false
		var readErr error
		for !x.done || x.pending != nil {
			item, eol, err := x.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr = err
				break
			}
			if item != nil {
				if size+len(*item)+1 > maxChars && len(batch) > 0 {
					if exitOnSize {
						e.Errorf("xargs", "argument list too long")
						return 1
					}
					// Too long for this command: it starts the next one.
					x.pending = &pendingItem{*item, eol}
					break
				}
				batch = append(batch, *item)
				size += len(*item) + 1
				lineHasItems = true
			}
			if eol && lineHasItems {
				lines, lineHasItems = lines+1, false
			}
			if (maxArgs > 0 && len(batch) >= maxArgs) || (maxLines > 0 && lines >= maxLines) {
				break
			}
		}
		if readErr != nil {
			// What was read before the error still runs, as in GNU.
			if len(batch) > 0 {
				run(append(append([]string(nil), cmd...), batch...))
			}
			var eq errQuote
			if errors.As(readErr, &eq) {
				e.Errorf("xargs", "%s; by default quotes are special to xargs unless you use the -0 option", eq)
			} else {
				e.Errorf("xargs", "read error: %s", proc.ErrorText(readErr))
			}
			return 1
		}
		if len(batch) == 0 {
			// GNU runs the command once on empty input unless -r (or -I).
			if !ran && !noEmpty && replace == "" {
				run(cmd)
			}
			return status
		}
		ran = true
		var argv []string
		if replace != "" {
			for _, c := range cmd {
				argv = append(argv, strings.ReplaceAll(c, replace, batch[0]))
			}
		} else {
			argv = append(append([]string(nil), cmd...), batch...)
		}
		if !run(argv) {
			return status
		}
	}
}

// parseDelim decodes -d's argument: one character or an escape.
func parseDelim(s string) (byte, bool) {
	if len(s) == 1 {
		return s[0], true
	}
	if len(s) < 2 || s[0] != '\\' {
		return 0, false
	}
	switch s[1] {
	case 'n':
		return '\n', len(s) == 2
	case 't':
		return '\t', len(s) == 2
	case 'r':
		return '\r', len(s) == 2
	case '0':
		if len(s) == 2 {
			return 0, true
		}
		v, err := strconv.ParseUint(s[1:], 8, 8)
		return byte(v), err == nil
	case 'x':
		v, err := strconv.ParseUint(s[2:], 16, 8)
		return byte(v), err == nil
	case '\\':
		return '\\', len(s) == 2
	}
	return 0, false
}

type pendingItem struct {
	item string
	eol  bool
}

// next returns the next input item (nil for a line that held none) and
// whether it ended a line; io.EOF at the end of the input.
func (x *xargser) next() (*string, bool, error) {
	if p := x.pending; p != nil {
		x.pending = nil
		return &p.item, p.eol, nil
	}
	if x.done {
		return nil, false, io.EOF
	}
	item, eol, err := x.read()
	if errors.Is(err, io.EOF) {
		x.done = true
	}
	if item != nil && x.hasEOF && *item == x.eof {
		x.done = true
		return nil, false, io.EOF
	}
	if errors.Is(err, io.EOF) && item != nil {
		return item, true, nil
	}
	return item, eol, err
}

func (x *xargser) read() (*string, bool, error) {
	if x.delim >= 0 {
		s, err := x.r.ReadString(byte(x.delim))
		if err == io.EOF {
			if s == "" {
				return nil, false, io.EOF
			}
			return &s, true, io.EOF
		}
		if err != nil {
			return nil, false, err
		}
		s = s[:len(s)-1]
		return &s, true, nil
	}
	var b strings.Builder
	have := false
	var quote byte
	for {
		c, err := x.r.ReadByte()
		if err != nil {
			if quote != 0 {
				return nil, false, errQuote(map[byte]string{'\'': "unmatched single quote", '"': "unmatched double quote"}[quote])
			}
			if have {
				s := b.String()
				return &s, true, io.EOF
			}
			return nil, false, err
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\n' {
				return nil, false, errQuote(map[byte]string{'\'': "unmatched single quote", '"': "unmatched double quote"}[quote])
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, have = c, true
		case c == '\\':
			n, err := x.r.ReadByte()
			if err == nil {
				b.WriteByte(n)
				have = true
			}
		case c == '\n':
			if have {
				s := b.String()
				if x.lineMode {
					s = strings.TrimRight(s, " \t")
				}
				return &s, true, nil
			}
			return nil, true, nil
		case (c == ' ' || c == '\t') && (!x.lineMode || !have):
			if have {
				s := b.String()
				return &s, false, nil
			}
		default:
			b.WriteByte(c)
			have = true
		}
	}
}
