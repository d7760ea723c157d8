package textcmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const trOpts = "c,complement C d,delete s,squeeze-repeats t,truncate-set1"

// tr works on bytes, as GNU tr does (it has no multibyte support): "é"
// in a set is two bytes.
func tr(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: trOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	fail := func(msg string) int {
		return e.Usage("tr", 1, "%s", msg)
	}
	if err != nil {
		return fail(err.Error())
	}
	var complement, del, squeeze, truncate bool
	for _, o := range opts {
		switch o.Key {
		case "c", "C":
			complement = true
		case "d":
			del = true
		case "s":
			squeeze = true
		case "t":
			truncate = true
		}
	}
	translating := !del && len(operands) >= 2
	switch {
	case len(operands) == 0:
		return fail("missing operand")
	case del && squeeze && len(operands) < 2:
		return fail(fmt.Sprintf("missing operand after %s\nTwo strings must be given when both deleting and squeezing repeats.", quoteArg(operands[0])))
	case !del && !squeeze && len(operands) < 2:
		return fail(fmt.Sprintf("missing operand after %s\nTwo strings must be given when translating.", quoteArg(operands[0])))
	case del && !squeeze && len(operands) > 1:
		return fail(fmt.Sprintf("extra operand %s\nOnly one string may be given when deleting without squeezing repeats.", quoteArg(operands[1])))
	case len(operands) > 2:
		return fail(fmt.Sprintf("extra operand %s", quoteArg(operands[2])))
	}
	set1, err := parseTrSet(e, operands[0], false)
	if err != nil {
		fmt.Fprintf(e.Stderr, "tr: %v\n", err)
		return 1
	}
	var set2 *trSet
	if len(operands) > 1 {
		if set2, err = parseTrSet(e, operands[1], true); err != nil {
			fmt.Fprintf(e.Stderr, "tr: %v\n", err)
			return 1
		}
	}
	var in1 [256]bool
	for _, c := range set1.chars {
		in1[c] = true
	}
	if complement {
		var comp []byte
		for c := 0; c < 256; c++ {
			if !in1[c] {
				comp = append(comp, byte(c))
			}
			in1[c] = !in1[c]
		}
		set1.chars = comp
	}
	var xlate [256]byte
	for i := range xlate {
		xlate[i] = byte(i)
	}
	if translating {
		if err := set2.check(set1, complement); err != nil {
			fmt.Fprintf(e.Stderr, "tr: %v\n", err)
			return 1
		}
		s2 := set2.expand(len(set1.chars), truncate)
		if len(s2) == 0 && len(set1.chars) > 0 && !truncate {
			fmt.Fprintln(e.Stderr, "tr: when not truncating set1, string2 must be non-empty")
			return 1
		}
		n := len(set1.chars)
		if truncate && len(s2) < n {
			n = len(s2)
		}
		if set1.caseClass != "" && set2.caseClass != "" && set1.caseClass != set2.caseClass {
			for c := 0; c < 256; c++ {
				if set1.caseClass == "lower" && c >= 'a' && c <= 'z' {
					xlate[c] = byte(c - 32)
				} else if set1.caseClass == "upper" && c >= 'A' && c <= 'Z' {
					xlate[c] = byte(c + 32)
				}
			}
		}
		for i := 0; i < n; i++ {
			xlate[set1.chars[i]] = s2[i]
		}
	}
	var sq [256]bool
	if squeeze {
		sqSet := set1.chars
		if set2 != nil {
			sqSet = set2.expand(0, true)
		}
		for _, c := range sqSet {
			sq[c] = true
		}
	}
	br := bufio.NewReaderSize(e.Stdin, 64*1024)
	out := newOutput(e.Stdout)
	buf := make([]byte, 64*1024)
	last := -1
	for !e.Cancelled() && !out.failed() {
		n, rerr := br.Read(buf)
		for _, c := range buf[:n] {
			if del && in1[c] {
				continue
			}
			if translating {
				c = xlate[c]
			}
			if squeeze && sq[c] && last == int(c) {
				continue
			}
			last = int(c)
			_ = out.WriteByte(c)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "tr: read error: %s\n", proc.ErrorText(rerr))
			return 1
		}
	}
	if out.flush() != nil {
		return 1
	}
	return 0
}

// trSet is a parsed SET operand: its characters in order, with [c*n]
// repeats kept apart until set2 is stretched to set1's length.
type trSet struct {
	chars     []byte
	items     []trItem
	caseClass string // "upper" or "lower" if the set uses that class
	classes   []string
	fill      int // index in items of a [c*] that fills; -1 if none
}

type trItem struct {
	c     byte
	n     int // repeat count; 0 with fill
	fill  bool
	class string
}

