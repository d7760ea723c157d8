package filecmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// splitOpts are split's options. The long ones are in GNU's order, which its ambiguity messages show;
// "---io-blksize" is GNU's hidden, undocumented option.
const splitOpts = "b,bytes: l,lines: C,line-bytes: n,number: e,elide-empty-files u,unbuffered " +
	"a,suffix-length: ,additional-suffix: ,numeric-suffixes:: ,hex-suffixes:: ,filter: ,verbose " +
	"t,separator: ,-io-blksize: 0 1 2 3 4 5 6 7 8 9 d x"

// splitValueLetters are split's short options that take a value.
const splitValueLetters = "Cabltn"

// splitMultipliers are the size suffixes -b and -C accept ("0" allows
// KB, KiB and the like), as GNU's multipliers string.
const splitMultipliers = "bEGKkMmPTYZ0"

// What splits the input, as GNU's Split_type.
const (
	splitByUndef = iota
	splitByDigits
	splitByLines
	splitByBytes
	splitByLineBytes
	splitByChunkBytes
	splitByChunkLines
	splitByRoundRobin
)

// splitMaxOff is OFF_T_MAX, the limit of byte counts.
const splitMaxOff = math.MaxInt64

// errSplitStop is how an output error unwinds: die has been reported and
// the status is set.
var errSplitStop = errors.New("split: stopped")

type splitter struct {
	e        *proc.Env
	infile   string
	inInfo   fs.FileInfo // nil for standard input that is not a file
	prefix   string
	suffix   string // --additional-suffix
	alphabet string
	// suffixLen is the suffix's length; auto lets it grow (xyz, xzaaa)
	// as GNU does when neither -a nor a start value fixed it.
	suffixLen int
	auto      bool
	start     string // --numeric-suffixes=FROM, without leading zeros
	index     []int  // the suffix's letters as indexes in alphabet
	name      string // the current output file name
	elide     bool
	verbose   bool
	filter    string
	eol       byte

	// The current output: a file, or the data for the filter.
	file     *os.File
	w        *bufio.Writer
	filtered bytes.Buffer
	open     bool
	status   int
}

