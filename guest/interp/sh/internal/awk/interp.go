package awk

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// ctrl is how a statement ends: normally or by a jump.
type ctrl int

const (
	ctrlNone ctrl = iota
	ctrlNext
	ctrlNextFile
	ctrlExit
	ctrlReturn
	ctrlBreak
	ctrlContinue
)

// maxCallDepth bounds user-function recursion so runaway recursion is a
// clear error, not a Go stack overflow.
const maxCallDepth = 10000

// maxStringLen bounds strings built by the program, so that a doubling
// loop fails cleanly instead of exhausting memory.
var maxStringLen = 1 << 28

// maxField bounds field numbers ($n, NF) for the same reason.
const maxField = 1 << 20

// runtimeError is a fatal error of the running program; it is raised by
// panic and turned into "awk: msg" and exit status 2 by Main.
type runtimeError struct{ msg string }

// cancelled is raised when the shell stops the command.
type cancelled struct{}

// ctrlPanic carries next, nextfile or exit out of a function call, whose
// evaluation is an expression and so cannot return a ctrl.
type ctrlPanic struct{ c ctrl }

// cell is a variable: a scalar or an array. A function parameter bound
// to a caller's untyped variable keeps ref, so that using it as an array
// creates the array in the caller, as awk passes arrays by reference.
type cell struct {
	v   value
	arr map[string]value
	ref *cell
}

type interp struct {
	e       *proc.Env
	prog    *Program
	globals []cell
	frame   []cell // locals of the running function
	depth   int
	retVal  value
	ticks   int

	// the current record, split lazily with the FS in force when it was set
	record    string
	fields    []string
	nf        int
	splitDone bool
	recFS     string
	recPara   bool

	// cached string values of special variables
	fs, ofs, ors, rs, subsep, convfmt, ofmt string

	stdout    *bufio.Writer
	stdoutOut *output // stdout as a print destination
	outputs   map[string]*output
	outOrder  []string
	inputs    map[string]*input
	stdin     *bufio.Reader

	// main input
	argIdx   int
	mainIn   *input
	sawFile  bool
	mainDone bool

	regexes     regexCache
	rangeActive []bool
	exitStatus  int
	inEnd       bool

	rng  *rand.Rand
	seed float64
}

func (in *interp) fatal(format string, a ...any) {
	panic(&runtimeError{fmt.Sprintf(format, a...)})
}

// tick lets a long loop notice cancellation without checking the
// context on every iteration.
func (in *interp) tick() {
	in.ticks++
	if in.ticks&255 == 0 && in.e.Cancelled() {
		panic(cancelled{})
	}
}

func (in *interp) toStr(v value) string {
	switch v.k {
	case kStr, kStrNum:
		return v.s
	case kNum:
		return numToStr(v.n, in.convfmt)
	}
	return ""
}

// toOutStr converts for print, which uses OFMT rather than CONVFMT.
func (in *interp) toOutStr(v value) string {
	if v.k == kNum {
		return numToStr(v.n, in.ofmt)
	}
	return in.toStr(v)
}

func (in *interp) checkLen(n int) {
	if n > maxStringLen {
		in.fatal("string too long (%d bytes)", n)
	}
}

// globalIdx returns the slot of a global, creating it for names only
// the command line mentions.
func (in *interp) globalIdx(name string) int {
	if i, ok := in.prog.Globals[name]; ok {
		return i
	}
	i := len(in.globals)
	in.prog.Globals[name] = i
	in.globals = append(in.globals, cell{})
	return i
}

func (in *interp) cellOf(r *VarRef) *cell {
	if r.Local {
		return &in.frame[r.Idx]
	}
	return &in.globals[r.Idx]
}

func (in *interp) getVar(r *VarRef) value {
	if !r.Local && r.Idx == gNF {
		in.ensureSplit()
		return num(float64(in.nf))
	}
	c := in.cellOf(r)
	if c.arr != nil {
		in.fatal("attempt to use array %s in a scalar context", r.Name)
	}
	return c.v
}

func (in *interp) setVar(r *VarRef, v value) {
	if !r.Local {
		in.setGlobal(r.Idx, r.Name, v)
		return
	}
	c := &in.frame[r.Idx]
	if c.arr != nil {
		in.fatal("attempt to use array %s in a scalar context", r.Name)
	}
	c.v, c.ref = v, nil
}

