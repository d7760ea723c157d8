package textcmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// odOpts are GNU od's options. Each long option is its own item, apart
// from its letter, so that a bad number names the option the way it was
// spelled ("invalid -j argument", "invalid --skip-bytes argument"), as
// GNU does; -S needs its value while --strings may go without.
const odOpts = "A: ,address-radix: j: ,skip-bytes: N: ,read-bytes: S: ,strings:: t: ,format: " +
	"v ,output-duplicates w:: ,width:: ,traditional ,endian: ,help ,version " +
	"a b B c d D e f F h H i I l L o O s x X"

// odSuffixes are the multiplier suffixes -j, -N and -S accept; the "0"
// lets K, M... take a B (powers of 1000) or iB after them.
const odSuffixes = "bEGKkMmPTYZ0"

// odShorthands are the traditional format options and the -t types they
// stand for.
var odShorthands = map[string]string{
	"a": "a", "b": "o1", "c": "c", "D": "u4", "d": "u2", "e": "fD", "F": "fD", "f": "fF",
	"H": "x4", "X": "x4", "i": "dI", "I": "dL", "L": "dL", "l": "dL", "O": "o4",
	"B": "o2", "o": "o2", "s": "d2", "h": "x2", "x": "x2",
}

// The widest value of an integer of each size in bytes, in digits (and
// sign), as GNU od sizes its columns.
var (
	odOctDigits   = [9]int{0, 3, 6, 8, 11, 14, 16, 19, 22}
	odSignedDec   = [9]int{1, 4, 6, 8, 11, 13, 16, 18, 20}
	odUnsignedDec = [9]int{0, 3, 5, 8, 10, 13, 15, 17, 20}
)

// odFloatWidths are the columns of float, double and x86 long double:
// the longest text the shortest round-tripping %g gives each.
var odFloatWidths = map[int]int{4: 15, 8: 24, 16: 29}

// odCharNames are -t a's names of the control characters and space.
var odCharNames = [33]string{
	"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel",
	"bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
	"dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb",
	"can", "em", "sub", "esc", "fs", "gs", "rs", "us",
	"sp",
}

// odType is one output type (-t): how many bytes a field shows and how.
type odType struct {
	kind    byte // 'd', 'o', 'u', 'x', 'f', 'a' or 'c'
	size    int  // bytes per field
	width   int  // the widest field, without the space before it
	pad     int  // padding spread over a line's fields, so that the lines of several types align
	trailer bool // a z suffix: the line's printable bytes follow it
}

// Address styles: GNU's plain offset, none (-A n), and the traditional
// pseudo-address in parentheses, alone (-A n) or after the offset.
const (
	odAddrStd = iota
	odAddrNone
	odAddrParen
	odAddrLabel
)