// splitCmd is GNU coreutils 9.1's split. Output files are named, created
// and filled in the order GNU uses, because scripts glob them back
// (xaa xab ...) and count them: -n creates every one of its N files
// (empty ones too, unless -e), and alphabetic suffixes grow from xyz to
// xzaaa when no -a fixes their length.
//
// --filter runs its command through the shell once the data of each
// file is complete, not while split writes it, since proc.Env.Exec runs
// a command to its end.
func splitCmd(e *proc.Env, args []string) int {
	g := proc.Getopt{Spec: splitOpts, Posix: e.Getenv("POSIXLY_CORRECT") != ""}
	opts, ops, st, ok := parseArgs(e, "split", 1, g, args[1:])
	if !ok {
		return st
	}
	s := &splitter{e: e, prefix: "x", alphabet: "abcdefghijklmnopqrstuvwxyz", auto: true}
	die := func(format string, a ...any) int {
		e.Errorf("split", format, a...)
		return 1
	}
	typ := splitByUndef
	var nUnits, kUnits uint64
	eol := -1
	oneWay := func(t int) bool {
		if typ != splitByUndef && typ != t {
			return false
		}
		typ = t
		return true
	}
	const moreThanOneWay = "cannot split in more than one way"
	for _, o := range opts {
		switch o.Key {
		case "a":
			n, msg := splitSuffixLength(o.Val)
			if msg != "" {
				return die("%s", msg)
			}
			s.suffixLen = n
		case "additional-suffix":
			// GNU refuses a suffix whose last component is not all of
			// it; "a/" passes, and fails later as a directory.
			if strings.HasPrefix(o.Val, "/") || strings.Contains(strings.TrimRight(o.Val, "/"), "/") {
				return e.Usage("split", 1, "invalid suffix %s, contains directory separator", q(o.Val))
			}
			s.suffix = o.Val
		case "b", "C", "l":
			t, what, suffixes := splitByBytes, "invalid number of bytes", splitMultipliers
			switch o.Key {
			case "C":
				t = splitByLineBytes
			case "l":
				t, what, suffixes = splitByLines, "invalid number of lines", ""
			}
			if typ != splitByUndef {
				return e.Usage("split", 1, moreThanOneWay)
			}
			typ = t
			max := uint64(splitMaxOff)
			if o.Key == "l" {
				max = math.MaxUint64
			}
			n, msg := splitNumber(o.Val, suffixes, 1, max, what)
			if msg != "" {
				return die("%s", msg)
			}
			nUnits = n
		case "n":
			if typ != splitByUndef {
				return e.Usage("split", 1, moreThanOneWay)
			}
			arg := strings.TrimLeft(o.Val, " \t\n\v\f\r")
			switch {
			case strings.HasPrefix(arg, "r/"):
				typ, arg = splitByRoundRobin, arg[2:]
			case strings.HasPrefix(arg, "l/"):
				typ, arg = splitByChunkLines, arg[2:]
			default:
				typ = splitByChunkBytes
			}
			num, kArg, hasK := arg, "", false
			if i := strings.IndexByte(arg, '/'); i >= 0 {
				kArg, num, hasK = arg[:i], arg[i+1:], true
			}
			n, msg := splitNumber(num, "", 1, splitMaxOff, "invalid number of chunks")
			if msg != "" {
				return die("%s", msg)
			}
			nUnits = n
			if hasK {
				k, msg := splitNumber(kArg, "", 1, n, "invalid chunk number")
				if msg != "" {
					return die("%s", msg)
				}
				kUnits = k
			}
		case "t":
			var c int
			switch {
			case o.Val == "":
				return die("empty record separator")
			case o.Val == `\0`:
				c = 0
			case len(o.Val) > 1:
				return die("multi-character separator %s", q(o.Val))
			default:
				c = int(o.Val[0])
			}
			if eol >= 0 && c != eol {
				return die("multiple separator characters specified")
			}
			eol = c
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9":
			if !oneWay(splitByDigits) {
				return e.Usage("split", 1, moreThanOneWay)
			}
		case "d", "numeric-suffixes", "x", "hex-suffixes":
			kind := "numerical"
			s.alphabet = "0123456789"
			if o.Key == "x" || o.Key == "hex-suffixes" {
				kind, s.alphabet = "hexadecimal", "0123456789abcdef"
			}
			if o.HasVal {
				if strings.Trim(o.Val, s.alphabet) != "" {
					return e.Usage("split", 1, "%s: invalid start value for %s suffix", q(o.Val), kind)
				}
				v := o.Val
				for len(v) > 1 && v[0] == '0' {
					v = v[1:]
				}
				s.start = v
			}
		case "e":
			s.elide = true
		case "filter":
			s.filter = o.Val
		case "-io-blksize":
			if _, msg := splitNumber(o.Val, splitMultipliers, 1, math.MaxInt32, "invalid IO block size"); msg != "" {
				return die("%s", msg)
			}
		case "verbose":
			s.verbose = true
		}
	}
	if typ == splitByDigits {
		digits := splitObsoleteDigits(args[1:], g.Posix)
		n, msg := splitDigitCount(digits)
		if msg != "" {
			return die("%s", msg)
		}
		nUnits = n
	}
	if kUnits != 0 && s.filter != "" {
		return e.Usage("split", 1, "--filter does not process a chunk extracted to stdout")
	}
	if typ == splitByUndef {
		typ, nUnits = splitByLines, 1000
	}
	if nUnits == 0 {
		return e.Usage("split", 1, "invalid number of lines: %s", q("0"))
	}
	s.eol = '\n'
	if eol >= 0 {
		s.eol = byte(eol)
	}
	if msg := s.setSuffixLength(nUnits, typ); msg != "" {
		return die("%s", msg)
	}
	s.infile = "-"
	if len(ops) > 0 {
		s.infile = ops[0]
	}
	if len(ops) > 1 {
		s.prefix = ops[1]
	}
	if len(ops) > 2 {
		return e.Usage("split", 1, "extra operand %s", q(ops[2]))
	}
	if len(s.start) > s.suffixLen {
		return e.Usage("split", 1, "numerical suffix start value is too large for the suffix length")
	}

	in := e.Stdin
	if s.infile != "-" {
		f, err := os.Open(e.Path(s.infile))
		if err != nil {
			return die("cannot open %s for reading: %s", qa(s.infile), proc.ErrorText(err))
		}
		defer f.Close()
		in = f
	}
	if f, ok := in.(*os.File); ok {
		fi, err := f.Stat()
		if err != nil {
			return die("%s: %s", qf(s.infile), proc.ErrorText(err))
		}
		s.inInfo = fi
	}

	var err error
	switch typ {
	case splitByDigits, splitByLines:
		err = s.lines(in, nUnits)
	case splitByBytes:
		err = s.bytes(in, nUnits, 0)
	case splitByLineBytes:
		err = s.lineBytes(in, nUnits)
	case splitByChunkBytes, splitByChunkLines:
		size, msg := s.inputSize(in)
		if msg != "" {
			return die("%s", msg)
		}
		// Small inputs still make N files, the last ones empty.
		size = max(size, int64(nUnits))
		limited := io.LimitReader(in, size)
		switch {
		case typ == splitByChunkLines:
			err = s.lineChunks(limited, kUnits, nUnits, size)
		case kUnits == 0:
			err = s.bytes(limited, uint64(size)/nUnits, nUnits)
		default:
			err = s.byteChunk(limited, kUnits, nUnits, size)
		}
	case splitByRoundRobin:
		err = s.roundRobin(in, kUnits, nUnits)
	}
	if err == nil {
		err = s.closeOutput()
	}
	if err != nil {
		// What was written stays written, as when GNU split dies.
		if s.open && s.file != nil {
			_ = s.w.Flush()
			s.file.Close()
		}
		return max(s.status, 1)
	}
	return 0
}

