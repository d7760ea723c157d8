package textcmd

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// joinOpts are GNU join's options.
const joinOpts = "a: e: i,ignore-case 1: 2: j: o: t: v: z,zero-terminated ,check-order ,nocheck-order ,header"

// joinValueLetters are join's short options that take a value.
const joinValueLetters = "ae12jotv"

// The order check: GNU's default warns once an unpairable line was seen.
const (
	joinCheckDefault = iota
	joinCheckOn
	joinCheckOff
)

// What an operand may turn out to be: GNU join still accepts POSIX
// 1992's "-j1 FIELD", "-j2 FIELD" and "-o 1.1 2.1 file1 file2", where
// an option's argument is only known to be one when a third operand
// follows.
const (
	joinMustBeOperand = iota
	joinMightBeJ1
	joinMightBeJ2
	joinMightBeO
)

// joinUnset marks a join field no option set.
const joinUnset = -1

type joinLine struct {
	text   []byte
	fields [][]byte
}

type joinInput struct {
	name   string
	lr     *lineReader
	lineNo int64
	// prev is the line read last, for the order check; nil after the
	// header line, which is never checked.
	prev *joinLine
}

// A joinSpec is one item of -o: file 0 is the join field.
type joinSpec struct {
	file  int
	field int
}

type joiner struct {
	e          *proc.Env
	out        *output
	in         [2]*joinInput
	field      [2]int
	tab        int // -1: runs of blanks; '\n': the whole line is the key
	ignoreCase bool
	filler     string
	hasFiller  bool
	specs      []joinSpec
	auto       bool
	autoCount  [2]int
	unpaired   [2]bool
	paired     bool
	header     bool
	check      int
	eol        byte

	seenUnpairable bool
	warned         [2]bool
	// stop is set when join must end at once: a read error, or a line
	// out of order under --check-order. status is then its exit status.
	stop   bool
	status int
}

