package awk

import "fmt"

// Slots of the special variables: the parser gives them fixed indices so
// the interpreter can notice assignments to them cheaply.
const (
	gNF = iota
	gNR
	gFNR
	gFS
	gOFS
	gORS
	gRS
	gFILENAME
	gSUBSEP
	gRSTART
	gRLENGTH
	gCONVFMT
	gOFMT
	gENVIRON
	gARGC
	gARGV
	numSpecials
)

var specialNames = [numSpecials]string{
	"NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "FILENAME", "SUBSEP",
	"RSTART", "RLENGTH", "CONVFMT", "OFMT", "ENVIRON", "ARGC", "ARGV",
}

// maxDepth bounds parser recursion so that hostile nesting gets an error
// rather than exhausting the Go stack.
const maxDepth = 1000

type parser struct {
	toks      []token
	pos       int
	tok       token
	prog      *Program
	funcNames map[string]bool
	locals    map[string]int // parameters of the function being parsed
	calls     []*UserCall
	depth     int
	loops     int
	inFunc    bool
	noGt      bool // in unparenthesised print arguments: ">" redirects
}

// parse turns awk source into a Program.
func parse(src string) (prog *Program, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{
		toks:      toks,
		funcNames: map[string]bool{},
		prog:      &Program{Funcs: map[string]*Func{}, Globals: map[string]int{}},
	}
	for i, n := range specialNames {
		p.prog.Globals[n] = i
	}
	// Functions may be called before they are defined, and a name is a
	// call only if it is a function, so find them all first.
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind == tFunction && (toks[i+1].kind == tName || toks[i+1].kind == tFuncName) {
			p.funcNames[toks[i+1].text] = true
		}
	}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			prog, err = nil, se
		}
	}()
	p.tok = toks[0]
	p.program()
	for _, c := range p.calls {
		f := p.prog.Funcs[c.Name]
		if f == nil {
			p.failAt(c.Pos, fmt.Sprintf("function %s never defined", c.Name))
		}
		if len(c.Args) > len(f.Params) {
			p.failAt(c.Pos, fmt.Sprintf("function %s called with %d args, accepts only %d", c.Name, len(c.Args), len(f.Params)))
		}
		c.Fn = f
	}
	return p.prog, nil
}

func (p *parser) next() {
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	p.tok = p.toks[p.pos]
}

func (p *parser) peek(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) failAt(t token, msg string) {
	panic(&syntaxError{t.line, t.col, msg})
}

func (p *parser) fail(msg string) { p.failAt(p.tok, msg) }

func (p *parser) unexpected() {
	switch p.tok.kind {
	case tEOF:
		p.fail("unexpected end of program")
	case tNewline:
		p.fail("unexpected newline")
	case tString:
		p.fail(fmt.Sprintf("unexpected string %q", p.tok.text))
	}
	p.fail(fmt.Sprintf("unexpected %q", p.tok.text))
}

func (p *parser) is(text string) bool { return p.tok.kind == tPunct && p.tok.text == text }

func (p *parser) expect(text string) {
	if !p.is(text) {
		p.unexpected()
	}
	p.next()
}