// splitObsoleteDigits finds the line count of the obsolete "-N" option
// in split's arguments: the digits of the last argument that held some.
// GNU starts the number over when a digit option comes from another
// argument ("-1 -2" is 2, "-12" is 12), which Getopt does not tell.
func splitObsoleteDigits(args []string, posix bool) string {
	digits := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return digits
		case len(a) < 2 || a[0] != '-':
			if posix {
				return digits
			}
		case a[1] == '-':
			name, _, hasVal := strings.Cut(a[2:], "=")
			if !hasVal && splitLongTakesValue(name) {
				i++
			}
		default:
			var ds []byte
			for k := 1; k < len(a); k++ {
				if c := a[k]; c >= '0' && c <= '9' {
					ds = append(ds, c)
					continue
				}
				if strings.IndexByte(splitValueLetters, a[k]) >= 0 {
					if k == len(a)-1 {
						i++ // the value is the next argument
					}
					break
				}
			}
			if len(ds) > 0 {
				digits = string(ds)
			}
		}
	}
	return digits
}

// splitLongTakesValue reports whether the long option name (or the one
// it abbreviates) takes its value from the next argument.
func splitLongTakesValue(name string) bool {
	with := []string{"additional-suffix", "bytes", "filter", "io-blksize", "line-bytes", "lines", "number", "separator", "suffix-length"}
	without := []string{"elide-empty-files", "hex-suffixes", "numeric-suffixes", "unbuffered", "verbose", "help", "version"}
	matches := 0
	for _, l := range with {
		if l == name {
			return true
		}
		if strings.HasPrefix(l, name) {
			matches++
		}
	}
	for _, l := range without {
		if l == name || strings.HasPrefix(l, name) {
			return false
		}
	}
	return matches > 0
}