// join is GNU coreutils 9.1's join. It follows GNU's merge loop closely
// because its output depends on when lines are read: the order check
// warns about a file only after an unpairable line was seen (unless
// --check-order), and with --check-order the output stops at the first
// line out of order, both as GNU does.
func join(e *proc.Env, args []string) int {
	// join's getopt returns operands in order ("-" in its option
	// string), so options may follow operands whatever POSIXLY_CORRECT.
	opts, _, err := proc.Getopt{Spec: joinOpts, Ordered: true}.Parse(args[1:])
	if err != nil {
		return e.Usage("join", 1, "%v", err)
	}
	fail := func(format string, a ...any) int {
		e.Errorf("join", format, a...)
		return 1
	}
	j := &joiner{e: e, field: [2]int{joinUnset, joinUnset}, tab: -1, paired: true, eol: '\n'}
	setField := func(i, val int) bool {
		if j.field[i] != joinUnset && j.field[i] != val {
			fail("incompatible join fields %d, %d", j.field[i]+1, val+1)
			return false
		}
		j.field[i] = val
		return true
	}
	obsoleteJ, beforeDashes := joinScan(args[1:])
	var names [2]string
	var status [2]int
	nfiles, nj, noperand := 0, 0, 0
	prevStatus := joinMustBeOperand
	jCount := [2]int{}
	for _, o := range opts {
		optStatus := joinMustBeOperand
		switch o.Key {
		case "":
			if noperand >= beforeDashes {
				prevStatus = joinMustBeOperand // after "--"
			}
			noperand++
			if nfiles == 2 {
				// A third operand: the oldest one that might be an
				// option's argument was one.
				k := 0
				if status[0] == joinMustBeOperand {
					k = 1
				}
				arg := names[k]
				switch status[k] {
				case joinMustBeOperand:
					return e.Usage("join", 1, "extra operand %s", quoteAlways(o.Val))
				case joinMightBeJ1, joinMightBeJ2:
					i := status[k] - joinMightBeJ1
					jCount[i]--
					f, ok := joinField(arg)
					if !ok {
						return fail("invalid field number: %s", quoteArg(arg))
					}
					if !setField(i, f) {
						return 1
					}
				case joinMightBeO:
					if msg := j.addSpecs(arg); msg != "" {
						return fail("%s", msg)
					}
				}
				if k == 0 {
					names[0], status[0] = names[1], status[1]
				}
				nfiles = 1
			}
			names[nfiles], status[nfiles] = o.Val, prevStatus
			nfiles++
			if prevStatus == joinMightBeO {
				optStatus = joinMightBeO
			}
		case "v", "a":
			if o.Key == "v" {
				j.paired = false
			}
			n, ok := joinUint(o.Val)
			if !ok || n != 1 && n != 2 {
				return fail("invalid field number: %s", quoteArg(o.Val))
			}
			j.unpaired[n-1] = true
		case "e":
			if j.hasFiller && j.filler != o.Val {
				return fail("conflicting empty-field replacement strings")
			}
			j.filler, j.hasFiller = o.Val, true
		case "i":
			j.ignoreCase = true
		case "1", "2":
			f, ok := joinField(o.Val)
			if !ok {
				return fail("invalid field number: %s", quoteArg(o.Val))
			}
			if !setField(int(o.Key[0]-'1'), f) {
				return 1
			}
		case "j":
			obsolete := nj < len(obsoleteJ) && obsoleteJ[nj]
			nj++
			if obsolete {
				i := int(o.Val[0] - '1')
				jCount[i]++
				optStatus = joinMightBeJ1 + i
				break
			}
			f, ok := joinField(o.Val)
			if !ok {
				return fail("invalid field number: %s", quoteArg(o.Val))
			}
			if !setField(0, f) || !setField(1, f) {
				return 1
			}
		case "o":
			if o.Val == "auto" {
				j.auto = true
				break
			}
			if msg := j.addSpecs(o.Val); msg != "" {
				return fail("%s", msg)
			}
			optStatus = joinMightBeO
		case "t":
			var tab int
			switch {
			case o.Val == "":
				tab = '\n' // the whole line is the key
			case o.Val == `\0`:
				tab = 0
			case len(o.Val) > 1:
				return fail("multi-character tab %s", quoteArg(o.Val))
			default:
				tab = int(o.Val[0])
			}
			if j.tab >= 0 && j.tab != tab {
				return fail("incompatible tabs")
			}
			j.tab = tab
		case "z":
			j.eol = 0
		case "check-order":
			j.check = joinCheckOn
		case "nocheck-order":
			j.check = joinCheckOff
		case "header":
			j.header = true
		}
		prevStatus = optStatus
	}
	switch nfiles {
	case 0:
		return e.Usage("join", 1, "missing operand")
	case 1:
		return e.Usage("join", 1, "missing operand after %s", quoteArg(args[len(args)-1]))
	}
	// A "-j1" or "-j2" whose argument never came is "-j 1" or "-j 2".
	for i := range jCount {
		if jCount[i] != 0 && (!setField(0, i) || !setField(1, i)) {
			return 1
		}
	}
	for i := range j.field {
		if j.field[i] == joinUnset {
			j.field[i] = 0
		}
	}
	for i, name := range names {
		rc, err := e.Open(name)
		if err != nil {
			return fail("%s: %s", quoteName(name), proc.ErrorText(err))
		}
		defer rc.Close()
		j.in[i] = &joinInput{name: name, lr: newLineReader(rc, j.eol)}
	}
	if names[0] == "-" && names[1] == "-" {
		// GNU reports a stale errno here; Debian's is always ENOENT.
		return fail("both files cannot be standard input: No such file or directory")
	}
	j.out = newOutput(e.Stdout)
	j.run()
	if j.out.flush() != nil && !j.stop {
		return 1
	}
	if j.stop {
		return j.status
	}
	if j.warned[0] || j.warned[1] {
		return fail("input is not in sorted order")
	}
	return 0
}