func (in *interp) setGlobal(idx int, name string, v value) {
	c := &in.globals[idx]
	if c.arr != nil {
		in.fatal("attempt to use array %s in a scalar context", name)
	}
	if idx == gNF {
		in.setNF(v.toNum())
		return
	}
	c.v = v
	if idx >= numSpecials {
		return
	}
	s := in.toStr(v)
	switch idx {
	case gFS:
		in.fs = s
	case gOFS:
		in.ofs = s
	case gORS:
		in.ors = s
	case gRS:
		in.rs = s
	case gSUBSEP:
		in.subsep = s
	case gCONVFMT:
		in.convfmt = s
	case gOFMT:
		in.ofmt = s
	}
}

// arrayOf returns the array in c, creating it (in the caller's variable
// when c is a by-reference parameter).
func (in *interp) arrayOf(c *cell, name string) map[string]value {
	if c.arr != nil {
		return c.arr
	}
	if c.v.k != kUninit {
		in.fatal("attempt to use scalar %s as an array", name)
	}
	if c.ref != nil {
		c.arr = in.arrayOf(c.ref, name)
	} else {
		c.arr = map[string]value{}
	}
	return c.arr
}

func (in *interp) array(r *VarRef) map[string]value {
	if !r.Local && r.Idx == gNF {
		in.fatal("attempt to use NF as an array")
	}
	return in.arrayOf(in.cellOf(r), r.Name)
}

// key joins subscripts with SUBSEP.
func (in *interp) key(index []Expr) string {
	if len(index) == 1 {
		return in.toStr(in.eval(index[0]))
	}
	parts := make([]string, len(index))
	for i, x := range index {
		parts[i] = in.toStr(in.eval(x))
	}
	return strings.Join(parts, in.subsep)
}

// lval is a resolved assignable place, so that side effects in a
// subscript or field number happen once in x += 1 or x++.
type lval struct {
	v     *VarRef
	arr   map[string]value
	key   string
	field int
}

func (in *interp) resolve(e Expr) lval {
	switch e := unparen(e).(type) {
	case *VarRef:
		return lval{v: e}
	case *IndexExpr:
		arr := in.array(e.Array)
		return lval{arr: arr, key: in.key(e.Index)}
	case *FieldRef:
		return lval{field: in.fieldIndex(e.Index), key: "$"}
	}
	in.fatal("assignment to non-variable")
	return lval{}
}

func (in *interp) lget(l lval) value {
	switch {
	case l.v != nil:
		return in.getVar(l.v)
	case l.arr != nil:
		return l.arr[l.key]
	}
	return in.getField(l.field)
}

func (in *interp) lset(l lval, v value) {
	switch {
	case l.v != nil:
		in.setVar(l.v, v)
	case l.arr != nil:
		l.arr[l.key] = v
	default:
		in.setField(l.field, in.toStr(v))
	}
}

func (in *interp) assign(e Expr, v value) { in.lset(in.resolve(e), v) }

// --- records and fields ---

// setRecord sets $0; fields are split when first needed.
func (in *interp) setRecord(s string) {
	in.record = s
	in.splitDone = false
	in.recFS = in.fs
	in.recPara = in.rs == ""
}

func (in *interp) ensureSplit() {
	if in.splitDone {
		return
	}
	in.fields = in.splitFS(in.record, in.recFS, in.recPara, in.fields[:0])
	in.nf = len(in.fields)
	in.splitDone = true
}

func (in *interp) fieldIndex(e Expr) int {
	n := in.eval(e).toNum()
	if n < 0 || math.IsNaN(n) {
		in.fatal("attempt to access field %s", numToStr(n, "%.6g"))
	}
	if n > maxField {
		in.fatal("field index %s too large", numToStr(n, "%.6g"))
	}
	return int(n)
}

func (in *interp) getField(i int) value {
	if i == 0 {
		return strnum(in.record)
	}
	in.ensureSplit()
	if i > in.nf {
		return value{}
	}
	return strnum(in.fields[i-1])
}

func (in *interp) setField(i int, s string) {
	if i == 0 {
		in.setRecord(s)
		return
	}
	in.ensureSplit()
	for in.nf < i {
		in.fields = append(in.fields[:in.nf], "")
		in.nf++
	}
	in.fields[i-1] = s
	in.rebuild()
}

func (in *interp) setNF(n float64) {
	if n < 0 || math.IsNaN(n) || n > maxField {
		in.fatal("NF set to invalid value %s", numToStr(n, "%.6g"))
	}
	in.ensureSplit()
	nf := int(n)
	for len(in.fields) < nf {
		in.fields = append(in.fields, "")
	}
	in.fields = in.fields[:nf]
	in.nf = nf
	in.rebuild()
}