// splitDigitCount converts the digits of -N; GNU refuses a count too
// large for its integers.
func splitDigitCount(digits string) (uint64, string) {
	var n uint64
	for i := 0; i < len(digits); i++ {
		d := uint64(digits[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, fmt.Sprintf("line count option -%d%c... is too large", n, digits[i])
		}
		n = n*10 + d
	}
	return n, ""
}

// splitSuffixLength parses -a, a count from 0 (0 is no -a at all).
func splitSuffixLength(s string) (int, string) {
	n, msg := splitNumber(s, "", 0, 1<<24, "invalid suffix length")
	return int(n), msg
}

// splitNumber parses a count as GNU's xdectoumax with the size suffixes
// in suffixes, and returns GNU's complete message for a bad one: the
// bad text quoted, then why if it is a number out of range.
func splitNumber(s, suffixes string, lo, hi uint64, what string) (uint64, string) {
	n, status := splitStrtoumax(s, suffixes)
	switch status {
	case splitNumOK:
		if n >= lo && n <= hi {
			return n, ""
		}
		reason := "Numerical result out of range"
		if n > math.MaxInt32/2 {
			reason = "Value too large for defined data type"
		}
		return 0, what + ": " + q(s) + ": " + reason
	case splitNumOverflow:
		return 0, what + ": " + q(s) + ": Value too large for defined data type"
	}
	return 0, what + ": " + q(s)
}

const (
	splitNumOK = iota
	splitNumOverflow
	splitNumInvalid
)

// splitStrtoumax is gnulib's xstrtoumax in base 10: leading blanks and
// a "+", digits (or none before a suffix, meaning 1), then at most one
// suffix of valid; "0" in valid allows "B" (powers of 1000) or "iB"
// after it.
func splitStrtoumax(s, valid string) (uint64, int) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if strings.HasPrefix(t, "-") {
		return 0, splitNumInvalid
	}
	t = strings.TrimPrefix(t, "+")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	status := splitNumOK
	n := uint64(1)
	if i == 0 {
		if t == "" || valid == "" || strings.IndexByte(valid, t[0]) < 0 {
			return 0, splitNumInvalid
		}
	} else if v, err := strconv.ParseUint(t[:i], 10, 64); err != nil {
		n, status = math.MaxUint64, splitNumOverflow
	} else {
		n = v
	}
	rest := t[i:]
	if rest == "" {
		return n, status
	}
	if strings.IndexByte(valid, rest[0]) < 0 || rest[0] == '0' {
		return n, splitNumInvalid
	}
	base, used := uint64(1024), 1
	if strings.IndexByte(valid, '0') >= 0 && len(rest) > 1 && strings.IndexByte("EGKkMmPTYZ", rest[0]) >= 0 {
		switch {
		case rest[1] == 'i' && len(rest) > 2 && rest[2] == 'B':
			used += 2
		case rest[1] == 'B' || rest[1] == 'D':
			base = 1000
			used++
		}
	}
	power := map[byte]int{'k': 1, 'K': 1, 'm': 2, 'M': 2, 'G': 3, 'T': 4, 'P': 5, 'E': 6, 'Z': 7, 'Y': 8}
	mul := uint64(1)
	switch rest[0] {
	case 'b':
		mul = 512
	default:
		p, ok := power[rest[0]]
		if !ok {
			return n, splitNumInvalid
		}
		for range p {
			if mul > math.MaxUint64/base {
				mul = 0
				break
			}
			mul *= base
		}
	}
	if mul == 0 || n > math.MaxUint64/mul {
		n, status = math.MaxUint64, splitNumOverflow
	} else {
		n *= mul
	}
	if rest[used:] != "" {
		return n, splitNumInvalid
	}
	return n, status
}

// setSuffixLength is GNU's set_suffix_length: -n needs suffixes for all
// its files from the start, so their length is fixed up front.
func (s *splitter) setSuffixLength(nUnits uint64, typ int) string {
	if s.start != "" {
		s.auto = false
	}
	needed := 0
	if typ == splitByChunkBytes || typ == splitByChunkLines || typ == splitByRoundRobin {
		end := nUnits - 1
		if s.start != "" {
			if st, err := strconv.ParseUint(s.start, 10, 64); err == nil && st < math.MaxUint64-nUnits && st < nUnits {
				end += st
			}
		}
		for {
			needed++
			if end /= uint64(len(s.alphabet)); end == 0 {
				break
			}
		}
		s.auto = false
	}
	if s.suffixLen != 0 {
		if s.suffixLen < needed {
			return fmt.Sprintf("the suffix length needs to be at least %d", needed)
		}
		s.auto = false
		return ""
	}
	s.suffixLen = max(2, needed)
	return ""
}