// od is GNU coreutils 9.1's od: it dumps its input, the files
// concatenated, in octal, decimal, hexadecimal, floating point or as
// characters, one line per block of 16 bytes (-w), with GNU's columns so
// that scripts cutting its output find the fields where they expect
// them. Integers and floats are read little-endian, as on x86 (--endian
// swaps them); long doubles are x86's 80-bit extended format.
func od(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: odOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("od", 1, "%v", err)
	}
	d := &odDumper{e: e, addrBase: 8, addrPad: 7, dedupe: true}
	var skip, maxBytes, stringMin, desiredWidth uint64
	limited, dumpStrings, traditional, widthSet, modern, ok := false, false, false, false, false, true
	optName := func(key string) string {
		if len(key) == 1 {
			return "-" + key
		}
		return "--" + key
	}
	for _, o := range opts {
		switch o.Key {
		case "A", "address-radix":
			modern = true
			radix := byte(0)
			if o.Val != "" {
				radix = o.Val[0]
			}
			switch radix {
			case 'd':
				d.addrMode, d.addrBase, d.addrPad = odAddrStd, 10, 7
			case 'o':
				d.addrMode, d.addrBase, d.addrPad = odAddrStd, 8, 7
			case 'x':
				d.addrMode, d.addrBase, d.addrPad = odAddrStd, 16, 6
			case 'n':
				d.addrMode, d.addrPad = odAddrNone, 0
			default:
				e.Errorf("od", "invalid output address radix '%s'; it must be one character from [doxn]", []byte{radix})
				return 1
			}
		case "j", "skip-bytes", "N", "read-bytes", "S", "strings":
			modern = true
			var v uint64
			if o.Key == "S" || o.Key == "strings" {
				v = 3
			}
			if o.HasVal {
				var status int
				if v, status = odStrtoumax(o.Val, 0, odSuffixes); status != odNumOK {
					return odNumError(e, status, optName(o.Key), o.Val)
				}
			}
			switch o.Key {
			case "j", "skip-bytes":
				skip = v
			case "N", "read-bytes":
				maxBytes, limited = v, true
			default:
				stringMin, dumpStrings = v, true
			}
		case "t", "format":
			modern = true
			types, msg := odDecodeTypes(o.Val)
			if msg != "" {
				e.Errorf("od", "%s", msg)
				ok = false
			}
			d.types = append(d.types, types...)
		case "v", "output-duplicates":
			modern = true
			d.dedupe = false
		case "w", "width":
			modern, widthSet = true, true
			desiredWidth = 32
			if o.HasVal {
				var status int
				if desiredWidth, status = odStrtoumax(o.Val, 10, ""); status != odNumOK {
					return odNumError(e, status, optName(o.Key), o.Val)
				}
			}
		case "traditional":
			traditional = true
		case "endian":
			switch {
			case o.Val != "" && strings.HasPrefix("little", o.Val):
				d.bigEndian = false
			case o.Val != "" && strings.HasPrefix("big", o.Val):
				d.bigEndian = true
			default:
				what := "invalid"
				if o.Val == "" {
					what = "ambiguous"
				}
				e.Errorf("od", "%s argument %s for %s", what, quoteArg(o.Val), quoteArg("--endian"))
				fmt.Fprintf(e.Stderr, "Valid arguments are:\n  - %s\n  - %s\n", quoteArg("little"), quoteArg("big"))
				e.TryHelp("od")
				return 1
			}
		case "help":
			fmt.Fprint(e.Stdout, "Usage: od [OPTION]... [FILE]...\n  or:  od [-abcdfilosx]... [FILE] [[+]OFFSET[.][b]]\n"+
				"  or:  od --traditional [OPTION]... [FILE] [[+]OFFSET[.][b] [+][LABEL][.][b]]\n"+
				"This is skillrun's sandboxed od; it follows GNU coreutils 9.1's od, see its manual.\n")
			return 0
		case "version":
			fmt.Fprint(e.Stdout, "od (GNU coreutils) 9.1\nCopyright (C) 2022 Free Software Foundation, Inc.\n"+
				"License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"+
				"This is free software: you are free to change and redistribute it.\n"+
				"There is NO WARRANTY, to the extent permitted by law.\n\nWritten by Jim Meyering.\n")
			return 0
		default:
			types, _ := odDecodeTypes(odShorthands[o.Key])
			d.types = append(d.types, types...)
		}
	}
	if !ok {
		return 1
	}
	if dumpStrings && len(d.types) > 0 {
		e.Errorf("od", "no type may be specified when dumping strings")
		return 1
	}

	// The traditional forms: od [FILE] [[+]OFFSET [[+]LABEL]]. Without
	// --traditional POSIX allows only an offset starting with + or, with
	// two operands, a digit, and only when no modern option was given.
	var pseudoStart uint64
	pseudo := false
	if !modern || traditional {
		switch len(operands) {
		case 1:
			if traditional || strings.HasPrefix(operands[0], "+") {
				if o1, ok := odOldOffset(operands[0]); ok {
					skip, operands = o1, nil
				}
			}
		case 2:
			if traditional || operands[1] != "" && (operands[1][0] == '+' || isDigit(operands[1][0])) {
				if o2, ok := odOldOffset(operands[1]); ok {
					if o1, ok := odOldOffset(operands[0]); traditional && ok {
						skip, pseudoStart, pseudo, operands = o1, o2, true, nil
					} else {
						skip, operands = o2, operands[:1]
					}
				}
			}
		case 3:
			if traditional {
				o1, ok1 := odOldOffset(operands[1])
				o2, ok2 := odOldOffset(operands[2])
				if ok1 && ok2 {
					skip, pseudoStart, pseudo, operands = o1, o2, true, operands[:1]
				}
			}
		}
		if traditional && len(operands) > 1 {
			e.Errorf("od", "extra operand %s", quoteArg(operands[1]))
			e.Errorf("od", "compatibility mode supports at most one file")
			e.TryHelp("od")
			return 1
		}
	}
	if pseudo {
		if d.addrMode == odAddrNone {
			d.addrMode, d.addrBase, d.addrPad = odAddrParen, 8, 7
		} else {
			d.addrMode = odAddrLabel
		}
	}
	var end uint64
	if limited {
		end = skip + maxBytes
		if end < skip {
			e.Errorf("od", "skip-bytes + read-bytes is too large")
			return 1
		}
	}
	if len(d.types) == 0 {
		d.types, _ = odDecodeTypes("oS")
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}

	d.out = newOutput(e.Stdout)
	// With -N, GNU reads unbuffered so that standard input is left just
	// past the bytes dumped, for the next command to read.
	in := &odInput{e: e, out: d.out, names: operands, raw: limited && !dumpStrings, ok: true}
	defer in.close()
	in.next()
	if in.r == nil {
		return 1
	}
	if !in.skip(skip) {
		_ = d.out.flush()
		e.Errorf("od", "cannot skip past end of combined input")
		return 1
	}
	d.pseudoOffset = pseudoStart - skip

	lcm := 1
	for _, t := range d.types {
		lcm = lcm / odGCD(lcm, t.size) * t.size
	}
	switch {
	case !widthSet && lcm < 16:
		d.bpb = lcm * (16 / lcm)
	case !widthSet:
		d.bpb = lcm
	case desiredWidth != 0 && desiredWidth%uint64(lcm) == 0 && desiredWidth > 1<<26:
		// GNU would try to allocate the block; the sandbox has not the
		// memory for lines that long.
		e.Errorf("od", "memory exhausted")
		return 1
	case desiredWidth != 0 && desiredWidth%uint64(lcm) == 0:
		d.bpb = int(desiredWidth)
	default:
		e.Errorf("od", "warning: invalid width %d; using %d instead", desiredWidth, lcm)
		d.bpb = lcm
	}
	// Every type's line is as wide as the widest one's: its padding is
	// what its fields leave of that width.
	widest := 0
	for _, t := range d.types {
		widest = max(widest, (t.width+1)*(d.bpb/t.size))
	}
	for i := range d.types {
		d.types[i].pad = widest - d.types[i].width*(d.bpb/d.types[i].size)
	}

	if dumpStrings {
		d.dumpStrings(in, stringMin, skip, limited, end)
	} else {
		d.dump(in, skip, limited, end)
	}
	if d.out.flush() != nil || !in.ok {
		return 1
	}
	return 0
}