var trClasses = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 32 || c == 127 },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 32 && c < 127 },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print":  func(c byte) bool { return c >= 32 && c < 127 },
	"punct":  func(c byte) bool { return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseTrSet parses a SET: escapes, ranges, [:class:], [=c=], and in
// set2 [c*n].
func parseTrSet(e *proc.Env, s string, second bool) (*trSet, error) {
	set := &trSet{fill: -1}
	// First unescape into bytes, remembering which were escaped, so
	// "\-" and "\[" stay literal.
	var b []byte
	var lit []bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b, lit = append(b, c), append(lit, false)
			continue
		}
		if i+1 >= len(s) {
			fmt.Fprintln(e.Stderr, "tr: warning: an unescaped backslash at end of string is not portable")
			b, lit = append(b, '\\'), append(lit, true)
			continue
		}
		i++
		c = s[i]
		switch c {
		case 'a':
			c = '\a'
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'v':
			c = '\v'
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for k := 0; k < 2 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7' && v*8+int(s[i+1]-'0') < 256; k++ {
				i++
				v = v*8 + int(s[i]-'0')
			}
			c = byte(v)
		}
		b, lit = append(b, c), append(lit, true)
	}
	for i := 0; i < len(b); {
		if b[i] == '[' && !lit[i] && i+1 < len(b) {
			rest := string(b[i+1:])
			if strings.HasPrefix(rest, ":") {
				if end := strings.Index(rest[1:], ":]"); end >= 0 {
					name := rest[1 : 1+end]
					f, ok := trClasses[name]
					if !ok {
						return nil, fmt.Errorf("invalid character class %s", quoteArg(name))
					}
					for c := 0; c < 256; c++ {
						if f(byte(c)) {
							set.items = append(set.items, trItem{c: byte(c), n: 1, class: name})
						}
					}
					if name == "upper" || name == "lower" {
						set.caseClass = name
					}
					set.classes = append(set.classes, name)
					i += 1 + 1 + end + 2
					continue
				}
			}
			if strings.HasPrefix(rest, "=") && len(rest) >= 3 && rest[2] == '=' && strings.HasPrefix(rest[3:], "]") {
				set.items = append(set.items, trItem{c: rest[1], n: 1})
				i += 5
				continue
			}
			if len(rest) >= 3 && rest[1] == '*' {
				if end := strings.IndexByte(rest[2:], ']'); end >= 0 {
					if !second {
						return nil, fmt.Errorf("the [c*] repeat construct may not appear in string1")
					}
					num := rest[2 : 2+end]
					it := trItem{c: rest[0]}
					if num == "" {
						it.fill = true
					} else {
						base := 10
						if num[0] == '0' {
							base = 8
						}
						var v int
						for _, d := range num {
							if d < '0' || int(d-'0') >= base {
								return nil, fmt.Errorf("invalid repeat count %s in [c*n] construct", quoteArg(num))
							}
							v = v*base + int(d-'0')
							if v > 1<<20 {
								v = 1 << 20
							}
						}
						it.n = v
						if v == 0 {
							it.fill = true
						}
					}
					if it.fill && set.fill < 0 {
						set.fill = len(set.items)
					}
					set.items = append(set.items, it)
					i += 1 + 2 + end + 1
					continue
				}
			}
		}
		if i+2 < len(b) && b[i+1] == '-' && !lit[i+1] {
			lo, hi := b[i], b[i+2]
			if hi < lo {
				return nil, fmt.Errorf("range-endpoints of '%c-%c' are in reverse collating sequence order", lo, hi)
			}
			for c := int(lo); c <= int(hi); c++ {
				set.items = append(set.items, trItem{c: byte(c), n: 1})
			}
			i += 3
			continue
		}
		set.items = append(set.items, trItem{c: b[i], n: 1})
		i++
	}
	for _, it := range set.items {
		for k := 0; k < it.n; k++ {
			set.chars = append(set.chars, it.c)
		}
	}
	return set, nil
}

// check applies GNU's rules for classes in set2 when translating.
func (s *trSet) check(set1 *trSet, complement bool) error {
	for _, c := range s.classes {
		if c != "upper" && c != "lower" {
			return fmt.Errorf("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'")
		}
	}
	if s.caseClass != "" && (set1.caseClass == "" || complement) {
		return fmt.Errorf("misaligned [:upper:] and/or [:lower:] construct")
	}
	return nil
}

// expand returns set2's characters stretched to n: a [c*] fills the
// gap, else the last character is repeated (unless truncating).
func (s *trSet) expand(n int, truncate bool) []byte {
	if s.fill >= 0 {
		fixed := 0
		for i, it := range s.items {
			if i != s.fill {
				fixed += it.n
			}
		}
		var out []byte
		for i, it := range s.items {
			k := it.n
			if i == s.fill {
				k = max(n-fixed, 0)
			}
			for j := 0; j < k; j++ {
				out = append(out, it.c)
			}
		}
		return out
	}
	out := s.chars
	if !truncate && len(out) > 0 && len(out) < n {
		out = append([]byte(nil), out...)
		for len(out) < n {
			out = append(out, out[len(out)-1])
		}
	}
	return out
}