// nextName moves to the next output file name, as GNU's next_file_name.
func (s *splitter) nextName() error {
	if s.index == nil {
		s.index = make([]int, s.suffixLen)
		if s.start != "" {
			for i := range s.start {
				s.index[s.suffixLen-len(s.start)+i] = strings.IndexByte(s.alphabet, s.start[i])
			}
		}
	} else {
		i := len(s.index) - 1
		for ; i >= 0; i-- {
			s.index[i]++
			if s.auto && i == 0 && s.index[0] == len(s.alphabet)-1 {
				// The first letter reached the last one: it joins the
				// prefix and the suffix grows by one (xyz, xzaaa).
				s.prefix += s.alphabet[len(s.alphabet)-1:]
				s.index = make([]int, len(s.index)+1)
				break
			}
			if s.index[i] < len(s.alphabet) {
				break
			}
			s.index[i] = 0
		}
		if i < 0 {
			s.status = 1
			s.e.Errorf("split", "output file suffixes exhausted")
			return errSplitStop
		}
	}
	var b strings.Builder
	b.WriteString(s.prefix)
	for _, k := range s.index {
		b.WriteByte(s.alphabet[k])
	}
	b.WriteString(s.suffix)
	s.name = b.String()
	return nil
}

// fail reports an error about the current output file and stops.
func (s *splitter) fail(name string, err error) error {
	s.status = 1
	s.e.Errorf("split", "%s: %s", qf(name), proc.ErrorText(err))
	return errSplitStop
}

// create opens the file called name for writing, as GNU's create: it
// must not be the input, and it is truncated only after that check.
func (s *splitter) create(name string) (*os.File, error) {
	if s.verbose {
		fmt.Fprintf(s.e.Stdout, "creating file %s\n", qa(name))
	}
	p := s.e.Path(name)
	if strings.HasSuffix(name, "/") {
		p += "/" // Path cleans it away; a directory's name must fail
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, s.fail(name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		s.status = 1
		s.e.Errorf("split", "failed to stat %s: %s", qa(name), proc.ErrorText(err))
		return nil, errSplitStop
	}
	if s.inInfo != nil && os.SameFile(s.inInfo, fi) {
		f.Close()
		s.status = 1
		s.e.Errorf("split", "%s would overwrite input; aborting", qa(name))
		return nil, errSplitStop
	}
	if fi.Mode().IsRegular() && fi.Size() != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			s.status = 1
			s.e.Errorf("split", "%s: error truncating: %s", qf(name), proc.ErrorText(err))
			return nil, errSplitStop
		}
	}
	return f, nil
}

// newOutput closes the current output and opens the next one; an
// empty one is skipped with -e (and takes no name).
func (s *splitter) newOutput(empty bool) error {
	if empty && s.elide {
		return nil
	}
	if err := s.closeOutput(); err != nil {
		return err
	}
	if err := s.nextName(); err != nil {
		return err
	}
	if s.filter != "" {
		if s.verbose {
			fmt.Fprintf(s.e.Stdout, "executing with FILE=%s\n", qf(s.name))
		}
		s.filtered.Reset()
		s.open = true
		return nil
	}
	f, err := s.create(s.name)
	if err != nil {
		return err
	}
	s.file, s.w, s.open = f, bufio.NewWriterSize(f, 32<<10), true
	return nil
}

// write adds p to the current output.
func (s *splitter) write(p []byte) error {
	if s.e.Cancelled() {
		s.status = 1
		return errSplitStop
	}
	if s.filter != "" {
		s.filtered.Write(p)
		return nil
	}
	if _, err := s.w.Write(p); err != nil {
		return s.fail(s.name, err)
	}
	return nil
}

// closeOutput finishes the current output: closes the file, or runs the
// filter with its data as standard input and $FILE naming it.
func (s *splitter) closeOutput() error {
	if !s.open {
		return nil
	}
	s.open = false
	if s.filter != "" {
		return s.runFilter(s.name, s.filtered.Bytes())
	}
	err := s.w.Flush()
	if cerr := s.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s.fail(s.name, err)
	}
	return nil
}

