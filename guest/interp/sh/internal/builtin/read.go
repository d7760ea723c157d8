package builtin

import (
	"errors"
	"io"
	"strconv"
	"strings"
)

// A ReadResult is what the read builtin assigns and reports.
type ReadResult struct {
	// Vars are the variables to set, in order, with their values. Names
	// may be array elements such as a[1], kept verbatim.
	Vars [][2]string
	// ArrayName and Array are set instead of Vars for read -a: the array
	// is to be replaced by Array's elements.
	ArrayName string
	Array     []string
	// Status is read's exit status: 1 at end of input before the
	// delimiter (the variables are still assigned), 1 for a bad option
	// value or variable name, 2 for a usage error.
	Status int
	// Errs is a message for standard error, empty if none.
	Errs string
}

// Bash marks characters escaped by a backslash with CTLESC while reading,
// so that field splitting skips them, and removes the marks afterwards.
// Reproducing that representation reproduces bash's results exactly,
// including its oddities (a lone trailing CTLESC can survive).
const (
	ctlEsc = 0x01
	ctlNul = 0x7f
)

const readUsage = "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n"

// readOpts are the parsed options of one read command.
type readOpts struct {
	raw         bool
	delim       byte
	ignoreDelim bool // -N
	nflag       bool // -n or -N given
	nchars      int
	arrayName   string
	timeoutZero bool
	names       []string
}

// Read implements bash's read builtin over r. args are read's arguments;
// ifs is $IFS, with ifsSet false when IFS is unset (meaning " \t\n").
// Options: -r, -d DELIM (empty: NUL), -n N, -N N, -a ARRAY, -p PROMPT, -s,
// -e, -i TEXT, -t TIMEOUT, -u FD and --. The prompt is never shown and
// timeouts are not enforced, as input is not a terminal; -t 0 reports
// input as available. Only file descriptor 0 is supported.
//
// Read consumes exactly the bytes of one record from r, reading one byte
// at a time, so that the next command reads the rest.
func Read(r io.Reader, args []string, ifs string, ifsSet bool) ReadResult {
	opts, res, ok := parseReadArgs(args)
	if !ok {
		return res
	}
	if opts.timeoutZero {
		return ReadResult{}
	}
	if len(opts.names) > 0 && !isAssignable(opts.names[0]) {
		return invalidName(opts.names[0])
	}
	if !ifsSet {
		ifs = " \t\n"
	}
	sepChars := ifs
	if opts.ignoreDelim {
		sepChars = ""
	}
	rd := recordReader{r: r, opts: &opts,
		skipCtlEsc: strings.IndexByte(sepChars, ctlEsc) >= 0,
		skipCtlNul: strings.IndexByte(sepChars, ctlNul) >= 0,
	}
	status := 0
	if !opts.nflag || opts.nchars > 0 {
		var err error
		if status, err = rd.read(); err != nil {
			return ReadResult{Status: 1, Errs: "read: read error: 0: " + err.Error() + "\n"}
		}
	}
	sp := splitter{seps: sepChars, ifs: ifs}
	input := string(rd.buf)
	res = ReadResult{Status: status}
	switch {
	case opts.arrayName != "":
		if !isIdentifier(opts.arrayName) {
			return invalidName(opts.arrayName)
		}
		res.ArrayName = opts.arrayName
		res.Array = []string{}
		for _, w := range sp.list(input) {
			if rd.sawEscape {
				w = dequote(w)
			}
			res.Array = append(res.Array, w)
		}
	case len(opts.names) == 0:
		if rd.sawEscape {
			input = dequote(input)
		}
		res.Vars = [][2]string{{"REPLY", input}}
	default:
		return sp.assign(res, opts.names, input, rd.sawEscape)
	}
	return res
}

func invalidName(name string) ReadResult {
	return ReadResult{Status: 1, Errs: "read: `" + name + "': not a valid identifier\n"}
}

// parseReadArgs parses read's options like bash's internal_getopt with the
// option string "ersa:d:i:n:N:p:t:u:". ok is false if read must return res.
func parseReadArgs(args []string) (opts readOpts, res ReadResult, ok bool) {
	opts.delim = '\n'
	usage := func(msg string) (readOpts, ReadResult, bool) {
		return opts, ReadResult{Status: 2, Errs: msg + readUsage}, false
	}
	fail := func(msg string) (readOpts, ReadResult, bool) {
		return opts, ReadResult{Status: 1, Errs: "read: " + msg + "\n"}, false
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte("ersadinNptu", c) < 0 {
				return usage("read: -" + string(c) + ": invalid option\n")
			}
			if strings.IndexByte("ers", c) >= 0 {
				if c == 'r' {
					opts.raw = true
				}
				continue
			}
			var val string
			switch {
			case j+1 < len(a):
				val = a[j+1:]
			case i+1 < len(args):
				i++
				val = args[i]
			default:
				return usage("read: -" + string(c) + ": option requires an argument\n")
			}
			j = len(a)
			switch c {
			case 'a':
				opts.arrayName = val
			case 'd':
				opts.delim = 0
				if val != "" {
					opts.delim = val[0]
				}
			case 'N', 'n':
				if c == 'N' {
					opts.ignoreDelim = true
				}
				n, err := strconv.ParseInt(strings.Trim(val, " \t\n\v\f\r"), 10, 32)
				if err != nil || n < 0 {
					return fail(val + ": invalid number")
				}
				opts.nflag, opts.nchars = true, int(n)
			case 't':
				zero, valid := parseTimeout(val)
				if !valid {
					return fail(val + ": invalid timeout specification")
				}
				opts.timeoutZero = zero
			case 'u':
				n, err := strconv.ParseInt(strings.Trim(val, " \t\n\v\f\r"), 10, 32)
				if err != nil || n < 0 {
					return fail(val + ": invalid file descriptor specification")
				}
				if n != 0 {
					return fail(strconv.FormatInt(n, 10) + ": invalid file descriptor: Bad file descriptor")
				}
			}
		}
	}
	opts.names = args[i:]
	return opts, ReadResult{}, true
}