// rebuild joins the fields with OFS after a field or NF changed.
func (in *interp) rebuild() {
	n := 0
	for _, f := range in.fields[:in.nf] {
		n += len(f) + len(in.ofs)
	}
	in.checkLen(n)
	in.record = strings.Join(in.fields[:in.nf], in.ofs)
}

// --- expressions ---

func (in *interp) eval(e Expr) value {
	switch e := e.(type) {
	case *NumLit:
		return num(e.N)
	case *StrLit:
		return str(e.S)
	case *RegexLit:
		return boolNum(e.Re.MatchString(in.record))
	case *VarRef:
		return in.getVar(e)
	case *FieldRef:
		return in.getField(in.fieldIndex(e.Index))
	case *IndexExpr:
		arr := in.array(e.Array)
		k := in.key(e.Index)
		v, ok := arr[k]
		if !ok {
			arr[k] = value{} // referencing an element creates it
		}
		return v
	case *GroupExpr:
		if len(e.List) != 1 {
			in.fatal("invalid use of a parenthesised list")
		}
		return in.eval(e.List[0])
	case *AssignExpr:
		l := in.resolve(e.Lhs)
		if e.Op == "" {
			v := in.eval(e.Rhs)
			in.lset(l, v)
			return v
		}
		cur := in.lget(l).toNum()
		r := in.eval(e.Rhs).toNum()
		v := num(in.arith(e.Op, cur, r))
		in.lset(l, v)
		return v
	case *CondExpr:
		if in.eval(e.Cond).toBool() {
			return in.eval(e.Yes)
		}
		return in.eval(e.No)
	case *BinaryExpr:
		return in.binary(e)
	case *MatchExpr:
		s := in.toStr(in.eval(e.L))
		return boolNum(in.regexOf(e.R).MatchString(s) != e.Neg)
	case *ConcatExpr:
		l := in.toStr(in.eval(e.L))
		r := in.toStr(in.eval(e.R))
		in.checkLen(len(l) + len(r))
		return str(l + r)
	case *InExpr:
		arr := in.array(e.Array)
		_, ok := arr[in.key(e.Index)]
		return boolNum(ok)
	case *UnaryExpr:
		v := in.eval(e.X)
		switch e.Op {
		case "!":
			return boolNum(!v.toBool())
		case "-":
			return num(-v.toNum())
		}
		return num(v.toNum())
	case *IncDecExpr:
		l := in.resolve(e.X)
		old := in.lget(l).toNum()
		n := old + 1
		if e.Op == "--" {
			n = old - 1
		}
		in.lset(l, num(n))
		if e.Pre {
			return num(n)
		}
		return num(old)
	case *CallExpr:
		return in.builtin(e)
	case *UserCall:
		return in.call(e)
	case *GetlineExpr:
		return in.getline(e)
	}
	in.fatal("internal error: unknown expression %T", e)
	return value{}
}

func (in *interp) binary(e *BinaryExpr) value {
	switch e.Op {
	case "&&":
		return boolNum(in.eval(e.L).toBool() && in.eval(e.R).toBool())
	case "||":
		return boolNum(in.eval(e.L).toBool() || in.eval(e.R).toBool())
	case "<", "<=", "==", "!=", ">", ">=":
		c := in.compare(in.eval(e.L), in.eval(e.R))
		switch e.Op {
		case "<":
			return boolNum(c < 0)
		case "<=":
			return boolNum(c <= 0)
		case "==":
			return boolNum(c == 0)
		case "!=":
			return boolNum(c != 0)
		case ">":
			return boolNum(c > 0)
		}
		return boolNum(c >= 0)
	}
	l := in.eval(e.L).toNum()
	r := in.eval(e.R).toNum()
	return num(in.arith(e.Op, l, r))
}

func (in *interp) arith(op string, l, r float64) float64 {
	switch op {
	case "+":
		return l + r
	case "-":
		return l - r
	case "*":
		return l * r
	case "/":
		if r == 0 {
			in.fatal("division by zero")
		}
		return l / r
	case "%":
		if r == 0 {
			in.fatal("division by zero in %%")
		}
		return math.Mod(l, r)
	case "^":
		return math.Pow(l, r)
	}
	in.fatal("internal error: unknown operator %s", op)
	return 0
}

// compare compares numerically when both values are numeric (numbers or
// numeric-looking input), else as strings.
func (in *interp) compare(l, r value) int {
	if l.isNumeric() && r.isNumeric() {
		a, b := l.toNum(), r.toNum()
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		case a == b:
			return 0
		}
		// NaN: order it consistently after numbers
		return strings.Compare(numToStr(a, "%.6g"), numToStr(b, "%.6g"))
	}
	return strings.Compare(in.toStr(l), in.toStr(r))
}