// runFilter runs --filter's command through the shell, as GNU runs it
// with $SHELL -c, for the data of the file called name.
func (s *splitter) runFilter(name string, data []byte) error {
	if s.e.Exec == nil {
		s.status = 1
		s.e.Errorf("split", "--filter: cannot run commands here")
		return errSplitStop
	}
	script := "FILE=" + shellQuote(name, true, false) + "; export FILE\n" + s.filter
	code := s.e.Exec([]string{"sh", "-c", script}, bytes.NewReader(data), s.e.Stdout, s.e.Stderr)
	if code != 0 {
		s.status = code
		s.e.Errorf("split", "with FILE=%s, exit %d from command: %s", qf(name), code, s.filter)
		return errSplitStop
	}
	return nil
}

// readFailed reports a read error on the input.
func (s *splitter) readFailed(err error) error {
	s.status = 1
	s.e.Errorf("split", "%s: %s", qf(s.infile), proc.ErrorText(err))
	return errSplitStop
}

// lines writes n lines to each file (-l, -N).
func (s *splitter) lines(in io.Reader, n uint64) error {
	br := bufio.NewReaderSize(in, 64<<10)
	count := uint64(0)
	fresh := true
	for {
		chunk, err := br.ReadSlice(s.eol)
		if len(chunk) > 0 {
			if fresh {
				if err := s.newOutput(false); err != nil {
					return err
				}
				fresh = false
			}
			if werr := s.write(chunk); werr != nil {
				return werr
			}
			if chunk[len(chunk)-1] == s.eol && !errors.Is(err, bufio.ErrBufferFull) {
				if count++; count >= n {
					count, fresh = 0, true
				}
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return nil
		default:
			return s.readFailed(err)
		}
	}
}

// bytes writes n bytes to each file (-b). With maxFiles (-n N) the last
// file takes what is left and the files that got nothing are created
// empty, unless -e.
func (s *splitter) bytes(in io.Reader, n, maxFiles uint64) error {
	buf := make([]byte, 64<<10)
	var left, opened uint64 // left: room in the current file
	for {
		k, err := in.Read(buf)
		data := buf[:k]
		for len(data) > 0 {
			if left == 0 {
				if err := s.newOutput(false); err != nil {
					return err
				}
				opened++
				left = n
				if maxFiles != 0 && opened == maxFiles {
					left = math.MaxUint64
				}
			}
			m := uint64(len(data))
			if m > left {
				m = left
			}
			if err := s.write(data[:m]); err != nil {
				return err
			}
			left -= m
			data = data[m:]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.readFailed(err)
		}
	}
	for ; opened < maxFiles; opened++ {
		if err := s.newOutput(true); err != nil {
			return err
		}
	}
	return nil
}

// lineBytes puts as many whole lines in each file as fit in n bytes
// (-C); a line longer than n is cut into n-byte pieces, each its own
// file, and its rest starts the next file.
func (s *splitter) lineBytes(in io.Reader, n uint64) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	used := int64(-1) // bytes in the current file; -1: start a new one
	put := func(p []byte) error {
		if used < 0 {
			if err := s.newOutput(false); err != nil {
				return err
			}
			used = 0
		}
		used += int64(len(p))
		return s.write(p)
	}
	limit := int64(min(n, uint64(splitMaxOff)))
	for {
		chunk, err := br.ReadSlice(s.eol)
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		// GNU cuts a file at the last line end among its n bytes once
		// n bytes are there; so a last line without an end goes to a
		// new file unless the input ends short of those n bytes.
		unterminated := err != nil && len(line) > 0 && line[len(line)-1] != s.eol
		for len(line) > 0 {
			if used > 0 && (used+int64(len(line)) > limit || unterminated && used+int64(len(line)) >= limit) {
				used = -1
			}
			if used < 0 && int64(len(line)) > limit {
				if err := put(line[:limit]); err != nil {
					return err
				}
				line = line[limit:]
				used = -1
				continue
			}
			if err := put(line); err != nil {
				return err
			}
			line = line[:0]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return s.readFailed(err)
		}
	}
}