// odGCD is the greatest common divisor, for the least common multiple
// of the types' sizes: a line must hold whole fields of every type.
func odGCD(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// odDecodeTypes decodes a -t argument, one or more types such as "x1z"
// or "d4c"; on error it returns GNU's message.
func odDecodeTypes(s string) ([]odType, string) {
	orig := s
	var types []odType
	for s != "" {
		c := s[0]
		s = s[1:]
		var t odType
		switch c {
		case 'd', 'o', 'u', 'x', 'f':
			letters, what := "CSIL", "integral"
			sizes := map[byte]int{'C': 1, 'S': 2, 'I': 4, 'L': 8}
			size, valid := 4, func(n int) bool { return n == 1 || n == 2 || n == 4 || n == 8 }
			if c == 'f' {
				letters, what = "FDL", "floating point"
				sizes = map[byte]int{'F': 4, 'D': 8, 'L': 16}
				size, valid = 8, func(n int) bool { return n == 4 || n == 8 || n == 16 }
			}
			digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
			switch {
			case s != "" && strings.IndexByte(letters, s[0]) >= 0:
				size, s = sizes[s[0]], s[1:]
			case digits > 0:
				n, err := strconv.Atoi(s[:digits])
				if err != nil || n > math.MaxInt32 {
					return nil, "invalid type string " + quoteArg(orig)
				}
				if !valid(n) {
					return nil, fmt.Sprintf("invalid type string %s;\nthis system doesn't provide a %d-byte %s type", quoteArg(orig), n, what)
				}
				size, s = n, s[digits:]
			}
			t = odType{kind: c, size: size}
			switch c {
			case 'd':
				t.width = odSignedDec[size]
			case 'o':
				t.width = odOctDigits[size]
			case 'u':
				t.width = odUnsignedDec[size]
			case 'x':
				t.width = 2 * size
			default:
				t.width = odFloatWidths[size]
			}
		case 'a', 'c':
			t = odType{kind: c, size: 1, width: 3}
		default:
			return nil, fmt.Sprintf("invalid character '%s' in type string %s", []byte{c}, quoteArg(orig))
		}
		if s != "" && s[0] == 'z' {
			t.trailer, s = true, s[1:]
		}
		types = append(types, t)
	}
	return types, ""
}

// Results of odStrtoumax, as gnulib's xstrtol reports them; a bad
// suffix and an overflow may come together.
const (
	odNumOK        = 0
	odNumOverflow  = 1
	odNumBadSuffix = 2
	odNumInvalid   = 4
)

// odScanUint reads an unsigned number at the start of s as C's strtoumax
// does: after blanks and a '+', in base (0: by its 0x or 0 prefix). It
// returns the rest of s, all of s if there was no number, and whether
// the number overflowed (the value is then the largest).
func odScanUint(s string, base int) (v uint64, rest string, overflow bool) {
	p := strings.TrimLeft(s, " \t\n\v\f\r")
	p = strings.TrimPrefix(p, "+")
	hexPrefix := len(p) > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && odDigitValue(p[2]) < 16
	switch {
	case (base == 0 || base == 16) && hexPrefix:
		base, p = 16, p[2:]
	case base == 0 && strings.HasPrefix(p, "0"):
		base = 8
	case base == 0:
		base = 10
	}
	i := 0
	for ; i < len(p) && odDigitValue(p[i]) < base; i++ {
		d := uint64(odDigitValue(p[i]))
		if v > (math.MaxUint64-d)/uint64(base) {
			overflow = true
		}
		v = v*uint64(base) + d
	}
	if i == 0 {
		return 0, s, false
	}
	if overflow {
		v = math.MaxUint64
	}
	return v, p[i:], overflow
}

// odDigitValue is the value of a digit in bases up to 36, or 99.
func odDigitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// odStrtoumax parses a count as gnulib's xstrtoumax does for GNU od: a
// number, or a lone suffix meaning 1, then at most one of suffixes: b
// (512), K, M, G... (powers of 1024, or of 1000 with a B after them).
func odStrtoumax(s string, base int, suffixes string) (uint64, int) {
	if strings.HasPrefix(strings.TrimLeft(s, " \t\n\v\f\r"), "-") {
		return 0, odNumInvalid
	}
	v, rest, overflow := odScanUint(s, base)
	status := odNumOK
	switch {
	case rest == s && rest != "" && strings.IndexByte(suffixes, rest[0]) >= 0:
		v = 1
	case rest == s:
		return 0, odNumInvalid
	case overflow:
		status = odNumOverflow
	}
	if rest == "" {
		return v, status
	}
	if strings.IndexByte(suffixes, rest[0]) < 0 {
		return v, status | odNumBadSuffix
	}
	power, n := uint64(1024), 1
	if strings.IndexByte("EGgkKMmPQRTtYZ", rest[0]) >= 0 && strings.IndexByte(suffixes, '0') >= 0 && len(rest) > 1 {
		switch {
		case rest[1] == 'i' && len(rest) > 2 && rest[2] == 'B':
			n += 2
		case rest[1] == 'B' || rest[1] == 'D':
			power, n = 1000, 2
		}
	}
	exponents := map[byte]int{'k': 1, 'K': 1, 'M': 2, 'm': 2, 'G': 3, 'g': 3, 'T': 4, 't': 4,
		'P': 5, 'E': 6, 'Z': 7, 'Y': 8, 'R': 9, 'Q': 10}
	factor, times := uint64(1), 1
	switch rest[0] {
	case 'b':
		factor = 512
	case 'B':
		factor = 1024
	case 'w':
		factor = 2
	case 'c':
	default:
		x, ok := exponents[rest[0]]
		if !ok {
			return v, status | odNumBadSuffix
		}
		factor, times = power, x
	}
	for ; times > 0; times-- {
		if v > math.MaxUint64/factor {
			v, status = math.MaxUint64, status|odNumOverflow
		} else {
			v *= factor
		}
	}
	if rest[n:] != "" {
		status |= odNumBadSuffix
	}
	return v, status
}

// odNumError reports a bad count as gnulib's xstrtol_fatal does.
func odNumError(e *proc.Env, status int, opt, arg string) int {
	switch {
	case status&odNumInvalid != 0:
		e.Errorf("od", "invalid %s argument '%s'", opt, arg)
	case status&odNumBadSuffix != 0:
		e.Errorf("od", "invalid suffix in %s argument '%s'", opt, arg)
	default:
		e.Errorf("od", "%s argument '%s' too large", opt, arg)
	}
	return 1
}

// odOldOffset parses a traditional offset operand: octal, hexadecimal
// after 0x, with an optional + before it and b (512) or B (1024) after
// it. GNU 9.1 reads a '.' (decimal) as a bad suffix, so those fail.
func odOldOffset(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	s = strings.TrimPrefix(s, "+")
	base := 8
	switch {
	case strings.Contains(s, "."):
		base = 10
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base = 16
	}
	v, status := odStrtoumax(s, base, "Bb")
	return v, status == odNumOK
}

// odInput reads od's operands as one stream, opening each file when the
// previous one ends, as GNU does: a missing file is reported only when
// reached, and not at all if -N stops before it.
type odInput struct {
	e      *proc.Env
	out    *output
	names  []string  // operands not opened yet
	file   io.Reader // the current input, nil at the end
	r      io.Reader // file, buffered unless raw
	closer io.Closer // nil for standard input
	name   string    // the current input as messages name it
	raw    bool
	ok     bool // no file failed
}

func (in *odInput) fail(name string, err error) {
	_ = in.out.flush()
	fmt.Fprintf(in.e.Stderr, "od: %s: %s\n", name, proc.ErrorText(err))
	in.ok = false
}

// next closes the current input and opens the next one that opens.
func (in *odInput) next() {
	in.close()
	for len(in.names) > 0 {
		name := in.names[0]
		in.names = in.names[1:]
		if name == "-" {
			in.file, in.closer, in.name = in.e.Stdin, nil, quoteName("standard input")
		} else {
			rc, err := in.e.Open(name)
			if err != nil {
				in.fail(quoteName(name), err)
				continue
			}
			in.file, in.closer, in.name = rc, rc, quoteName(name)
		}
		in.r = in.file
		if !in.raw {
			in.r = bufio.NewReaderSize(in.file, 32*1024)
		}
		return
	}
}

// close closes the current input; standard input stays open for the
// shell.
func (in *odInput) close() {
	if in.closer != nil {
		_ = in.closer.Close()
	}
	in.file, in.r, in.closer = nil, nil, nil
}

// read fills buf from the inputs in turn; it returns less only at the
// end of the last one.
func (in *odInput) read(buf []byte) int {
	n := 0
	for in.r != nil && n < len(buf) {
		m, err := io.ReadFull(in.r, buf[n:])
		n += m
		if err == nil {
			break
		}
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			in.fail(in.name, err)
		}
		in.next()
	}
	return n
}