// parseTimeout checks a -t value like bash's uconvert: an optional sign,
// decimal digits and an optional fraction. A negative value is refused only
// when its integer part is not zero, so -0.5 passes, as in bash. zero
// reports a timeout of zero (which includes the empty string).
func parseTimeout(s string) (zero, valid bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return false, false
		}
	}
	intZero := strings.Trim(intPart, "0") == ""
	if neg && !intZero {
		return false, false
	}
	return intZero && strings.Trim(frac, "0") == "", true
}

// recordReader reads one record byte by byte, the way bash's read loop
// does, into buf with CTLESC marks.
type recordReader struct {
	r                      io.Reader
	opts                   *readOpts
	skipCtlEsc, skipCtlNul bool
	buf                    []byte
	sawEscape              bool
	one                    [1]byte
}

// errNoProgress stops a reader that keeps returning no data and no error.
var errNoProgress = errors.New("no progress reading input")

// next reads one byte; ok is false at end of input.
func (rd *recordReader) next() (c byte, ok bool, err error) {
	for range 100 {
		n, err := rd.r.Read(rd.one[:])
		if n == 1 {
			return rd.one[0], true, nil
		}
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
	return 0, false, errNoProgress
}

// read fills buf with one record and returns read's status: 1 if input
// ended before the delimiter.
func (rd *recordReader) read() (int, error) {
	o := rd.opts
	passNext := false
	nr := 0
	for {
		c, ok, err := rd.next()
		if err != nil {
			return 1, err
		}
		if !ok {
			return 1, nil
		}
		if passNext {
			passNext = false
			if c == '\n' {
				// Backslash-newline is a line continuation: drop the mark.
				if !rd.skipCtlEsc && len(rd.buf) > 0 {
					rd.buf = rd.buf[:len(rd.buf)-1]
				}
				continue
			}
		} else {
			if c == '\\' && !o.raw {
				passNext = true
				if !rd.skipCtlEsc {
					rd.sawEscape = true
					rd.buf = append(rd.buf, ctlEsc)
				}
				continue
			}
			if !o.ignoreDelim && c == o.delim {
				return 0, nil
			}
			if c == 0 && (o.ignoreDelim || o.delim != 0) {
				continue // bash drops NUL bytes
			}
			if (!rd.skipCtlEsc && c == ctlEsc) || (!rd.skipCtlNul && c == ctlNul) {
				rd.sawEscape = true
				rd.buf = append(rd.buf, ctlEsc)
			}
		}
		rd.buf = append(rd.buf, c)
		if c >= 0x80 {
			if err := rd.readMultibyte(c); err != nil {
				return 1, err
			}
		}
		nr++
		if o.nchars > 0 && nr >= o.nchars {
			return 0, nil
		}
	}
}

// readMultibyte reads the rest of the UTF-8 character that lead starts, so
// that -n counts characters. Like bash it takes bytes while the sequence
// may still be valid, keeping the byte that proves it invalid.
func (rd *recordReader) readMultibyte(lead byte) error {
	need := 0
	switch {
	case lead >= 0xc2 && lead <= 0xdf:
		need = 1
	case lead >= 0xe0 && lead <= 0xef:
		need = 2
	case lead >= 0xf0 && lead <= 0xf7:
		need = 3
	case lead >= 0xf8 && lead <= 0xfb:
		need = 4
	case lead >= 0xfc && lead <= 0xfd:
		need = 5
	}
	for ; need > 0; need-- {
		c, ok, err := rd.next()
		if err != nil || !ok {
			return err
		}
		rd.buf = append(rd.buf, c)
		if c&0xc0 != 0x80 {
			return nil
		}
	}
	return nil
}

// dequote removes CTLESC marks, keeping the characters they protect. Like
// bash, a string that is a lone CTLESC is returned unchanged.
func dequote(s string) string {
	if s == string(rune(ctlEsc)) || strings.IndexByte(s, ctlEsc) < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == ctlEsc {
			i++
			if i == len(s) {
				break
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}