// regexOf returns the regex an operand denotes: a literal is itself,
// anything else is a dynamic regex from its string value.
func (in *interp) regexOf(e Expr) *regexp.Regexp {
	if r, ok := e.(*RegexLit); ok {
		return r.Re
	}
	src := in.toStr(in.eval(e))
	re, err := in.regexes.get(src)
	if err != nil {
		in.fatal("%v", err)
	}
	return re
}

// call runs a user-defined function: scalars by value, arrays (and
// untyped variables that may become arrays) by reference.
func (in *interp) call(c *UserCall) value {
	f := c.Fn
	if in.depth >= maxCallDepth {
		in.fatal("function %s: call nesting too deep (limit %d)", f.Name, maxCallDepth)
	}
	in.tick()
	locals := make([]cell, len(f.Params))
	for i, a := range c.Args {
		r, ok := a.(*VarRef)
		if !ok || !r.Local && r.Idx == gNF {
			locals[i].v = in.eval(a)
			continue
		}
		src := in.cellOf(r)
		switch {
		case src.arr != nil:
			locals[i].arr = src.arr
		case src.v.k == kUninit:
			locals[i].ref = src
		default:
			locals[i].v = src.v
		}
	}
	saved := in.frame
	in.frame = locals
	in.depth++
	res := in.exec(f.Body)
	in.frame = saved
	in.depth--
	switch res {
	case ctrlReturn:
		v := in.retVal
		in.retVal = value{}
		return v
	case ctrlNext, ctrlNextFile, ctrlExit:
		panic(ctrlPanic{res})
	}
	return value{}
}

// --- statements ---

func (in *interp) exec(s Stmt) ctrl {
	switch s := s.(type) {
	case *ExprStmt:
		in.eval(s.X)
	case *PrintStmt:
		in.print(s)
	case *BlockStmt:
		for _, x := range s.List {
			if c := in.exec(x); c != ctrlNone {
				return c
			}
		}
	case *IfStmt:
		if in.eval(s.Cond).toBool() {
			return in.exec(s.Then)
		} else if s.Else != nil {
			return in.exec(s.Else)
		}
	case *WhileStmt:
		for in.eval(s.Cond).toBool() {
			in.tick()
			if c := in.exec(s.Body); c == ctrlBreak {
				break
			} else if c != ctrlNone && c != ctrlContinue {
				return c
			}
		}
	case *DoStmt:
		for {
			in.tick()
			if c := in.exec(s.Body); c == ctrlBreak {
				break
			} else if c != ctrlNone && c != ctrlContinue {
				return c
			}
			if !in.eval(s.Cond).toBool() {
				break
			}
		}
	case *ForStmt:
		if s.Init != nil {
			in.exec(s.Init)
		}
		for s.Cond == nil || in.eval(s.Cond).toBool() {
			in.tick()
			if c := in.exec(s.Body); c == ctrlBreak {
				break
			} else if c != ctrlNone && c != ctrlContinue {
				return c
			}
			if s.Post != nil {
				in.exec(s.Post)
			}
		}
	case *ForInStmt:
		arr := in.array(s.Array)
		for _, k := range sortedKeys(arr) {
			if _, ok := arr[k]; !ok {
				continue // deleted by the loop body
			}
			in.tick()
			in.setVar(s.Var, str(k))
			if c := in.exec(s.Body); c == ctrlBreak {
				break
			} else if c != ctrlNone && c != ctrlContinue {
				return c
			}
		}
	case *CtrlStmt:
		return s.Ctrl
	case *ExitStmt:
		if s.Status != nil {
			in.exitStatus = int(in.eval(s.Status).toNum()) & 0xff
		}
		return ctrlExit
	case *ReturnStmt:
		in.retVal = value{}
		if s.Value != nil {
			in.retVal = in.eval(s.Value)
		}
		return ctrlReturn
	case *DeleteStmt:
		arr := in.array(s.Array)
		if s.Index == nil {
			clear(arr)
		} else {
			delete(arr, in.key(s.Index))
		}
	default:
		in.fatal("internal error: unknown statement %T", s)
	}
	return ctrlNone
}

// sortedKeys orders for-in iteration: awk leaves it unspecified, and a
// stable order (numbers numerically, then strings) makes output
// reproducible.
func sortedKeys(arr map[string]value) []string {
	keys := make([]string, 0, len(arr))
	for k := range arr {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, aok := looksNumeric(keys[i])
		b, bok := looksNumeric(keys[j])
		switch {
		case aok && bok && a != b:
			return a < b
		case aok != bok:
			return aok
		}
		return keys[i] < keys[j]
	})
	return keys
}