// inputSize is the number of bytes -n divides: the rest of a file, or
// of a seekable standard input. GNU cannot size a pipe either.
func (s *splitter) inputSize(in io.Reader) (int64, string) {
	if s.inInfo != nil && s.inInfo.IsDir() {
		return 0, qf(s.infile) + ": cannot determine file size: Is a directory"
	}
	sk, ok := in.(io.Seeker)
	if !ok {
		return 0, qf(s.infile) + ": cannot determine file size"
	}
	cur, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, qf(s.infile) + ": cannot determine file size"
	}
	if s.inInfo != nil && s.inInfo.Mode().IsRegular() {
		return max(0, s.inInfo.Size()-cur), ""
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = sk.Seek(cur, io.SeekStart)
	}
	if err != nil {
		return 0, qf(s.infile) + ": cannot determine file size: " + proc.ErrorText(err)
	}
	return max(0, end-cur), ""
}

// byteChunk writes chunk k of n (-n K/N) to standard output.
func (s *splitter) byteChunk(in io.Reader, k, n uint64, size int64) error {
	per := uint64(size) / n
	start := int64((k - 1) * per)
	end := size
	if k != n {
		end = int64(k * per)
	}
	if _, err := io.CopyN(io.Discard, in, start); err != nil && !errors.Is(err, io.EOF) {
		return s.readFailed(err)
	}
	out := s.stdout()
	if _, err := io.CopyN(out, in, end-start); err != nil && !errors.Is(err, io.EOF) {
		return s.copyFailed(err)
	}
	return out.flush()
}

// splitStdout is split's buffered standard output for -n K/N; a failed
// write is reported once and stops split.
type splitStdout struct {
	s *splitter
	w *bufio.Writer
}

func (s *splitter) stdout() *splitStdout {
	return &splitStdout{s: s, w: bufio.NewWriterSize(s.e.Stdout, 32<<10)}
}

func (o *splitStdout) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.s.status = writeFailed(o.s.e, "split", err)
		return n, errSplitStop
	}
	return n, nil
}

func (o *splitStdout) flush() error {
	if err := o.w.Flush(); err != nil {
		o.s.status = writeFailed(o.s.e, "split", err)
		return errSplitStop
	}
	return nil
}

// lineChunks splits the input into n chunks of whole lines (-n l/N):
// chunk c nominally ends at byte c*size/n, and really at the end of the
// line holding that byte. A line spanning several chunks leaves those
// after its own empty. With k, only chunk k is written, to standard
// output.
func (s *splitter) lineChunks(in io.Reader, k, n uint64, size int64) error {
	br := bufio.NewReaderSize(in, 64<<10)
	per := size / int64(n)
	var pos int64
	var stdout *splitStdout
	if k != 0 {
		stdout = s.stdout()
	}
	for c := uint64(1); c <= n; c++ {
		end := int64(c)*per - 1
		if c == n {
			end = size - 1
		}
		var dst io.Writer = io.Discard
		hasData := false
		if pos <= end {
			_, err := br.Peek(1)
			hasData = err == nil
		}
		switch {
		case k == c:
			dst = stdout
		case k == 0:
			if err := s.newOutput(!hasData); err != nil {
				return err
			}
			dst = writerFunc(s.write)
		}
		if hasData {
			// The bytes before the chunk's last one, then up to the end
			// of the line holding it.
			m, err := io.CopyN(dst, br, end-pos)
			pos += m
			if err != nil && !errors.Is(err, io.EOF) {
				return s.copyFailed(err)
			}
			for err == nil {
				var piece []byte
				piece, err = br.ReadSlice(s.eol)
				if len(piece) > 0 {
					if _, werr := dst.Write(piece); werr != nil {
						return s.copyFailed(werr)
					}
					pos += int64(len(piece))
				}
				if errors.Is(err, bufio.ErrBufferFull) {
					err = nil
					continue
				}
				if err == nil {
					break // the line ended
				}
				if !errors.Is(err, io.EOF) {
					return s.readFailed(err)
				}
			}
		}
		if k == c {
			break
		}
	}
	if stdout != nil {
		return stdout.flush()
	}
	return nil
}