// joinScan finds in join's arguments what Getopt does not tell: which
// -j options were written "-j1" or "-j2" (one entry per -j, in order),
// and how many operands come before "--" (all of them if there is none).
func joinScan(args []string) (obsolete []bool, beforeDashes int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return obsolete, beforeDashes
		case len(a) < 2 || a[0] != '-':
			beforeDashes++
		case a[1] == '-':
			// join's long options take no value.
		default:
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(joinValueLetters, a[k]) < 0 {
					continue
				}
				if a[k] == 'j' {
					obsolete = append(obsolete, k == 1 && (a[2:] == "1" || a[2:] == "2"))
				}
				if k == len(a)-1 {
					i++ // the value is the next argument
				}
				break
			}
		}
	}
	return obsolete, beforeDashes
}

// joinUint parses a number as coreutils' xstrtoumax does with no
// suffixes: leading blanks and a "+" are allowed, a "-" is not. ok is
// false for text that is no number; an overflow saturates.
func joinUint(s string) (uint64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	t = strings.TrimPrefix(t, "+")
	if t == "" || strings.Trim(t, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return math.MaxUint64, true
	}
	return n, true
}

// joinField converts a 1-based field number to a 0-based index. A
// number too large for any line selects no field, as in GNU.
func joinField(s string) (int, bool) {
	n, ok := joinUint(s)
	if !ok || n == 0 {
		return 0, false
	}
	if n > math.MaxInt32 {
		return math.MaxInt32, true
	}
	return int(n) - 1, true
}