// skip passes n bytes of the inputs. Like GNU it steps over a large
// regular file by its size and seeks into it rather than reading, and it
// takes a directory for sought (reading it fails later). It reports
// whether the inputs held n bytes.
func (in *odInput) skip(n uint64) bool {
	for n > 0 && in.file != nil {
		var fi fs.FileInfo
		if st, ok := in.file.(interface{ Stat() (fs.FileInfo, error) }); ok {
			fi, _ = st.Stat()
		}
		seeker, canSeek := in.file.(io.Seeker)
		switch {
		case fi != nil && fi.IsDir():
			n = 0
		case fi != nil && fi.Mode().IsRegular() && fi.Size() > 4096 && uint64(fi.Size()) < n:
			n -= uint64(fi.Size())
		case fi != nil && fi.Mode().IsRegular() && fi.Size() > 4096 && canSeek:
			if _, err := seeker.Seek(int64(n), io.SeekCurrent); err != nil {
				in.fail(in.name, err)
			}
			n = 0
		case fi != nil && !fi.Mode().IsRegular() && canSeek && odSeekAhead(seeker, n):
			n = 0
		default:
			m, err := io.CopyN(io.Discard, in.r, int64(min(n, math.MaxInt64)))
			n -= uint64(m)
			if err != nil && !errors.Is(err, io.EOF) {
				in.fail(in.name, err)
				in.next()
				return true
			}
		}
		if n == 0 {
			break
		}
		in.next()
	}
	return n == 0
}