// copyFailed reports an error from copying to an output: a stop that
// was already reported, or a read error.
func (s *splitter) copyFailed(err error) error {
	if errors.Is(err, errSplitStop) {
		return err
	}
	return s.readFailed(err)
}

// writerFunc adapts splitter.write to io.Writer.
type writerFunc func([]byte) error

func (f writerFunc) Write(p []byte) (int, error) {
	if err := f(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// roundRobin deals lines out to n files in turn (-n r/N), or writes
// line k of every n to standard output (-n r/K/N). All n names are
// chosen first; files that got no line are created empty unless -e.
func (s *splitter) roundRobin(in io.Reader, k, n uint64) error {
	br := bufio.NewReaderSize(in, 64<<10)
	if k != 0 {
		w := s.stdout()
		line := uint64(1)
		for {
			piece, err := br.ReadSlice(s.eol)
			if line == k && len(piece) > 0 {
				if _, werr := w.Write(piece); werr != nil {
					return werr
				}
			}
			if err == nil {
				if line++; line > n {
					line = 1
				}
			} else if err == io.EOF {
				break
			} else if !errors.Is(err, bufio.ErrBufferFull) {
				return s.readFailed(err)
			}
		}
		return w.flush()
	}
	names := make([]string, n)
	for i := range names {
		if err := s.nextName(); err != nil {
			return err
		}
		names[i] = s.name
	}
	type rrOut struct {
		f    *os.File
		w    *bufio.Writer
		data bytes.Buffer
		made bool
	}
	outs := make([]rrOut, n)
	// Few files stay open at once; the others are reopened to append.
	const maxOpen = 64
	var openList []int
	get := func(i int) (*rrOut, error) {
		o := &outs[i]
		if s.filter != "" || o.w != nil {
			if !o.made && s.filter != "" && s.verbose {
				fmt.Fprintf(s.e.Stdout, "executing with FILE=%s\n", qf(names[i]))
			}
			o.made = true
			return o, nil
		}
		if len(openList) >= maxOpen {
			for _, j := range openList {
				if err := outs[j].w.Flush(); err != nil {
					return nil, s.fail(names[j], err)
				}
				if err := outs[j].f.Close(); err != nil {
					return nil, s.fail(names[j], err)
				}
				outs[j].w, outs[j].f = nil, nil
			}
			openList = openList[:0]
		}
		var f *os.File
		var err error
		if o.made {
			f, err = os.OpenFile(s.e.Path(names[i]), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, s.fail(names[i], err)
			}
		} else if f, err = s.create(names[i]); err != nil {
			return nil, err
		}
		o.f, o.w, o.made = f, bufio.NewWriter(f), true
		openList = append(openList, i)
		return o, nil
	}
	i := 0
	for {
		piece, err := br.ReadSlice(s.eol)
		if len(piece) > 0 {
			o, gerr := get(i)
			if gerr != nil {
				return gerr
			}
			if s.filter != "" {
				o.data.Write(piece)
			} else if _, werr := o.w.Write(piece); werr != nil {
				return s.fail(names[i], werr)
			}
		}
		if err == nil {
			if i++; uint64(i) == n {
				i = 0
			}
		} else if err == io.EOF {
			break
		} else if !errors.Is(err, bufio.ErrBufferFull) {
			return s.readFailed(err)
		}
		if s.e.Cancelled() {
			s.status = 1
			return errSplitStop
		}
	}
	for i := range outs {
		o := &outs[i]
		if !o.made && !s.elide {
			if _, err := get(i); err != nil {
				return err
			}
		}
		if s.filter != "" {
			if o.made {
				if err := s.runFilter(names[i], o.data.Bytes()); err != nil {
					return err
				}
			}
			continue
		}
		if o.w != nil {
			if err := o.w.Flush(); err != nil {
				return s.fail(names[i], err)
			}
			if err := o.f.Close(); err != nil {
				return s.fail(names[i], err)
			}
		}
	}
	return nil
}
