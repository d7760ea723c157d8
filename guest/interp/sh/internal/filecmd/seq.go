package filecmd

import (
	"bufio"
	"math/big"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// A seqNum is one operand of seq with what GNU seq derives from its
// spelling: the digits after the point and the printed width decide the
// default output format.
type seqNum struct {
	text  string
	val   float64
	prec  int // digits after the point; -1 when it has an exponent
	width int
	isInt bool
}

func parseSeqNum(s string) (seqNum, bool) {
	n := seqNum{text: s, width: len(s)}
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || strings.ContainsAny(t, "xXpP_") {
		if !(strings.EqualFold(strings.TrimLeft(t, "+-"), "inf") || strings.EqualFold(strings.TrimLeft(t, "+-"), "infinity")) {
			return n, false
		}
	}
	n.val = v
	if strings.ContainsAny(t, "eE") {
		n.prec = -1
		// 1.5e1 prints with the digits the exponent leaves after the point.
		m, e, _ := strings.Cut(strings.ToLower(t), "e")
		x, _ := strconv.Atoi(e)
		if i := strings.IndexByte(m, '.'); i >= 0 {
			n.prec = max(0, len(m)-i-1-x)
		} else {
			n.prec = max(0, -x)
		}
		n.width = len(m) // approximate; -w with exponents is rare
		return n, true
	}
	if i := strings.IndexByte(t, '.'); i >= 0 {
		n.prec = len(t) - i - 1
	} else {
		n.isInt = !strings.ContainsAny(t, "iInN")
	}
	return n, true
}

func seq(e *proc.Env, args []string) int {
	isNum := func(a string) bool {
		return len(a) > 1 && a[0] == '-' && (a[1] == '.' || (a[1] >= '0' && a[1] <= '9'))
	}
	opts, ops, st, ok := parseArgs(e, "seq", 1, proc.Getopt{Spec: "f,format: s,separator: w,equal-width", Stop: isNum}, args[1:])
	if !ok {
		return st
	}
	format, sep, equal := "", "\n", false
	for _, o := range opts {
		switch o.Key {
		case "f":
			format = o.Val
		case "s":
			sep = o.Val
		case "w":
			equal = true
		}
	}
	switch {
	case len(ops) == 0:
		return e.Usage("seq", 1, "missing operand")
	case len(ops) > 3:
		return e.Usage("seq", 1, "extra operand %s", q(ops[3]))
	}
	if format != "" && equal {
		return e.Usage("seq", 1, "format string may not be specified when printing equal width strings")
	}
	nums := make([]seqNum, len(ops))
	for i, a := range ops {
		n, ok := parseSeqNum(a)
		if !ok {
			return e.Usage("seq", 1, "invalid floating point argument: %s", q(a))
		}
		nums[i] = n
	}
	first, step, last := seqNum{text: "1", val: 1, width: 1, isInt: true}, seqNum{text: "1", val: 1, width: 1, isInt: true}, nums[len(nums)-1]
	switch len(nums) {
	case 2:
		first = nums[0]
	case 3:
		first, step = nums[0], nums[1]
	}
	if step.val == 0 {
		return e.Usage("seq", 1, "invalid Zero increment value: %s", q(step.text))
	}
	var verb floatVerb
	prefix, suffix := "", ""
	if format != "" {
		var ok bool
		if prefix, verb, suffix, ok = splitFormat(e, format); !ok {
			return 1
		}
	}
	w := bufio.NewWriter(e.Stdout)
	defer func() { _ = w.Flush() }()
	if format == "" && !equal && first.isInt && step.isInt && last.isInt {
		return seqInts(e, w, first.text, step.text, last.text, sep)
	}
	if format == "" {
		verb = defaultSeqVerb(first, step, last, equal)
	}
	out := func(x float64) string { return prefix + verb.format(x) + suffix }
	printed := false
	prev := ""
	for i := 0; ; i++ {
		if i&1023 == 0 && e.Cancelled() {
			return 1
		}
		x := first.val + float64(i)*step.val
		if (step.val > 0 && x > last.val) || (step.val < 0 && x < last.val) {
			// A value just past LAST that prints as LAST is printed: it
			// is LAST, off by rounding (seq 0.1 0.1 0.3).
			if s := out(x); i > 0 && s == out(last.val) && s != prev {
				_, _ = w.WriteString(sep + s)
				printed = true
			}
			break
		}
		s := out(x)
		if i > 0 {
			_, _ = w.WriteString(sep)
		}
		_, _ = w.WriteString(s)
		printed, prev = true, s
		if step.val == 0 {
			break
		}
	}
	if printed {
		_, _ = w.WriteString("\n")
	}
	return 0
}

// defaultSeqVerb is GNU seq's choice of format when there is no -f: as
// many decimals as FIRST or INCREMENT has, and with -w a width that fits
// both ends.
func defaultSeqVerb(first, step, last seqNum, equal bool) floatVerb {
	if first.prec < 0 || step.prec < 0 || last.prec < 0 {
		if first.prec >= 0 && step.prec >= 0 {
			return floatVerb{verb: 'f', prec: max(first.prec, step.prec)}
		}
		return floatVerb{verb: 'g', prec: -1}
	}
	prec := max(first.prec, step.prec)
	if !equal {
		return floatVerb{verb: 'f', prec: prec}
	}
	fw := first.width + prec - first.prec
	lw := last.width + prec - last.prec
	if last.prec > 0 && prec == 0 {
		lw--
	}
	if last.prec == 0 && prec > 0 {
		lw++
	}
	if first.prec == 0 && prec > 0 {
		fw++
	}
	return floatVerb{verb: 'f', prec: prec, zero: true, width: max(fw, lw)}
}

// splitFormat checks seq -f's format: exactly one floating-point
// conversion, and "%%" for a percent sign.
func splitFormat(e *proc.Env, format string) (prefix string, verb floatVerb, suffix string, ok bool) {
	var b strings.Builder
	found := false
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if found {
			e.Errorf("seq", "format %s has too many %% directives", q(format))
			return "", verb, "", false
		}
		v, n, good := parseFloatVerb(format[i:])
		if !good {
			if i+n >= len(format) {
				e.Errorf("seq", "format %s ends in %%", q(format))
			} else {
				e.Errorf("seq", "format %s has unknown %%%c directive", q(format), format[i+n])
			}
			return "", verb, "", false
		}
		prefix, verb, found = b.String(), v, true
		b.Reset()
		i += n - 1
	}
	if !found {
		e.Errorf("seq", "format %s has no %% directive", q(format))
		return "", verb, "", false
	}
	return prefix, verb, b.String(), true
}

// seqInts counts with integers of any size, as GNU seq's fast path does.
func seqInts(e *proc.Env, w *bufio.Writer, a, s, b, sep string) int {
	x, _ := new(big.Int).SetString(strings.TrimPrefix(a, "+"), 10)
	step, _ := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
	last, _ := new(big.Int).SetString(strings.TrimPrefix(b, "+"), 10)
	neg := step.Sign() < 0
	n := 0
	for ; (!neg && x.Cmp(last) <= 0) || (neg && x.Cmp(last) >= 0); x.Add(x, step) {
		if n&1023 == 0 && e.Cancelled() {
			return 1
		}
		if n > 0 {
			_, _ = w.WriteString(sep)
		}
		_, _ = w.WriteString(x.String())
		n++
	}
	if n > 0 {
		_, _ = w.WriteString("\n")
	}
	return 0
}