// odSeekAhead seeks n bytes forward and reports whether it could (a pipe
// cannot).
func odSeekAhead(s io.Seeker, n uint64) bool {
	if n > math.MaxInt64 {
		return false
	}
	_, err := s.Seek(int64(n), io.SeekCurrent)
	return err == nil
}

// odDumper formats od's output.
type odDumper struct {
	e            *proc.Env
	out          *output
	types        []odType
	bpb          int // bytes per line
	addrMode     int
	addrBase     int
	addrPad      int
	pseudoOffset uint64 // label minus offset, for --traditional's pseudo-address
	bigEndian    bool
	dedupe       bool // print "*" for repeated lines (no -v)
	first        bool
	prevEqual    bool
	buf          []byte
}

// address writes an offset in the chosen style, followed by c unless c
// is 0.
func (d *odDumper) address(a uint64, c byte) {
	switch d.addrMode {
	case odAddrStd:
		d.addressStd(a, c)
	case odAddrParen:
		d.addressParen(a, c)
	case odAddrLabel:
		d.addressStd(a, ' ')
		d.addressParen(a+d.pseudoOffset, c)
	}
}

// addressStd writes a zero-padded to the radix's width (7 digits, 6 in
// hexadecimal), longer if it needs more.
func (d *odDumper) addressStd(a uint64, c byte) {
	s := strconv.FormatUint(a, d.addrBase)
	for i := len(s); i < d.addrPad; i++ {
		_ = d.out.WriteByte('0')
	}
	_, _ = d.out.WriteString(s)
	if c != 0 {
		_ = d.out.WriteByte(c)
	}
}