func (p *parser) optNewlines() {
	for p.tok.kind == tNewline {
		p.next()
	}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("program nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) program() {
	for {
		for p.tok.kind == tNewline || p.is(";") {
			p.next()
		}
		if p.tok.kind == tEOF {
			return
		}
		switch p.tok.kind {
		case tBegin:
			p.next()
			p.optNewlines()
			p.prog.Begin = append(p.prog.Begin, p.block())
		case tEnd:
			p.next()
			p.optNewlines()
			p.prog.End = append(p.prog.End, p.block())
		case tFunction:
			p.function()
		default:
			r := &Rule{}
			if !p.is("{") {
				r.Pattern = p.expr()
				if p.is(",") {
					p.next()
					p.optNewlines()
					r.Pattern2 = p.expr()
				}
			}
			if p.is("{") {
				r.Action = p.block()
			} else if p.tok.kind != tNewline && !p.is(";") && p.tok.kind != tEOF {
				p.unexpected()
			}
			p.prog.Rules = append(p.prog.Rules, r)
		}
	}
}

func (p *parser) function() {
	p.next()
	if p.tok.kind != tName && p.tok.kind != tFuncName {
		p.fail("expected function name")
	}
	name := p.tok.text
	if p.prog.Funcs[name] != nil {
		p.fail(fmt.Sprintf("function %s redefined", name))
	}
	if _, ok := p.prog.Globals[name]; ok && isSpecial(name) {
		p.fail(fmt.Sprintf("cannot use %s as a function name", name))
	}
	p.next()
	p.expect("(")
	f := &Func{Name: name}
	p.locals = map[string]int{}
	for !p.is(")") {
		if p.tok.kind != tName {
			p.unexpected()
		}
		pn := p.tok.text
		if _, dup := p.locals[pn]; dup || pn == name || p.funcNames[pn] || isSpecial(pn) {
			p.fail(fmt.Sprintf("invalid parameter %s", pn))
		}
		p.locals[pn] = len(f.Params)
		f.Params = append(f.Params, pn)
		p.next()
		if p.is(",") {
			p.next()
			p.optNewlines()
		} else if !p.is(")") {
			p.unexpected()
		}
	}
	p.next()
	p.optNewlines()
	p.prog.Funcs[name] = f
	p.inFunc = true
	f.Body = p.block()
	p.inFunc = false
	p.locals = nil
}

func isSpecial(name string) bool {
	for _, n := range specialNames {
		if n == name {
			return true
		}
	}
	return false
}

func (p *parser) block() *BlockStmt {
	p.enter()
	defer p.leave()
	p.expect("{")
	b := &BlockStmt{}
	for {
		for p.tok.kind == tNewline || p.is(";") {
			p.next()
		}
		if p.is("}") {
			p.next()
			return b
		}
		if p.tok.kind == tEOF {
			p.unexpected()
		}
		b.List = append(b.List, p.stmt())
	}
}

// endSimple consumes the terminator of a simple statement: ";", newlines,
// or nothing before "}".
func (p *parser) endSimple() {
	switch {
	case p.is(";") || p.tok.kind == tNewline:
		p.next()
		p.optNewlines()
	case p.is("}") || p.tok.kind == tEOF:
	default:
		p.unexpected()
	}
}

// body parses the statement controlled by if/while/for; a lone ";" is
// an empty statement.
func (p *parser) body() Stmt {
	p.optNewlines()
	if p.is(";") {
		p.next()
		p.optNewlines()
		return &BlockStmt{}
	}
	return p.stmt()
}

func (p *parser) loopBody() Stmt {
	p.loops++
	defer func() { p.loops-- }()
	return p.body()
}

func (p *parser) stmt() Stmt {
	p.enter()
	defer p.leave()
	switch p.tok.kind {
	case tPunct:
		if p.is("{") {
			b := p.block()
			p.optNewlines()
			return b
		}
	case tIf:
		p.next()
		p.expect("(")
		s := &IfStmt{Cond: p.expr()}
		p.expect(")")
		s.Then = p.body()
		save := p.pos
		for p.tok.kind == tNewline || p.is(";") {
			p.next()
		}
		if p.tok.kind == tElse {
			p.next()
			s.Else = p.body()
		} else {
			p.pos = save
			p.tok = p.toks[save]
		}
		return s
	case tWhile:
		p.next()
		p.expect("(")
		s := &WhileStmt{Cond: p.expr()}
		p.expect(")")
		if p.is(";") {
			p.next()
			p.optNewlines()
			s.Body = &BlockStmt{}
			return s
		}
		s.Body = p.loopBody()
		return s
	case tDo:
		p.next()
		s := &DoStmt{Body: p.loopBody()}
		for p.tok.kind == tNewline || p.is(";") {
			p.next()
		}
		if p.tok.kind != tWhile {
			p.unexpected()
		}
		p.next()
		p.expect("(")
		s.Cond = p.expr()
		p.expect(")")
		p.endSimple()
		return s
	case tFor:
		return p.forStmt()
	}
	s := p.simpleStmt()
	p.endSimple()
	return s
}

func (p *parser) forStmt() Stmt {
	p.next()
	p.expect("(")
	if p.tok.kind == tName && p.peek(1).kind == tIn && p.peek(2).kind == tName && p.peek(3).kind == tPunct && p.peek(3).text == ")" {
		s := &ForInStmt{Var: p.varRef(p.tok.text)}
		p.next()
		p.next()
		s.Array = p.varRef(p.tok.text)
		p.next()
		p.next()
		s.Body = p.loopBody()
		return s
	}
	s := &ForStmt{}
	if !p.is(";") {
		s.Init = p.simpleStmt()
	}
	p.expect(";")
	p.optNewlines()
	if !p.is(";") {
		s.Cond = p.expr()
	}
	p.expect(";")
	p.optNewlines()
	if !p.is(")") {
		s.Post = p.simpleStmt()
	}
	p.expect(")")
	if p.is(";") {
		p.next()
		p.optNewlines()
		s.Body = &BlockStmt{}
		return s
	}
	s.Body = p.loopBody()
	return s
}

func (p *parser) simpleStmt() Stmt {
	t := p.tok
	switch t.kind {
	case tPrint, tPrintf:
		return p.printStmt()
	case tNext, tNextfile:
		p.next()
		if t.kind == tNext {
			return &CtrlStmt{ctrlNext}
		}
		return &CtrlStmt{ctrlNextFile}
	case tBreak, tContinue:
		if p.loops == 0 {
			p.fail(t.text + " outside a loop")
		}
		p.next()
		if t.kind == tBreak {
			return &CtrlStmt{ctrlBreak}
		}
		return &CtrlStmt{ctrlContinue}
	case tExit:
		p.next()
		s := &ExitStmt{}
		if !p.endsSimple() {
			s.Status = p.expr()
		}
		return s
	case tReturn:
		if !p.inFunc {
			p.fail("return outside a function")
		}
		p.next()
		s := &ReturnStmt{}
		if !p.endsSimple() {
			s.Value = p.expr()
		}
		return s
	case tDelete:
		p.next()
		if p.tok.kind != tName {
			p.unexpected()
		}
		s := &DeleteStmt{Array: p.varRef(p.tok.text)}
		p.next()
		if p.is("[") {
			p.next()
			s.Index = p.exprList("]")
		}
		return s
	}
	return &ExprStmt{p.expr()}
}

func (p *parser) endsSimple() bool {
	return p.tok.kind == tNewline || p.tok.kind == tEOF || p.is(";") || p.is("}")
}

func (p *parser) printStmt() Stmt {
	s := &PrintStmt{Printf: p.tok.kind == tPrintf}
	p.next()
	old := p.noGt
	p.noGt = true
	if !p.endsSimple() && !p.is(">") && !p.is(">>") && !p.is("|") {
		first := p.expr()
		if g, ok := first.(*GroupExpr); ok && len(g.List) > 1 {
			s.Args = g.List
		} else {
			s.Args = []Expr{first}
			for p.is(",") {
				p.next()
				p.optNewlines()
				s.Args = append(s.Args, p.expr())
			}
		}
	}
	if p.is(">") || p.is(">>") || p.is("|") {
		s.Redir = p.tok.text
		p.next()
		s.Dest = p.concat()
	}
	p.noGt = old
	if s.Printf && len(s.Args) == 0 {
		p.fail("printf: no format")
	}
	return s
}

// exprList parses comma-separated expressions up to the closing token.
func (p *parser) exprList(end string) []Expr {
	old := p.noGt
	p.noGt = false
	var list []Expr
	p.optNewlines()
	for !p.is(end) {
		list = append(list, p.expr())
		p.optNewlines()
		if p.is(",") {
			p.next()
			p.optNewlines()
		} else if !p.is(end) {
			p.unexpected()
		}
	}
	p.next()
	p.noGt = old
	return list
}

func (p *parser) varRef(name string) *VarRef {
	if p.funcNames[name] {
		p.fail(fmt.Sprintf("function %s used as a variable", name))
	}
	if i, ok := p.locals[name]; ok {
		return &VarRef{Name: name, Local: true, Idx: i}
	}
	i, ok := p.prog.Globals[name]
	if !ok {
		i = len(p.prog.Globals)
		p.prog.Globals[name] = i
	}
	return &VarRef{Name: name, Idx: i}
}

func isLvalue(e Expr) bool {
	switch e.(type) {
	case *VarRef, *IndexExpr, *FieldRef:
		return true
	}
	return false
}

var assignOps = map[string]string{"=": "", "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "^=": "^", "**=": "^"}

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	e := p.ternary()
	if op, ok := assignOps[p.tok.text]; ok && p.tok.kind == tPunct && isLvalue(e) {
		p.next()
		p.optNewlines()
		return &AssignExpr{Lhs: e, Op: op, Rhs: p.expr()}
	}
	return e
}

func (p *parser) ternary() Expr {
	c := p.or()
	if !p.is("?") {
		return c
	}
	p.next()
	p.optNewlines()
	yes := p.expr()
	p.optNewlines()
	p.expect(":")
	p.optNewlines()
	return &CondExpr{c, yes, p.expr()}
}

func (p *parser) or() Expr {
	e := p.and()
	for p.is("||") {
		p.next()
		p.optNewlines()
		e = &BinaryExpr{"||", e, p.and()}
	}
	return e
}

func (p *parser) and() Expr {
	e := p.in()
	for p.is("&&") {
		p.next()
		p.optNewlines()
		e = &BinaryExpr{"&&", e, p.in()}
	}
	return e
}

func (p *parser) in() Expr {
	e := p.match()
	for p.tok.kind == tIn {
		p.next()
		if p.tok.kind != tName {
			p.unexpected()
		}
		e = &InExpr{Index: []Expr{e}, Array: p.varRef(p.tok.text)}
		p.next()
	}
	return e
}

func (p *parser) match() Expr {
	e := p.compare()
	for p.is("~") || p.is("!~") {
		neg := p.tok.text == "!~"
		p.next()
		e = &MatchExpr{neg, e, p.compare()}
	}
	return e
}

func (p *parser) compare() Expr {
	e := p.pipeGetline()
	for p.tok.kind == tPunct {
		switch p.tok.text {
		case "<", "<=", "==", "!=", ">=", ">":
			if p.tok.text == ">" && p.noGt {
				return e
			}
			op := p.tok.text
			p.next()
			e = &BinaryExpr{op, e, p.pipeGetline()}
			continue
		}
		break
	}
	return e
}

// pipeGetline parses cmd | getline [var], which binds looser than
// concatenation so that "cmd " arg | getline works.
func (p *parser) pipeGetline() Expr {
	e := p.concat()
	for p.is("|") && p.peek(1).kind == tGetline {
		p.next()
		p.next()
		g := &GetlineExpr{Kind: "|", Src: e}
		if isLvalueStart(p.tok) {
			g.Var = p.postfix()
		}
		e = g
	}
	return e
}

func isLvalueStart(t token) bool {
	return t.kind == tName || t.kind == tPunct && t.text == "$"
}

// startsConcat reports whether t can begin an operand that is
// concatenated to the previous one.
func (p *parser) startsConcat() bool {
	switch p.tok.kind {
	case tNumber, tString, tRegex, tName, tFuncName, tBuiltin:
		return true
	case tPunct:
		switch p.tok.text {
		case "$", "(", "++", "--":
			return true
		}
	}
	return false
}

func (p *parser) concat() Expr {
	e := p.additive()
	for p.startsConcat() {
		e = &ConcatExpr{e, p.additive()}
	}
	return e
}

func (p *parser) additive() Expr {
	e := p.multiplicative()
	for p.is("+") || p.is("-") {
		op := p.tok.text
		p.next()
		e = &BinaryExpr{op, e, p.multiplicative()}
	}
	return e
}

func (p *parser) multiplicative() Expr {
	e := p.unary()
	for p.is("*") || p.is("/") || p.is("%") {
		op := p.tok.text
		p.next()
		e = &BinaryExpr{op, e, p.unary()}
	}
	return e
}

func (p *parser) unary() Expr {
	if p.is("!") || p.is("-") || p.is("+") {
		p.enter()
		defer p.leave()
		op := p.tok.text
		p.next()
		return &UnaryExpr{op, p.unary()}
	}
	return p.power()
}

func (p *parser) power() Expr {
	e := p.postfix()
	if p.is("^") || p.is("**") {
		p.enter()
		defer p.leave()
		p.next()
		// Right associative, and the exponent may carry a sign: 2^-1.
		var r Expr
		if p.is("-") || p.is("+") || p.is("!") {
			op := p.tok.text
			p.next()
			r = &UnaryExpr{op, p.power()}
		} else {
			r = p.power()
		}
		return &BinaryExpr{"^", e, r}
	}
	return e
}

func (p *parser) postfix() Expr {
	e := p.primary()
	if (p.is("++") || p.is("--")) && isLvalue(e) {
		op := p.tok.text
		p.next()
		return &IncDecExpr{X: e, Op: op}
	}
	return e
}

func (p *parser) primary() Expr {
	p.enter()
	defer p.leave()
	t := p.tok
	switch t.kind {
	case tNumber:
		p.next()
		return &NumLit{t.num}
	case tString:
		p.next()
		return &StrLit{t.text}
	case tRegex:
		p.next()
		re, err := compileRegex(t.text)
		if err != nil {
			p.failAt(t, err.Error())
		}
		return &RegexLit{Src: t.text, Re: re}
	case tName:
		p.next()
		if p.is("[") {
			arr := p.varRef(t.text)
			p.next()
			idx := p.exprList("]")
			if len(idx) == 0 {
				p.failAt(t, "empty subscript")
			}
			return &IndexExpr{arr, idx}
		}
		return p.varRef(t.text)
	case tFuncName:
		p.next()
		if !p.funcNames[t.text] {
			p.failAt(t, fmt.Sprintf("function %s never defined", t.text))
		}
		p.next() // "("
		c := &UserCall{Name: t.text, Args: p.exprList(")"), Pos: t}
		p.calls = append(p.calls, c)
		return c
	case tBuiltin:
		return p.builtin()
	case tGetline:
		p.next()
		g := &GetlineExpr{}
		if isLvalueStart(p.tok) {
			g.Var = p.postfix()
		}
		if p.is("<") {
			p.next()
			g.Kind = "<"
			g.Src = p.postfix()
		}
		return g
	case tPunct:
		switch t.text {
		case "$":
			p.next()
			var idx Expr
			if p.is("++") || p.is("--") || p.is("-") || p.is("!") || p.is("+") {
				op := p.tok.text
				p.next()
				x := p.primary()
				if op == "++" || op == "--" {
					if !isLvalue(x) {
						p.failAt(t, op+" needs a variable")
					}
					idx = &IncDecExpr{X: x, Op: op, Pre: true}
				} else {
					idx = &UnaryExpr{op, x}
				}
			} else {
				idx = p.primary()
			}
			return &FieldRef{idx}
		case "(":
			p.next()
			list := p.exprList(")")
			switch {
			case len(list) == 0:
				p.failAt(t, "empty parentheses")
			case len(list) == 1:
				return &GroupExpr{list}
			case p.tok.kind == tIn:
				p.next()
				if p.tok.kind != tName {
					p.unexpected()
				}
				e := &InExpr{Index: list, Array: p.varRef(p.tok.text)}
				p.next()
				return e
			}
			return &GroupExpr{list}
		case "++", "--":
			p.next()
			x := p.primary()
			if !isLvalue(x) {
				p.failAt(t, t.text+" needs a variable")
			}
			return &IncDecExpr{X: x, Op: t.text, Pre: true}
		case "-", "+", "!":
			return p.unary()
		}
	}
	p.unexpected()
	return nil
}

func (p *parser) builtin() Expr {
	t := p.tok
	p.next()
	c := &CallExpr{Name: t.text}
	if p.is("(") {
		p.next()
		c.Args = p.exprList(")")
	} else if t.text != "length" {
		p.failAt(t, t.text+" needs arguments in parentheses")
	}
	min, max := builtinArity(t.text)
	if len(c.Args) < min || len(c.Args) > max {
		p.failAt(t, fmt.Sprintf("wrong number of arguments to %s", t.text))
	}
	switch t.text {
	case "split":
		if _, ok := c.Args[1].(*VarRef); !ok {
			p.failAt(t, "split: second argument must be an array name")
		}
	}
	return c
}

// unparen strips a single-element GroupExpr, which parentheses leave.
func unparen(e Expr) Expr {
	for {
		g, ok := e.(*GroupExpr)
		if !ok || len(g.List) != 1 {
			return e
		}
		e = g.List[0]
	}
}

func builtinArity(name string) (min, max int) {
	switch name {
	case "length":
		return 0, 1
	case "substr":
		return 2, 3
	case "index", "atan2":
		return 2, 2
	case "split":
		return 2, 3
	case "sub", "gsub":
		return 2, 3
	case "match":
		return 2, 3
	case "sprintf":
		return 1, 1 << 20
	case "rand":
		return 0, 0
	case "srand", "fflush", "close":
		return 0, 2
	}
	return 1, 1
}
