//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): the test and [ builtins as bash evaluates
// them. bash decides by the number of arguments first (POSIX's rules for
// up to four), so [ ( ], [ ] ], [ -z -a ] ] and [ "$x" = -f ] are
// operands where mvdan.cc/sh's parser reads operators and fails; and the
// integer comparisons take decimal integers only (08 is eight, 0xff and
// a are "integer expression expected", status 2), where mvdan.cc/sh read
// anything that is not a number as 0.

package interp

import (
	"context"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skTestError is a test expression bash rejects: status 2.
type skTestError struct{ msg string }

// skTester evaluates the arguments of one test or [.
type skTester struct {
	r    *Runner
	ctx  context.Context
	args []string
	pos  int
}

// skTest is the test builtin (and [, whose closing ] is gone).
func (r *Runner) skTest(ctx context.Context, pos syntax.Pos, name string, args []string) (exit exitStatus) {
	t := &skTester{r: r, ctx: ctx, args: args}
	ok, err := t.eval()
	if err != nil {
		r.errf("%v: %s: %s\n", pos, name, err.msg)
		exit.code = 2
		return exit
	}
	exit.oneIf(!ok)
	return exit
}

// eval applies POSIX's rules by the number of arguments, then bash's
// expression grammar for more than four.
func (t *skTester) eval() (bool, *skTestError) {
	a := t.args
	switch len(a) {
	case 0:
		return false, nil
	case 1:
		return a[0] != "", nil
	case 2:
		return t.two(a[0], a[1])
	case 3:
		return t.three(a[0], a[1], a[2])
	case 4:
		if a[0] == "!" {
			ok, err := t.three(a[1], a[2], a[3])
			return !ok, err
		}
		if a[0] == "(" && a[3] == ")" {
			return t.two(a[1], a[2])
		}
	}
	ok, err := t.or()
	if err == nil && t.pos < len(t.args) {
		err = &skTestError{"too many arguments"}
	}
	return ok, err
}

func (t *skTester) two(a, b string) (bool, *skTestError) {
	if a == "!" {
		return b == "", nil
	}
	if op := skUnaryOp(a); op != illegalTok {
		return t.unary(op, b)
	}
	return false, &skTestError{a + ": unary operator expected"}
}

func (t *skTester) three(a, b, c string) (bool, *skTestError) {
	if skBinaryOp(b) {
		return t.binary(a, b, c)
	}
	if b == "-a" {
		return a != "" && c != "", nil
	}
	if b == "-o" {
		return a != "" || c != "", nil
	}
	if a == "!" {
		ok, err := t.two(b, c)
		return !ok, err
	}
	if a == "(" && c == ")" {
		return b != "", nil
	}
	return false, &skTestError{b + ": binary operator expected"}
}

func (t *skTester) peek(n int) (string, bool) {
	if t.pos+n < len(t.args) {
		return t.args[t.pos+n], true
	}
	return "", false
}

func (t *skTester) or() (bool, *skTestError) {
	ok, err := t.and()
	for err == nil {
		if s, _ := t.peek(0); s != "-o" || t.pos+1 >= len(t.args) {
			break
		}
		t.pos++
		var r bool
		r, err = t.and()
		ok = ok || r
	}
	return ok, err
}

func (t *skTester) and() (bool, *skTestError) {
	ok, err := t.term()
	for err == nil {
		if s, _ := t.peek(0); s != "-a" || t.pos+1 >= len(t.args) {
			break
		}
		t.pos++
		var r bool
		r, err = t.term()
		ok = ok && r
	}
	return ok, err
}

func (t *skTester) term() (bool, *skTestError) {
	s, ok := t.peek(0)
	if !ok {
		return false, &skTestError{"argument expected"}
	}
	if s == "!" {
		t.pos++
		r, err := t.term()
		return !r, err
	}
	if s == "(" {
		t.pos++
		r, err := t.or()
		if err != nil {
			return false, err
		}
		if c, _ := t.peek(0); c != ")" {
			return false, &skTestError{"`)' expected"}
		}
		t.pos++
		return r, nil
	}
	if op, ok := t.peek(1); ok && skBinaryOp(op) {
		y, ok := t.peek(2)
		if !ok {
			return false, &skTestError{op + ": argument expected"}
		}
		t.pos += 3
		return t.binary(s, op, y)
	}
	if op := skUnaryOp(s); op != illegalTok {
		x, ok := t.peek(1)
		if !ok {
			t.pos++
			return true, nil // [ -e ] is [ -n -e ]
		}
		t.pos += 2
		return t.unary(op, x)
	}
	t.pos++
	return s != "", nil
}

// skUnaryOp is the file, string or shell test s names.
func skUnaryOp(s string) syntax.UnTestOperator {
	switch s {
	case "!", "(":
		return illegalTok
	}
	return testUnaryOp(s)
}

// skBinaryOp reports whether s is a binary operator of test (-a and -o
// are connectives).
func skBinaryOp(s string) bool {
	switch s {
	case "=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

func (t *skTester) unary(op syntax.UnTestOperator, x string) (bool, *skTestError) {
	return t.r.unTest(t.ctx, op, x), nil
}

func (t *skTester) binary(x, op, y string) (bool, *skTestError) {
	switch op {
	case "=", "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	case "<":
		return x < y, nil
	case ">":
		return x > y, nil
	case "-nt":
		return t.r.binTest(t.ctx, syntax.TsNewer, x, y), nil
	case "-ot":
		return t.r.binTest(t.ctx, syntax.TsOlder, x, y), nil
	case "-ef":
		return t.r.binTest(t.ctx, syntax.TsDevIno, x, y), nil
	}
	a, ok := skTestInt(x)
	if !ok {
		return false, &skTestError{x + ": integer expression expected"}
	}
	b, ok := skTestInt(y)
	if !ok {
		return false, &skTestError{y + ": integer expression expected"}
	}
	switch op {
	case "-eq":
		return a == b, nil
	case "-ne":
		return a != b, nil
	case "-lt":
		return a < b, nil
	case "-le":
		return a <= b, nil
	case "-gt":
		return a > b, nil
	default: // -ge
		return a >= b, nil
	}
}

// skTestInt reads an integer as bash's test does: blanks, a sign, decimal
// digits (a leading 0 does not make it octal), blanks.
func skTestInt(s string) (int64, bool) {
	s = strings.Trim(s, " \t\n")
	d := strings.TrimLeft(s, "+-")
	if d == "" || len(s)-len(d) > 1 || strings.Trim(d, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