// addressParen writes a traditional pseudo-address: "(0000010)".
func (d *odDumper) addressParen(a uint64, c byte) {
	_ = d.out.WriteByte('(')
	d.addressStd(a, ')')
	if c != 0 {
		_ = d.out.WriteByte(c)
	}
}

// spaces writes n blanks of padding.
func (d *odDumper) spaces(n int) {
	for ; n > 0; n-- {
		_ = d.out.WriteByte(' ')
	}
}

// dump writes the inputs block by block, then the offset they end at.
func (d *odDumper) dump(in *odInput, offset uint64, limited bool, end uint64) {
	prev, cur := make([]byte, d.bpb), make([]byte, d.bpb)
	d.first = true
	n := 0
	for {
		if d.e.Cancelled() || d.out.failed() {
			return
		}
		need := d.bpb
		if limited {
			if offset >= end {
				n = 0
				break
			}
			if end-offset < uint64(need) {
				need = int(end - offset)
			}
		}
		n = in.read(cur[:need])
		if n < d.bpb {
			break
		}
		d.block(offset, n, prev, cur)
		offset += uint64(n)
		prev, cur = cur, prev
	}
	if n > 0 {
		// The last, short block is padded with zeros for the types
		// wider than a byte.
		clear(cur[n:])
		d.block(offset, n, prev, cur)
		offset += uint64(n)
	}
	d.address(offset, '\n')
}