func (in *interp) print(s *PrintStmt) {
	var out string
	if s.Printf {
		vals := make([]value, len(s.Args)-1)
		for i, a := range s.Args[1:] {
			vals[i] = in.eval(a)
		}
		var err error
		out, err = sprintf(in.toStr(in.eval(s.Args[0])), vals, in.convfmt)
		if err != nil {
			in.fatal("printf: %v", err)
		}
	} else if len(s.Args) == 0 {
		out = in.record + in.ors
	} else {
		var b strings.Builder
		for i, a := range s.Args {
			if i > 0 {
				b.WriteString(in.ofs)
			}
			b.WriteString(in.toOutStr(in.eval(a)))
			in.checkLen(b.Len())
		}
		b.WriteString(in.ors)
		out = b.String()
	}
	o := in.stdoutOut
	if s.Redir != "" {
		o = in.output(s.Redir, in.toStr(in.eval(s.Dest)))
	}
	_, err := o.w.WriteString(out)
	if err == nil && o.auto {
		err = o.w.Flush()
	}
	if err != nil {
		in.fatal("write error: %s", proc.ErrorText(err))
	}
}

// --- running the program ---

// runAction runs a BEGIN, END or rule action, catching next, nextfile
// and exit raised inside functions.
func (in *interp) runAction(b *BlockStmt) (c ctrl) {
	defer func() {
		if r := recover(); r != nil {
			cp, ok := r.(ctrlPanic)
			if !ok {
				panic(r)
			}
			in.frame, in.depth = nil, 0
			c = cp.c
		}
	}()
	return in.exec(b)
}

func (in *interp) run() {
	for _, b := range in.prog.Begin {
		switch in.runAction(b) {
		case ctrlExit:
			in.runEnd()
			return
		case ctrlNext, ctrlNextFile:
			in.fatal("next used in BEGIN action")
		}
	}
	if len(in.prog.Rules) > 0 || len(in.prog.End) > 0 {
		if !in.mainLoop() {
			in.runEnd()
			return
		}
	}
	in.runEnd()
}

// mainLoop runs the rules on every input record; false means exit ran.
func (in *interp) mainLoop() bool {
	in.rangeActive = make([]bool, len(in.prog.Rules))
	for {
		if in.e.Cancelled() {
			panic(cancelled{})
		}
		rec, ok := in.readMain()
		if !ok {
			return true
		}
		in.incNR()
		in.setRecord(rec)
		switch in.runRules() {
		case ctrlExit:
			return false
		case ctrlNextFile:
			in.closeMain()
		}
	}
}

func (in *interp) incNR() {
	in.globals[gNR].v = num(in.globals[gNR].v.toNum() + 1)
	in.globals[gFNR].v = num(in.globals[gFNR].v.toNum() + 1)
}

func (in *interp) runRules() ctrl {
	for i, r := range in.prog.Rules {
		matched := r.Pattern == nil
		switch {
		case r.Pattern2 != nil:
			if !in.rangeActive[i] {
				if in.eval(r.Pattern).toBool() {
					matched = true
					in.rangeActive[i] = !in.eval(r.Pattern2).toBool()
				}
			} else {
				matched = true
				in.rangeActive[i] = !in.eval(r.Pattern2).toBool()
			}
		case r.Pattern != nil:
			matched = in.eval(r.Pattern).toBool()
		}
		if !matched {
			continue
		}
		if r.Action == nil {
			_, err := in.stdout.WriteString(in.record)
			if err == nil {
				_, err = in.stdout.WriteString(in.ors)
			}
			if err != nil {
				in.fatal("write error: %s", proc.ErrorText(err))
			}
			continue
		}
		switch c := in.runAction(r.Action); c {
		case ctrlNext:
			return ctrlNone
		case ctrlNextFile, ctrlExit:
			return c
		}
	}
	return ctrlNone
}

func (in *interp) runEnd() {
	if in.inEnd {
		return
	}
	in.inEnd = true
	for _, b := range in.prog.End {
		switch in.runAction(b) {
		case ctrlExit:
			return
		case ctrlNext, ctrlNextFile:
			in.fatal("next used in END action")
		}
	}
}

// argv returns ARGV[i] as a string.
func (in *interp) argv(i int) string {
	arr := in.globals[gARGV].arr
	return in.toStr(arr[strconv.Itoa(i)])
}