// addSpecs adds -o's comma- or blank-separated list; it returns GNU's
// error message for a bad item, "" if all were good.
func (j *joiner) addSpecs(list string) string {
	// Like GNU's strpbrk loop, every separator ends an item, so
	// "1.1,,2.2" holds an empty (and invalid) one.
	rest := list
	for {
		i := strings.IndexAny(rest, ", \t")
		item := rest
		if i >= 0 {
			item = rest[:i]
		}
		switch {
		case item == "0":
			j.specs = append(j.specs, joinSpec{})
		case len(item) > 0 && item[0] == '0':
			return "invalid field specifier: " + quoteArg(item)
		case len(item) > 0 && (item[0] == '1' || item[0] == '2'):
			if len(item) < 2 || item[1] != '.' {
				return "invalid field specifier: " + quoteArg(item)
			}
			f, ok := joinField(item[2:])
			if !ok {
				return "invalid field number: " + quoteArg(item[2:])
			}
			j.specs = append(j.specs, joinSpec{file: int(item[0] - '0'), field: f})
		default:
			return "invalid file number in field spec: " + quoteArg(item)
		}
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
}

// split cuts a line into fields. With blanks as separators, leading
// blanks are skipped and trailing ones leave an empty last field, as
// GNU's xfields does.
func (j *joiner) split(text []byte) [][]byte {
	if len(text) == 0 {
		return nil
	}
	switch {
	case j.tab == '\n':
		return [][]byte{text}
	case j.tab >= 0:
		return bytes.Split(text, []byte{byte(j.tab)})
	}
	blank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
	var fields [][]byte
	i := 0
	for i < len(text) && blank(text[i]) {
		i++
	}
	if i == len(text) {
		return nil
	}
	for i < len(text) {
		k := i
		for k < len(text) && !blank(text[k]) {
			k++
		}
		fields = append(fields, text[i:k])
		if k == len(text) {
			return fields
		}
		for k < len(text) && blank(text[k]) {
			k++
		}
		i = k
	}
	return append(fields, text[len(text):])
}

func joinKey(l *joinLine, f int) []byte {
	if l != nil && f < len(l.fields) {
		return l.fields[f]
	}
	return nil
}

// keycmp compares the join fields of two lines; an empty or missing
// field sorts first. -i compares bytes folded to upper case, as GNU's
// memcasecmp does (ASCII only).
func (j *joiner) keycmp(a, b *joinLine, fa, fb int) int {
	ka, kb := joinKey(a, fa), joinKey(b, fb)
	switch {
	case len(ka) == 0 && len(kb) == 0:
		return 0
	case len(ka) == 0:
		return -1
	case len(kb) == 0:
		return 1
	}
	if !j.ignoreCase {
		return bytes.Compare(ka, kb)
	}
	for i := 0; i < len(ka) && i < len(kb); i++ {
		ca, cb := ka[i], kb[i]
		if ca >= 'a' && ca <= 'z' {
			ca -= 'a' - 'A'
		}
		if cb >= 'a' && cb <= 'z' {
			cb -= 'a' - 'A'
		}
		if ca != cb {
			return int(ca) - int(cb)
		}
	}
	return len(ka) - len(kb)
}

// getLine reads the next line of input w and checks its order against
// the line before; ok is false at the end of the input and when join
// must stop.
func (j *joiner) getLine(w int) (*joinLine, bool) {
	in := j.in[w]
	if j.stop || j.e.Cancelled() {
		j.stop, j.status = true, 1
		return nil, false
	}
	if !in.lr.next() {
		if in.lr.err != nil {
			_ = j.out.flush()
			j.e.Errorf("join", "read error: %s", proc.ErrorText(in.lr.err))
			j.stop, j.status = true, 1
		}
		return nil, false
	}
	in.lineNo++
	l := &joinLine{text: append([]byte(nil), in.lr.line...)}
	l.fields = j.split(l.text)
	if in.prev != nil {
		j.checkOrder(in.prev, l, w)
	}
	in.prev = l
	return l, !j.stop
}

func (j *joiner) checkOrder(prev, cur *joinLine, w int) {
	if j.check == joinCheckOff || j.check == joinCheckDefault && !j.seenUnpairable || j.warned[w] {
		return
	}
	if j.keycmp(prev, cur, j.field[w], j.field[w]) <= 0 {
		return
	}
	text := cur.text
	if i := bytes.IndexByte(text, 0); i >= 0 {
		text = text[:i] // GNU prints it with %s
	}
	_ = j.out.flush()
	fmt.Fprintf(j.e.Stderr, "join: %s:%d: is not sorted: %s\n", j.in[w].name, j.in[w].lineNo, text)
	if j.check == joinCheckOn {
		j.stop, j.status = true, 1
	}
	j.warned[w] = true
}

// run is GNU join's merge: it pairs runs of lines with equal keys and
// prints the unpairable lines asked for.
func (j *joiner) run() {
	var seq [2][]*joinLine
	// advance replaces the current line of input w with its next one.
	advance := func(w int) {
		seq[w] = seq[w][:0]
		if l, ok := j.getLine(w); ok {
			seq[w] = append(seq[w], l)
		}
	}
	for w := range seq {
		if advance(w); j.stop {
			return
		}
	}
	if j.auto {
		for w := range seq {
			if len(seq[w]) > 0 {
				j.autoCount[w] = len(seq[w][0].fields)
			}
		}
	}
	if j.header && (len(seq[0]) > 0 || len(seq[1]) > 0) {
		j.print(first(seq[0]), first(seq[1]))
		j.in[0].prev, j.in[1].prev = nil, nil
		for w := range seq {
			if len(seq[w]) > 0 {
				if advance(w); j.stop {
					return
				}
			}
		}
	}
	for len(seq[0]) > 0 && len(seq[1]) > 0 && !j.out.failed() {
		diff := j.keycmp(seq[0][0], seq[1][0], j.field[0], j.field[1])
		if diff != 0 {
			w := 0
			if diff > 0 {
				w = 1
			}
			if j.unpaired[w] {
				j.printOne(w, seq[w][0])
			}
			if advance(w); j.stop {
				return
			}
			j.seenUnpairable = true
			continue
		}
		// Read the run of lines of each file whose key is this one.
		var eof [2]bool
		for w := range seq {
			for {
				l, ok := j.getLine(w)
				if j.stop {
					return
				}
				if !ok {
					eof[w] = true
					break
				}
				seq[w] = append(seq[w], l)
				var d int
				if w == 0 {
					d = j.keycmp(l, seq[1][0], j.field[0], j.field[1])
				} else {
					d = j.keycmp(seq[0][0], l, j.field[0], j.field[1])
				}
				if d != 0 {
					break
				}
			}
		}
		var runs [2][]*joinLine
		for w := range seq {
			runs[w] = seq[w]
			if !eof[w] {
				runs[w] = seq[w][:len(seq[w])-1]
			}
		}
		if j.paired {
			for _, a := range runs[0] {
				for _, b := range runs[1] {
					j.print(a, b)
				}
			}
		}
		for w := range seq {
			if eof[w] {
				seq[w] = nil
			} else {
				seq[w] = append(seq[w][:0], seq[w][len(seq[w])-1])
			}
		}
	}
	// Read the rest of each file to check its order (until it was
	// found out of order) and to print its unpairable lines.
	checkTail := j.check != joinCheckOff && !(j.warned[0] && j.warned[1])
	for w := range seq {
		if !(j.unpaired[w] || checkTail) || len(seq[w]) == 0 {
			continue
		}
		if j.unpaired[w] {
			j.printOne(w, seq[w][0])
		}
		if len(seq[1-w]) > 0 {
			j.seenUnpairable = true
		}
		for !j.out.failed() {
			l, ok := j.getLine(w)
			if j.stop {
				return
			}
			if !ok {
				break
			}
			if j.unpaired[w] {
				j.printOne(w, l)
			}
			if j.warned[w] && !j.unpaired[w] {
				break
			}
		}
	}
}

func first(s []*joinLine) *joinLine {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// printOne prints an unpairable line of input w.
func (j *joiner) printOne(w int, l *joinLine) {
	if w == 0 {
		j.print(l, nil)
	} else {
		j.print(nil, l)
	}
}

// print writes one output line for a and b, either of which may be nil
// for an unpairable line.
func (j *joiner) print(a, b *joinLine) {
	sep := byte(' ')
	if j.tab >= 0 {
		sep = byte(j.tab)
	}
	line, f := a, j.field[0]
	if a == nil {
		line, f = b, j.field[1]
	}
	if len(j.specs) > 0 {
		for i, s := range j.specs {
			if i > 0 {
				_ = j.out.WriteByte(sep)
			}
			switch s.file {
			case 0:
				j.printField(line, f)
			case 1:
				j.printField(a, s.field)
			default:
				j.printField(b, s.field)
			}
		}
	} else {
		j.printField(line, f)
		j.printFields(a, j.field[0], j.autoCount[0], sep)
		j.printFields(b, j.field[1], j.autoCount[1], sep)
	}
	_ = j.out.WriteByte(j.eol)
}

// printField writes field f of l, or -e's filler for an empty or
// missing field.
func (j *joiner) printField(l *joinLine, f int) {
	if k := joinKey(l, f); len(k) > 0 {
		_, _ = j.out.Write(k)
	} else if j.hasFiller {
		_, _ = io.WriteString(j.out, j.filler)
	}
}

// printFields writes the fields of l other than its join field; with
// -o auto as many as the first line of its file had.
func (j *joiner) printFields(l *joinLine, jf, autoCount int, sep byte) {
	n := autoCount
	if !j.auto {
		n = 0
		if l != nil {
			n = len(l.fields)
		}
	}
	for i := 0; i < n; i++ {
		if i == jf {
			continue
		}
		_ = j.out.WriteByte(sep)
		j.printField(l, i)
	}
}