// block writes one block of n bytes (fewer than a line only at the end),
// one line per type, or "*" for the first of repeated blocks.
func (d *odDumper) block(offset uint64, n int, prev, cur []byte) {
	if d.dedupe && !d.first && n == d.bpb && bytes.Equal(prev, cur) {
		if !d.prevEqual {
			_, _ = d.out.WriteString("*\n")
			d.prevEqual = true
		}
		return
	}
	d.first, d.prevEqual = false, false
	for i := range d.types {
		t := &d.types[i]
		if i == 0 {
			d.address(offset, 0)
		} else {
			d.spaces(d.addrPad)
		}
		fields := d.bpb / t.size
		blank := (d.bpb - n) / t.size
		// The padding is spread over the fields as GNU does, the
		// remainder going to the first ones.
		padLeft := t.pad
		for f := fields; f > blank; f-- {
			nextPad := t.pad * (f - 1) / fields
			width := padLeft - nextPad + t.width
			off := (fields - f) * t.size
			d.buf = d.appendField(d.buf[:0], t, cur[off:off+t.size])
			d.spaces(width - len(d.buf))
			_, _ = d.out.Write(d.buf)
			padLeft = nextPad
		}
		if t.trailer {
			d.spaces(blank*t.width + t.pad*blank/fields)
			_, _ = d.out.WriteString("  >")
			for _, c := range cur[:n] {
				if !odPrintable(c) {
					c = '.'
				}
				_ = d.out.WriteByte(c)
			}
			_ = d.out.WriteByte('<')
		}
		_ = d.out.WriteByte('\n')
	}
}

// odPrintable is isprint for a byte in the C.UTF-8 locale: only ASCII's
// printable characters, a byte of a multibyte character is not.
func odPrintable(c byte) bool { return c >= 0x20 && c < 0x7f }

// appendField appends one field's text, without its padding.
func (d *odDumper) appendField(dst []byte, t *odType, b []byte) []byte {
	switch t.kind {
	case 'a':
		c := b[0] & 0x7f
		switch {
		case c == 0x7f:
			return append(dst, "del"...)
		case c <= ' ':
			return append(dst, odCharNames[c]...)
		}
		return append(dst, c)
	case 'c':
		if i := strings.IndexByte("\x00\a\b\f\n\r\t\v", b[0]); i >= 0 {
			return append(dst, '\\', "0abfnrtv"[i])
		}
		if odPrintable(b[0]) {
			return append(dst, b[0])
		}
		return append(dst, '0'+b[0]>>6, '0'+b[0]>>3&7, '0'+b[0]&7)
	case 'f':
		if t.size == 16 {
			var x [16]byte
			copy(x[:], b)
			if d.bigEndian {
				for i := range 8 {
					x[i], x[15-i] = x[15-i], x[i]
				}
			}
			return appendLongDouble(dst, x[:10])
		}
		v := d.uint(b)
		if t.size == 4 {
			return appendShortestFloat(dst, float64(math.Float32frombits(uint32(v))), 32)
		}
		return appendShortestFloat(dst, math.Float64frombits(v), 64)
	}
	v := d.uint(b)
	switch t.kind {
	case 'd':
		shift := 64 - 8*uint(t.size)
		return strconv.AppendInt(dst, int64(v<<shift)>>shift, 10)
	case 'u':
		return strconv.AppendUint(dst, v, 10)
	}
	base := 8
	if t.kind == 'x' {
		base = 16
	}
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], v, base)
	for i := len(digits); i < t.width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// uint reads an integer of len(b) bytes in the input's byte order.
func (d *odDumper) uint(b []byte) uint64 {
	var v uint64
	for i := range b {
		j := len(b) - 1 - i
		if d.bigEndian {
			j = i
		}
		v = v<<8 | uint64(b[j])
	}
	return v
}

// appendShortestFloat formats x as gnulib's ftoastr does for od: %g
// with the fewest digits, from FLT_DIG or DBL_DIG on (1 on for numbers
// below the smallest normal), that read back as the same float.
func appendShortestFloat(dst []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case math.IsInf(x, 1):
		return append(dst, "inf"...)
	case math.IsInf(x, -1):
		return append(dst, "-inf"...)
	}
	prec, bound, smallest := 15, 17, 0x1p-1022
	if bits == 32 {
		prec, bound, smallest = 6, 9, 0x1p-126
	}
	if math.Abs(x) < smallest {
		prec = 1
	}
	start := len(dst)
	for ; ; prec++ {
		dst = strconv.AppendFloat(dst[:start], x, 'g', prec, 64)
		if prec >= bound {
			return dst
		}
		back, _ := strconv.ParseFloat(string(dst[start:]), bits)
		if back == x {
			return dst
		}
	}
}

