package textcmd

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const sortOpts = "b,ignore-leading-blanks d,dictionary-order f,ignore-case g,general-numeric-sort i,ignore-nonprinting M,month-sort h,human-numeric-sort n,numeric-sort R,random-sort r,reverse V,version-sort ,sort: c,check:: C k,key: m,merge o,output: s,stable S,buffer-size: t,field-separator: T,temporary-directory: u,unique z,zero-terminated ,parallel: ,debug ,batch-size: ,random-source: ,compress-program:"

// sortKey is one -k KEYDEF (or the whole line when there is none).
// Fields and characters are 0-based here; echar 0 means the end of the
// end field and eword -1 the end of the line.
type sortKey struct {
	sword, schar, eword, echar int
	skipStart, skipEnd         bool
	mode                       byte // 0 text, or one of "nghMVR"
	fold, dict, nonprint       bool
	reverse                    bool
}

func (k *sortKey) hasOptions() bool {
	return k.skipStart || k.skipEnd || k.mode != 0 || k.fold || k.dict || k.nonprint || k.reverse
}

// setOption applies an ordering letter; false if it is not one.
func (k *sortKey) setOption(c byte, start bool) bool {
	switch c {
	case 'b':
		if start {
			k.skipStart = true
		} else {
			k.skipEnd = true
		}
	case 'd':
		k.dict = true
	case 'f':
		k.fold = true
	case 'i':
		k.nonprint = true
	case 'r':
		k.reverse = true
	case 'n', 'g', 'h', 'M', 'V', 'R':
		k.mode = c
	default:
		return false
	}
	return true
}

type sorter struct {
	keys   []sortKey
	global sortKey
	tab    int // -1: blank-separated fields
	unique bool
	stable bool
	seed   maphash.Seed
}

