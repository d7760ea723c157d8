package textcmd

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const cutOpts = "b,bytes: c,characters: f,fields: d,delimiter: n s,only-delimited ,complement ,output-delimiter: z,zero-terminated"

// cutRange is an inclusive range of 1-based positions.
type cutRange struct{ lo, hi int }

// cut's -c selects bytes, as GNU cut (without the i18n patch Debian does
// not carry) does.
func cut(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: cutOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	usage := func(msg string) int {
		return e.Usage("cut", 1, "%s", msg)
	}
	if err != nil {
		return usage(err.Error())
	}
	var list, mode string
	delim := byte('\t')
	haveDelim, onlyDelim, complement, zero := false, false, false, false
	outDelim, haveOutDelim := "", false
	for _, o := range opts {
		switch o.Key {
		case "b", "c", "f":
			if mode != "" {
				return usage("only one list may be specified")
			}
			mode, list = o.Key, o.Val
		case "d":
			if len(o.Val) > 1 {
				return usage("the delimiter must be a single character")
			}
			delim, haveDelim = 0, true
			if o.Val != "" {
				delim = o.Val[0]
			}
		case "s":
			onlyDelim = true
		case "complement":
			complement = true
		case "output-delimiter":
			outDelim, haveOutDelim = o.Val, true
		case "z":
			zero = true
		}
	}
	if mode == "" {
		return usage("you must specify a list of bytes, characters, or fields")
	}
	if mode != "f" && haveDelim {
		return usage("an input delimiter may be specified only when operating on fields")
	}
	if mode != "f" && onlyDelim {
		return usage("suppressing non-delimited lines makes sense\n\tonly when operating on fields")
	}
	ranges, err := parseCutList(list, mode == "f")
	if err != nil {
		return usage(err.Error())
	}
	if complement {
		ranges = complementRanges(ranges)
	}
	if !haveOutDelim {
		outDelim = string(delim)
		if mode != "f" {
			outDelim = ""
		}
	}
	sep := sepByte(zero)
	out := newOutput(e.Stdout)
	status := 0
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	for _, name := range operands {
		rc, err := e.Open(name)
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "cut: %s: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
			continue
		}
		lr := newLineReader(rc, sep)
		for lr.next() && !e.Cancelled() && !out.failed() {
			line := lr.line
			if mode == "f" {
				if bytes.IndexByte(line, delim) < 0 {
					if !onlyDelim {
						_, _ = out.Write(line)
						_ = out.WriteByte(sep)
					}
					continue
				}
				fields := bytes.Split(line, []byte{delim})
				first := true
				for i, f := range fields {
					if inRanges(ranges, i+1) {
						if !first {
							_, _ = out.WriteString(outDelim)
						}
						_, _ = out.Write(f)
						first = false
					}
				}
			} else {
				// The output delimiter, when given, goes between the
				// ranges of the list.
				any := false
				for i := range line {
					if !inRanges(ranges, i+1) {
						continue
					}
					if any && haveOutDelim && rangeStart(ranges, i+1) {
						_, _ = out.WriteString(outDelim)
					}
					_ = out.WriteByte(line[i])
					any = true
				}
			}
			_ = out.WriteByte(sep)
		}
		if lr.err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "cut: %s: %s\n", quoteName(name), proc.ErrorText(lr.err))
			status = 1
		}
		rc.Close()
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}

// parseCutList parses "N", "N-", "-M", "N-M", separated by commas or
// blanks, into sorted, merged ranges.
func parseCutList(list string, fields bool) ([]cutRange, error) {
	what := "byte/character positions are numbered from 1"
	invalid := "invalid byte/character position "
	if fields {
		what = "fields are numbered from 1"
		invalid = "invalid field value "
	}
	var ranges []cutRange
	for _, item := range strings.FieldsFunc(list+"\x00", func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		item = strings.TrimSuffix(item, "\x00")
		if item == "" {
			if list == "" {
				return nil, fmt.Errorf("%s", what)
			}
			continue
		}
		lo, hi, isRange := strings.Cut(item, "-")
		num := func(s string, zeroOK bool) (int, error) {
			if strings.Trim(s, "0123456789") != "" {
				return 0, fmt.Errorf("%s%s", invalid, quoteArg(item))
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				n = math.MaxInt
			}
			if n == 0 && !zeroOK {
				return 0, fmt.Errorf("%s", what)
			}
			return n, nil
		}
		r := cutRange{1, math.MaxInt}
		var err error
		switch {
		case !isRange:
			if r.lo, err = num(lo, false); err != nil {
				return nil, err
			}
			r.hi = r.lo
		case lo == "" && hi == "":
			return nil, fmt.Errorf("invalid range with no endpoint: -")
		default:
			if lo != "" {
				if r.lo, err = num(lo, false); err != nil {
					return nil, err
				}
			}
			if hi != "" {
				if r.hi, err = num(hi, true); err != nil {
					return nil, err
				}
			}
			if r.hi < r.lo {
				return nil, fmt.Errorf("invalid decreasing range")
			}
		}
		ranges = append(ranges, r)
	}
	if len(ranges) == 0 {
		return nil, fmt.Errorf("%s", what)
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].lo < ranges[j].lo })
	// Overlapping ranges merge; adjacent ones stay apart, because
	// --output-delimiter separates them.
	merged := ranges[:1]
	for _, r := range ranges[1:] {
		last := &merged[len(merged)-1]
		if r.lo <= last.hi {
			last.hi = max(last.hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged, nil
}

func complementRanges(rs []cutRange) []cutRange {
	var out []cutRange
	next := 1
	for _, r := range rs {
		if r.lo > next {
			out = append(out, cutRange{next, r.lo - 1})
		}
		if r.hi == math.MaxInt {
			return out
		}
		next = r.hi + 1
	}
	return append(out, cutRange{next, math.MaxInt})
}

func rangeStart(rs []cutRange, n int) bool {
	for _, r := range rs {
		if r.lo == n {
			return true
		}
	}
	return false
}

func inRanges(rs []cutRange, n int) bool {
	for _, r := range rs {
		if n < r.lo {
			return false
		}
		if n <= r.hi {
			return true
		}
	}
	return false
}