// appendLongDouble formats an x86 80-bit long double (b, little-endian)
// as ftoastr does: %Lg with the fewest digits, from LDBL_DIG (18) on,
// that read back as the same number. Encodings the 8087 rejects (an
// exponent without the integer bit) print as nan, as glibc prints them.
func appendLongDouble(dst []byte, b []byte) []byte {
	var mant uint64
	for i := 7; i >= 0; i-- {
		mant = mant<<8 | uint64(b[i])
	}
	se := uint16(b[8]) | uint16(b[9])<<8
	neg, exp := se&0x8000 != 0, int(se&0x7fff)
	sign := ""
	if neg {
		sign = "-"
	}
	switch {
	case exp == 0x7fff && mant == 1<<63:
		return append(dst, sign+"inf"...)
	case exp == 0x7fff || exp != 0 && mant>>63 == 0:
		return append(dst, sign+"nan"...)
	case mant == 0:
		return append(dst, sign+"0"...)
	}
	// The value is mant × 2^(e-16383-63); a denormal's exponent is
	// that of the smallest normal.
	e := max(exp, 1) - 16383 - 63
	x := new(big.Float).SetMantExp(new(big.Float).SetUint64(mant), e)
	if neg {
		x.Neg(x)
	}
	prec := 18
	if exp == 0 && mant>>63 == 0 {
		prec = 1 // below the smallest normal
	}
	for ; ; prec++ {
		s := x.Text('g', prec)
		if prec >= 21 || longDoubleRoundTrips(s, mant, e, exp) {
			return append(dst, s...)
		}
	}
}

// longDoubleRoundTrips reports whether decimal text s rounds, to
// nearest with ties to even, to the long double mant × 2^e (biased
// exponent exp): whether it lies within half a step of its neighbours.
func longDoubleRoundTrips(s string, mant uint64, e, exp int) bool {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	r.Abs(r)
	pow2 := func(k int) *big.Rat {
		if k >= 0 {
			return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
		}
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
	}
	x := new(big.Rat).Mul(new(big.Rat).SetInt(new(big.Int).SetUint64(mant)), pow2(e))
	hi := new(big.Rat).Add(x, pow2(e-1))
	below := pow2(e - 1)
	if mant == 1<<63 && exp > 1 {
		below = pow2(e - 2) // the step below a power of two is half as long
	}
	lo := new(big.Rat).Sub(x, below)
	cmpLo, cmpHi := r.Cmp(lo), r.Cmp(hi)
	if mant&1 == 0 {
		return cmpLo >= 0 && cmpHi <= 0
	}
	return cmpLo > 0 && cmpHi < 0
}

// dumpStrings is od -S: each run of at least min printable bytes ended
// by a NUL, with its offset.
func (d *odDumper) dumpStrings(in *odInput, min, address uint64, limited bool, end uint64) {
	var buf []byte
	readChar := func() (byte, bool) {
		var b [1]byte
		address++
		ok := in.read(b[:]) == 1
		return b[0], ok
	}
outer:
	for !d.e.Cancelled() && !d.out.failed() {
		if limited && (end < min || end-min <= address) {
			break
		}
		buf = buf[:0]
		for i := uint64(0); i < min; i++ {
			c, ok := readChar()
			if !ok {
				return
			}
			if !odPrintable(c) {
				continue outer
			}
			buf = append(buf, c)
		}
		for !limited || address < end {
			c, ok := readChar()
			if !ok {
				return
			}
			if c == 0 {
				break
			}
			if !odPrintable(c) {
				continue outer
			}
			buf = append(buf, c)
		}
		d.address(address-uint64(len(buf))-1, ' ')
		_, _ = d.out.Write(buf)
		_ = d.out.WriteByte('\n')
	}
}