func sortCmd(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: sortOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	fail := func(msg string) int {
		fmt.Fprintf(e.Stderr, "sort: %s\n", msg)
		return 2
	}
	if err != nil {
		return e.Usage("sort", 2, "%v", err)
	}
	s := &sorter{tab: -1, seed: maphash.MakeSeed()}
	var check, quietCheck, zero bool
	output := ""
	modes := ""
	for _, o := range opts {
		switch o.Key {
		case "b", "d", "f", "g", "i", "M", "h", "n", "R", "r", "V":
			s.global.setOption(o.Key[0], true)
			if o.Key == "b" {
				s.global.skipEnd = true
			}
			if strings.Contains("ghMnRV", o.Key) && !strings.Contains(modes, o.Key) {
				modes += o.Key
			}
		case "sort":
			m := map[string]byte{"general-numeric": 'g', "human-numeric": 'h', "month": 'M', "numeric": 'n', "random": 'R', "version": 'V'}[o.Val]
			if m == 0 {
				return fail(fmt.Sprintf("invalid argument %s for '--sort'", quoteArg(o.Val)))
			}
			s.global.mode = m
		case "c":
			check = true
			if o.Val == "quiet" || o.Val == "silent" {
				quietCheck = true
			}
		case "C":
			check, quietCheck = true, true
		case "k":
			k, err := parseSortKey(o.Val)
			if err != nil {
				return fail(err.Error())
			}
			s.keys = append(s.keys, k)
		case "o":
			output = o.Val
		case "s":
			s.stable = true
		case "t":
			switch {
			case o.Val == "":
				return fail("empty tab")
			case o.Val == `\0`:
				s.tab = 0
			case len(o.Val) > 1:
				return fail("multi-character tab " + quoteArg(o.Val))
			default:
				s.tab = int(o.Val[0])
			}
		case "u":
			s.unique = true
		case "z":
			zero = true
		}
	}
	if len(modes) > 1 {
		sorted := []byte(modes)
		slices.Sort(sorted)
		return fail(fmt.Sprintf("options '-%s' are incompatible", string(sorted)))
	}
	for i := range s.keys {
		if !s.keys[i].hasOptions() {
			k := &s.keys[i]
			g := s.global
			g.sword, g.schar, g.eword, g.echar = k.sword, k.schar, k.eword, k.echar
			*k = g
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	sep := sepByte(zero)
	var lines [][]byte
	var names []string // which file each line came from, for -c
	for _, name := range operands {
		f, err := e.Open(name)
		if err != nil {
			return fail("cannot read: " + quoteName(name) + ": " + proc.ErrorText(err))
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return fail("read failed: " + quoteName(name) + ": " + proc.ErrorText(err))
		}
		if len(data) > 0 && data[len(data)-1] == sep {
			data = data[:len(data)-1]
		} else if len(data) == 0 {
			continue
		}
		for _, l := range bytes.Split(data, []byte{sep}) {
			lines = append(lines, l)
			names = append(names, name)
		}
		if e.Cancelled() {
			return 2
		}
	}
	if check {
		for i := 1; i < len(lines); i++ {
			c := s.compare(lines[i-1], lines[i])
			if c > 0 || s.unique && c == 0 {
				if !quietCheck {
					fmt.Fprintf(e.Stderr, "sort: %s:%d: disorder: %s\n", names[i], i+1, lines[i])
				}
				return 1
			}
		}
		return 0
	}
	slices.SortStableFunc(lines, s.compare)
	if s.unique {
		kept := lines[:0]
		for i, l := range lines {
			if i == 0 || s.compareKeys(kept[len(kept)-1], l) != 0 {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	var w io.Writer = e.Stdout
	if output != "" && output != "-" {
		f, err := os.Create(e.Path(output))
		if err != nil {
			return fail(fmt.Sprintf("open failed: %s: %s", quoteName(output), proc.ErrorText(err)))
		}
		defer f.Close()
		w = f
	}
	out := newOutput(w)
	for _, l := range lines {
		_, _ = out.Write(l)
		_ = out.WriteByte(sep)
	}
	if out.flush() != nil {
		return 2
	}
	return 0
}

// parseSortKey parses F[.C][OPTS][,F[.C][OPTS]].
func parseSortKey(spec string) (sortKey, error) {
	k := sortKey{eword: -1}
	bad := func(why string) error {
		return fmt.Errorf("%s: invalid field specification %s", why, quoteArg(spec))
	}
	s := spec
	num := func(what string) (int, error) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("invalid number %s: invalid count at start of %s", what, quoteArg(s))
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			n = 1<<31 - 1
		}
		s = s[i:]
		return n, nil
	}
	n, err := num("at field start")
	if err != nil {
		return k, err
	}
	if n == 0 {
		return k, bad("field number is zero")
	}
	k.sword = n - 1
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		c, err := num("after '.'")
		if err != nil {
			return k, err
		}
		if c == 0 {
			return k, bad("character offset is zero")
		}
		k.schar = c - 1
	}
	for s != "" && s[0] != ',' {
		if !k.setOption(s[0], true) {
			return k, bad("stray character in field spec")
		}
		s = s[1:]
	}
	if s == "" {
		return k, nil
	}
	s = s[1:]
	n, err = num("after ','")
	if err != nil {
		return k, err
	}
	if n == 0 {
		return k, bad("field number is zero")
	}
	k.eword = n - 1
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		c, err := num("after '.'")
		if err != nil {
			return k, err
		}
		k.echar = c
	}
	for s != "" {
		if !k.setOption(s[0], false) {
			return k, bad("stray character in field spec")
		}
		s = s[1:]
	}
	return k, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// keyStart finds where a key begins in line (GNU's begfield).
func (s *sorter) keyStart(line []byte, k *sortKey) int {
	p, lim := 0, len(line)
	for w := k.sword; w > 0 && p < lim; w-- {
		if s.tab >= 0 {
			for p < lim && int(line[p]) != s.tab {
				p++
			}
			if p < lim {
				p++
			}
		} else {
			for p < lim && isBlank(line[p]) {
				p++
			}
			for p < lim && !isBlank(line[p]) {
				p++
			}
		}
	}
	if k.skipStart {
		for p < lim && isBlank(line[p]) {
			p++
		}
	}
	return min(p+k.schar, lim)
}

// keyEnd finds where a key ends (GNU's limfield).
func (s *sorter) keyEnd(line []byte, k *sortKey) int {
	p, lim := 0, len(line)
	if k.eword < 0 {
		return lim
	}
	eword, echar := k.eword, k.echar
	if echar == 0 {
		eword++
	}
	for ; eword > 0 && p < lim; eword-- {
		if s.tab >= 0 {
			for p < lim && int(line[p]) != s.tab {
				p++
			}
			if p < lim && (eword > 1 || echar != 0) {
				p++
			}
		} else {
			for p < lim && isBlank(line[p]) {
				p++
			}
			for p < lim && !isBlank(line[p]) {
				p++
			}
		}
	}
	if echar != 0 {
		if k.skipEnd {
			for p < lim && isBlank(line[p]) {
				p++
			}
		}
		p = min(p+echar, lim)
	}
	return p
}

// compare orders two lines: by the keys, then (unless -s or -u) by the
// whole line's bytes, as GNU sort's last resort.
func (s *sorter) compare(a, b []byte) int {
	if c := s.compareKeys(a, b); c != 0 || s.stable || s.unique {
		return c
	}
	c := bytes.Compare(a, b)
	if s.global.reverse {
		c = -c
	}
	return c
}

func (s *sorter) compareKeys(a, b []byte) int {
	if len(s.keys) == 0 {
		if s.global.skipStart {
			a, b = bytes.TrimLeft(a, " \t"), bytes.TrimLeft(b, " \t")
		}
		return s.compareKey(a, b, &s.global)
	}
	for i := range s.keys {
		k := &s.keys[i]
		ka := a[s.keyStart(a, k):max(s.keyEnd(a, k), s.keyStart(a, k))]
		kb := b[s.keyStart(b, k):max(s.keyEnd(b, k), s.keyStart(b, k))]
		if c := s.compareKey(ka, kb, k); c != 0 {
			return c
		}
	}
	return 0
}

func (s *sorter) compareKey(a, b []byte, k *sortKey) int {
	var c int
	switch k.mode {
	case 'n':
		c = numCompare(a, b)
	case 'h':
		c = humanCompare(a, b)
	case 'g':
		c = generalCompare(a, b)
	case 'M':
		c = monthOf(a) - monthOf(b)
	case 'V':
		c = versionCompare(string(a), string(b))
	case 'R':
		c = cmpUint(maphash.Bytes(s.seed, a), maphash.Bytes(s.seed, b))
		if c == 0 {
			c = bytes.Compare(a, b)
		}
	default:
		if k.fold || k.dict || k.nonprint {
			c = bytes.Compare(textKey(a, k), textKey(b, k))
		} else {
			c = bytes.Compare(a, b)
		}
	}
	if k.reverse {
		c = -c
	}
	return c
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// textKey applies -d, -i and -f to a key (byte-wise, as GNU sort does).
func textKey(a []byte, k *sortKey) []byte {
	out := make([]byte, 0, len(a))
	for _, c := range a {
		if k.dict && !(isBlank(c) || isAlpha(c) || isDigit(c)) {
			continue
		}
		if k.nonprint && (c < 32 || c == 127) {
			continue
		}
		if k.fold && c >= 'a' && c <= 'z' {
			c -= 32
		}
		out = append(out, c)
	}
	return out
}

// parsedNum is a decimal number split for exact comparison.
type parsedNum struct {
	neg       bool
	int, frac string // no leading zeros in int, no trailing zeros in frac
	rest      []byte
}

func parseNum(a []byte) parsedNum {
	i := 0
	for i < len(a) && (isBlank(a[i]) || a[i] == '\n') {
		i++
	}
	var n parsedNum
	if i < len(a) && a[i] == '-' {
		n.neg = true
		i++
	}
	start := i
	for i < len(a) && isDigit(a[i]) {
		i++
	}
	n.int = strings.TrimLeft(string(a[start:i]), "0")
	if i < len(a) && a[i] == '.' {
		i++
		fs := i
		for i < len(a) && isDigit(a[i]) {
			i++
		}
		n.frac = strings.TrimRight(string(a[fs:i]), "0")
	}
	n.rest = a[i:]
	if n.int == "" && n.frac == "" {
		n.neg = false
	}
	return n
}

// numCompare compares like sort -n: exactly, on the decimal digits, with
// anything that is not a number equal to zero.
func numCompare(a, b []byte) int {
	return cmpParsed(parseNum(a), parseNum(b))
}

func cmpParsed(x, y parsedNum) int {
	if x.neg != y.neg {
		if x.neg {
			return -1
		}
		return 1
	}
	c := 0
	switch {
	case len(x.int) != len(y.int):
		c = cmpInt(len(x.int), len(y.int))
	case x.int != y.int:
		c = strings.Compare(x.int, y.int)
	default:
		c = strings.Compare(x.frac, y.frac)
	}
	if x.neg {
		c = -c
	}
	return c
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// humanCompare compares like sort -h: first by the SI suffix, then by
// the number.
func humanCompare(a, b []byte) int {
	x, y := parseNum(a), parseNum(b)
	ux, uy := unitOrder(x), unitOrder(y)
	if ux != uy {
		return cmpInt(ux, uy)
	}
	return cmpParsed(x, y)
}

func unitOrder(n parsedNum) int {
	if len(n.rest) == 0 || n.int == "" && n.frac == "" {
		return 0
	}
	o := strings.IndexByte("KMGTPEZYRQ", n.rest[0]) + 1
	if n.rest[0] == 'k' {
		o = 1
	}
	if n.neg {
		o = -o
	}
	return o
}

// generalCompare compares like sort -g: as floating point numbers, with
// what does not parse first.
func generalCompare(a, b []byte) int {
	fa, oka := parseFloatPrefix(a)
	fb, okb := parseFloatPrefix(b)
	switch {
	case !oka || !okb:
		return cmpBool(oka, okb)
	case fa != fa || fb != fb: // NaN sorts after numbers... before, in GNU
		return cmpBool(fa == fa, fb == fb)
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// parseFloatPrefix parses the longest prefix of a that is a number, as
// strtold does.
func parseFloatPrefix(a []byte) (float64, bool) {
	s := strings.TrimLeft(string(a), " \t")
	if h := strings.TrimLeft(s, "+-"); len(h) > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		// strtold reads hexadecimal; Go wants a binary exponent.
		for end := len(s); end > 2; end-- {
			if f, err := strconv.ParseFloat(s[:end]+"p0", 64); err == nil {
				return f, true
			}
		}
	}
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil || isRangeErr(err) {
			return f, true
		}
	}
	return 0, false
}

func isRangeErr(err error) bool {
	return errors.Is(err, strconv.ErrRange)
}

// monthOf returns 1-12 for a key starting with a month name, else 0.
func monthOf(a []byte) int {
	s := strings.ToUpper(strings.TrimLeft(string(a), " \t"))
	for i, m := range []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"} {
		if strings.HasPrefix(s, m) {
			return i + 1
		}
	}
	return 0
}
