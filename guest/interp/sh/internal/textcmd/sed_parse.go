package textcmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A sed script is parsed into a flat list of commands; a block's "{"
// knows where its "}" is, and branches know their target's index.

// addrKind is the kind of a sed address.
type addrKind int

const (
	addrLine  addrKind = iota // N
	addrLast                  // $
	addrRegex                 // /re/ or \%re%
	addrStep                  // first~step
	addrZero                  // 0 in 0,/re/
	addrPlus                  // addr1,+N
	addrMult                  // addr1,~N
)

type sedAddr struct {
	kind       addrKind
	line, step int64
	re         *sedRegex
}

// sedRegex is a compiled address or s regex; nil re means "the last
// regex used", as an empty // does.
type sedRegex struct {
	re *regexp.Regexp
}

type sedCmd struct {
	a1, a2 *sedAddr
	negate bool
	name   byte

	// Range state: active between the two addresses; end is the last
	// line of a numeric range.
	active bool
	end    int64

	text     string // a, i, c text; label of : b t T; file of r R w W
	target   int    // b t T: command index to go to (len(cmds) = end)
	blockEnd int    // {: index of its }
	num      int    // q Q exit code, l width (-1: default)
	hasNum   bool
	s        *sedSubst
	y        map[rune]rune
	wfile    *sedFile
}

// sedSubst is an s command.
type sedSubst struct {
	re          *sedRegex
	repl        []replPart
	global      bool
	nth         int
	print       bool
	icase, mult bool
	wfile       *sedFile
}

// replPart is a piece of an s replacement: literal text, a group
// (0 for &), or a case conversion (\U \L \u \l \E).
type replPart struct {
	lit   string
	group int // -1 for a literal or case part
	conv  byte
}

// sedChunk is one piece of the script: an -e expression or an -f file,
// for error messages that say where.
type sedChunk struct {
	start, end int
	file       string // "" for -e
	expr       int    // -e expression number
}

// sedParseError is a script error; sed prints it and exits 1.
type sedParseError struct {
	msg string
	// panic marks the errors GNU sed reports with its "panic" exit
	// status 4 rather than 1 (a missing label, an unopenable w file).
	panic bool
}

func (e *sedParseError) Error() string { return e.msg }

type sedParser struct {
	src      string
	pos      int
	chunks   []sedChunk
	ere      bool
	cmds     []*sedCmd
	blocks   []int
	files    map[string]*sedFile
	haveRE   bool
	openFile func(name string) (*sedFile, error)
}

// fail builds GNU's "-e expression #N, char M: msg" at the current
// position.
func (p *sedParser) fail(msg string) error {
	return p.failAt(p.pos, msg)
}

func (p *sedParser) failAt(pos int, msg string) error {
	for _, c := range p.chunks {
		if pos >= c.start && (pos <= c.end) {
			if c.file != "" {
				line := 1 + strings.Count(p.src[c.start:min(pos, len(p.src))], "\n")
				if pos == c.end && pos > c.start && p.src[pos-1] == '\n' {
					line--
				}
				return &sedParseError{msg: fmt.Sprintf("file %s line %d: %s", c.file, line, msg)}
			}
			return &sedParseError{msg: fmt.Sprintf("-e expression #%d, char %d: %s", c.expr, pos-c.start, msg)}
		}
	}
	return &sedParseError{msg: msg}
}

func (p *sedParser) eof() bool { return p.pos >= len(p.src) }

func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.pos]
}

func (p *sedParser) skipSpace() {
	for !p.eof() && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// parse parses the whole script.
func (p *sedParser) parse() error {
	for {
		for !p.eof() && strings.IndexByte(" \t\n;", p.src[p.pos]) >= 0 {
			p.pos++
		}
		if p.eof() {
			break
		}
		if err := p.command(); err != nil {
			return err
		}
	}
	if len(p.blocks) > 0 {
		return p.failAt(p.chunks[len(p.chunks)-1].start, "unmatched `{'")
	}
	labels := map[string]int{}
	for i, c := range p.cmds {
		if c.name == ':' {
			if _, dup := labels[c.text]; dup {
				return &sedParseError{msg: fmt.Sprintf("-e expression #1, char 0: duplicate label `%s'", c.text)}
			}
			labels[c.text] = i
		}
	}
	for _, c := range p.cmds {
		switch c.name {
		case 'b', 't', 'T':
			if c.text == "" {
				c.target = len(p.cmds)
				continue
			}
			i, ok := labels[c.text]
			if !ok {
				return &sedParseError{msg: fmt.Sprintf("can't find label for jump to `%s'", c.text), panic: true}
			}
			c.target = i
		}
	}
	return nil
}

// command parses one command with its addresses.
func (p *sedParser) command() error {
	c := &sedCmd{num: -1}
	var err error
	if c.a1, err = p.address(false); err != nil {
		return err
	}
	if c.a1 != nil {
		p.skipSpace()
		if p.peek() == ',' {
			p.pos++
			p.skipSpace()
			if c.a2, err = p.address(true); err != nil {
				return err
			}
			if c.a2 == nil {
				// GNU reports this having read the next character.
				return p.failAt(min(p.pos+1, len(p.src)), "unexpected `,'")
			}
		}
		if c.a1.kind == addrZero && (c.a2 == nil || c.a2.kind != addrRegex) {
			p.skipSpace()
			return p.failAt(min(p.pos+1, len(p.src)), "invalid usage of line address 0")
		}
	}
	p.skipSpace()
	if p.peek() == '!' {
		c.negate = true
		p.pos++
		for p.peek() == ' ' || p.peek() == '\t' || p.peek() == '!' {
			if p.peek() == '!' {
				return p.fail("multiple `!'s")
			}
			p.pos++
		}
	}
	if p.eof() {
		return p.fail("missing command")
	}
	c.name = p.src[p.pos]
	p.pos++
	hasAddr := c.a1 != nil
	switch c.name {
	case '{':
		p.blocks = append(p.blocks, len(p.cmds))
		p.cmds = append(p.cmds, c)
		return nil
	case '}':
		if len(p.blocks) == 0 {
			return p.fail("unexpected `}'")
		}
		if hasAddr {
			return p.fail("} doesn't want any addresses")
		}
		open := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		p.cmds[open].blockEnd = len(p.cmds)
		p.cmds = append(p.cmds, c)
		return p.end()
	case '#':
		if hasAddr {
			return p.fail("comments don't accept any addresses")
		}
		for !p.eof() && p.src[p.pos] != '\n' {
			p.pos++
		}
		return nil
	case ':':
		if hasAddr {
			return p.fail(": doesn't want any addresses")
		}
		p.skipSpace()
		c.text = p.label()
		if c.text == "" {
			return p.fail("\":\" lacks a label")
		}
		p.cmds = append(p.cmds, c)
		return nil
	case 'a', 'i', 'c':
		text, err := p.text()
		if err != nil {
			return err
		}
		c.text = text
	case 'b', 't', 'T':
		p.skipSpace()
		c.text = p.label()
	case 'r', 'R', 'w', 'W':
		p.skipSpace()
		start := p.pos
		for !p.eof() && p.src[p.pos] != '\n' {
			p.pos++
		}
		c.text = p.src[start:p.pos]
		if c.text == "" {
			return p.fail("missing filename in r/R/w/W commands")
		}
		if c.name == 'w' || c.name == 'W' {
			if c.wfile, err = p.outFile(c.text); err != nil {
				return err
			}
		}
	case 'q', 'Q', 'l', 'L':
		if (c.name == 'q' || c.name == 'Q') && c.a2 != nil {
			return p.fail("command only uses one address")
		}
		p.skipSpace()
		start := p.pos
		for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos > start {
			n, _ := strconv.Atoi(p.src[start:p.pos])
			c.num, c.hasNum = n, true
		}
		if err := p.end(); err != nil {
			return err
		}
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		if err := p.end(); err != nil {
			return err
		}
	case 's':
		if err := p.subst(c); err != nil {
			return err
		}
	case 'y':
		if err := p.translit(c); err != nil {
			return err
		}
	case 'e':
		return p.fail("the `e' command is not supported in this sandbox")
	case 'v':
		p.label()
	default:
		p.pos--
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += n
		return p.fail(fmt.Sprintf("unknown command: `%c'", r))
	}
	p.cmds = append(p.cmds, c)
	return nil
}

// end checks that a command is followed by nothing but a separator.
func (p *sedParser) end() error {
	p.skipSpace()
	if p.eof() {
		return nil
	}
	switch p.src[p.pos] {
	case ';', '\n':
		p.pos++
		return nil
	case '#', '}':
		return nil
	}
	p.pos++
	return p.fail("extra characters after command")
}

// label reads a label up to a newline or semicolon.
func (p *sedParser) label() string {
	start := p.pos
	for !p.eof() && p.src[p.pos] != '\n' && p.src[p.pos] != ';' {
		p.pos++
	}
	l := strings.TrimRight(p.src[start:p.pos], " \t")
	if !p.eof() {
		p.pos++
	}
	return l
}

// text reads the text of a, i and c, in GNU's one-line form ("a text")
// or the POSIX form ("a\" then lines, a backslash before each newline
// that continues the text).
func (p *sedParser) text() (string, error) {
	p.skipSpace()
	if p.eof() {
		return "", p.fail("expected \\ after `a', `c' or `i'")
	}
	if p.src[p.pos] == '\\' {
		p.pos++
		if !p.eof() && p.src[p.pos] == '\n' {
			p.pos++
		}
	}
	var b strings.Builder
	for !p.eof() {
		ch := p.src[p.pos]
		if ch == '\n' {
			p.pos++
			break
		}
		if ch == '\\' && p.pos+1 < len(p.src) {
			if s, n, ok := charEscape(p.src[p.pos:]); ok {
				b.WriteString(s)
				p.pos += n
				continue
			}
			p.pos++
			ch = p.src[p.pos]
		}
		b.WriteByte(ch)
		p.pos++
	}
	if b.Len() == 0 {
		return "", nil
	}
	return b.String() + "\n", nil
}

// address parses one address, or returns nil when there is none.
func (p *sedParser) address(second bool) (*sedAddr, error) {
	if p.eof() {
		return nil, nil
	}
	ch := p.src[p.pos]
	switch {
	case ch >= '0' && ch <= '9':
		n := p.number()
		if p.peek() == '~' && !second {
			p.pos++
			step := p.number()
			return &sedAddr{kind: addrStep, line: n, step: step}, nil
		}
		if n == 0 && !second {
			return &sedAddr{kind: addrZero}, nil
		}
		if n == 0 {
			return nil, p.fail("invalid usage of line address 0")
		}
		return &sedAddr{kind: addrLine, line: n}, nil
	case ch == '+' && second || ch == '~' && second:
		p.pos++
		if p.peek() < '0' || p.peek() > '9' {
			return nil, p.fail("expected newer version of sed")
		}
		n := p.number()
		if ch == '+' {
			return &sedAddr{kind: addrPlus, line: n}, nil
		}
		return &sedAddr{kind: addrMult, line: n}, nil
	case ch == '$':
		p.pos++
		return &sedAddr{kind: addrLast}, nil
	case ch == '/' || ch == '\\':
		p.pos++
		delim := byte('/')
		if ch == '\\' {
			if p.eof() {
				return nil, p.fail("unexpected end of file")
			}
			delim = p.src[p.pos]
			p.pos++
		}
		pat, ok := p.delimited(delim, true)
		if !ok {
			return nil, p.fail("unterminated address regex")
		}
		icase, mult := false, false
		for !p.eof() {
			if p.src[p.pos] == 'I' {
				icase = true
			} else if p.src[p.pos] == 'M' {
				mult = true
			} else {
				break
			}
			p.pos++
		}
		re, err := p.regex(pat, icase, mult)
		if err != nil {
			return nil, err
		}
		return &sedAddr{kind: addrRegex, re: re}, nil
	}
	return nil, nil
}

func (p *sedParser) number() int64 {
	start := p.pos
	for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.ParseInt(p.src[start:p.pos], 10, 64)
	if err != nil {
		n = 1<<63 - 1
	}
	return n
}

// delimited reads up to an unescaped delim. "\delim" becomes delim and
// "\n" in a regex stays an escape for translate; in a regex a bracket
// expression may hold the delimiter. ok is false at a newline or the end.
func (p *sedParser) delimited(delim byte, isRegex bool) (string, bool) {
	var b strings.Builder
	for !p.eof() {
		ch := p.src[p.pos]
		switch {
		case ch == delim:
			p.pos++
			return b.String(), true
		case ch == '\n' && isRegex:
			return "", false
		case ch == '\\':
			p.pos++
			if p.eof() {
				return "", false
			}
			n := p.src[p.pos]
			p.pos++
			switch {
			case n == delim && delim != '&' && delim != '\\':
				b.WriteByte(delim)
			case n == '\n' && isRegex:
				b.WriteString(`\n`)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			continue
		case ch == '[' && isRegex:
			end := bracketEnd(p.src, p.pos)
			if end < 0 {
				return "", false
			}
			b.WriteString(p.src[p.pos:end])
			p.pos = end
			continue
		}
		b.WriteByte(ch)
		p.pos++
	}
	return "", false
}

// bracketEnd returns the index just past the bracket expression opening
// at s[i], or -1 when it does not close before a newline.
func bracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == '\n':
			return -1
		case s[j] == ']':
			return j + 1
		case s[j] == '[' && j+1 < len(s) && strings.IndexByte(":=.", s[j+1]) >= 0:
			end := strings.Index(s[j+2:], string(s[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += 2 + end + 2
			continue
		}
		j++
	}
	return -1
}

// regex compiles an address or s regex; "" reuses the last one at run
// time, which needs one to exist.
func (p *sedParser) regex(pat string, icase, mult bool) (*sedRegex, error) {
	if pat == "" {
		if !p.haveRE {
			return nil, p.fail("no previous regular expression")
		}
		return &sedRegex{}, nil
	}
	syntax := basicRE
	if p.ere {
		syntax = extendedRE
	}
	t, err := translate(pat, reOptions{syntax: syntax, sed: true})
	if err != nil {
		return nil, p.fail(err.Error())
	}
	re, err := compileRE(t.expr, icase, mult)
	if err != nil {
		return nil, p.fail("Invalid regular expression")
	}
	p.haveRE = true
	return &sedRegex{re: re}, nil
}

// subst parses "s/re/repl/flags"; the s is already read.
func (p *sedParser) subst(c *sedCmd) error {
	if p.eof() || p.src[p.pos] == '\n' || p.src[p.pos] == '\\' {
		return p.fail("unterminated `s' command")
	}
	delim := p.src[p.pos]
	p.pos++
	pat, ok := p.delimited(delim, true)
	if !ok {
		p.pos = p.lineEnd()
		return p.fail("unterminated `s' command")
	}
	repl, ok := p.delimited(delim, false)
	if !ok {
		p.pos = p.lineEnd()
		return p.fail("unterminated `s' command")
	}
	s := &sedSubst{nth: 1}
	gotNum := false
flags:
	for !p.eof() {
		ch := p.src[p.pos]
		p.pos++
		switch {
		case ch == 'g':
			if s.global {
				return p.fail("multiple `g' options to `s' command")
			}
			s.global = true
		case ch == 'p':
			if s.print {
				return p.fail("multiple `p' options to `s' command")
			}
			s.print = true
		case ch == 'i' || ch == 'I':
			s.icase = true
		case ch == 'm' || ch == 'M':
			s.mult = true
		case ch >= '0' && ch <= '9':
			if gotNum {
				return p.fail("multiple number options to `s' command")
			}
			p.pos--
			n := p.number()
			if n == 0 {
				return p.fail("number option to `s' command may not be zero")
			}
			if n > 1<<31 {
				n = 1 << 31
			}
			s.nth, gotNum = int(n), true
		case ch == 'w':
			p.skipSpace()
			start := p.pos
			p.pos = p.lineEnd()
			name := p.src[start:p.pos]
			if name == "" {
				return p.fail("missing filename in r/R/w/W commands")
			}
			f, err := p.outFile(name)
			if err != nil {
				return err
			}
			s.wfile = f
			break flags
		case ch == 'e':
			return p.fail("the `e' flag is not supported in this sandbox")
		case ch == ';' || ch == '\n':
			break flags
		case ch == '}' || ch == '#':
			p.pos--
			break flags
		case ch == ' ' || ch == '\t':
			// GNU sed skips blanks between flags.
		default:
			return p.fail("unknown option to `s'")
		}
	}
	re, err := p.regex(pat, s.icase, s.mult)
	if err != nil {
		return err
	}
	s.re = re
	parts, maxRef := parseRepl(repl)
	groups := -1
	if re.re != nil {
		groups = re.re.NumSubexp()
	}
	if groups >= 0 && maxRef > groups {
		return p.fail(fmt.Sprintf("invalid reference \\%d on `s' command's RHS", maxRef))
	}
	s.repl = parts
	c.s = s
	return nil
}

func (p *sedParser) lineEnd() int {
	i := strings.IndexByte(p.src[p.pos:], '\n')
	if i < 0 {
		return len(p.src)
	}
	return p.pos + i
}

// parseRepl splits an s replacement into parts; maxRef is the highest
// group it names.
func parseRepl(s string) (parts []replPart, maxRef int) {
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '&':
			flush()
			parts = append(parts, replPart{group: 0})
		case ch == '\\' && i+1 < len(s):
			n := s[i+1]
			switch {
			case n >= '0' && n <= '9':
				flush()
				g := int(n - '0')
				maxRef = max(maxRef, g)
				parts = append(parts, replPart{group: g})
				i++
			case n == 'L' || n == 'U' || n == 'l' || n == 'u' || n == 'E':
				flush()
				parts = append(parts, replPart{group: -1, conv: n})
				i++
			case n == '\n':
				lit.WriteByte('\n')
				i++
			default:
				if esc, w, ok := charEscape(s[i:]); ok {
					lit.WriteString(esc)
					i += w - 1
				} else {
					lit.WriteByte(n)
					i++
				}
			}
		default:
			lit.WriteByte(ch)
		}
	}
	flush()
	return parts, maxRef
}

// translit parses "y/src/dst/".
func (p *sedParser) translit(c *sedCmd) error {
	if p.eof() || p.src[p.pos] == '\n' || p.src[p.pos] == '\\' {
		return p.fail("unterminated `y' command")
	}
	delim := p.src[p.pos]
	p.pos++
	read := func() ([]rune, bool) {
		var out []rune
		for !p.eof() {
			ch := p.src[p.pos]
			if ch == delim {
				p.pos++
				return out, true
			}
			if ch == '\\' && p.pos+1 < len(p.src) {
				n := p.src[p.pos+1]
				switch {
				case n == delim:
					out = append(out, rune(delim))
					p.pos += 2
					continue
				case n == '\\':
					out = append(out, '\\')
					p.pos += 2
					continue
				case n == '\n':
					out = append(out, '\n')
					p.pos += 2
					continue
				}
				if s, w, ok := charEscape(p.src[p.pos:]); ok {
					out = append(out, []rune(s)...)
					p.pos += w
					continue
				}
				return nil, false
			}
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			out = append(out, r)
			p.pos += n
		}
		return nil, false
	}
	src, ok := read()
	if !ok {
		return p.fail("unterminated `y' command")
	}
	dst, ok := read()
	if !ok {
		return p.fail("unterminated `y' command")
	}
	if len(src) != len(dst) {
		return p.fail("strings for `y' command are different lengths")
	}
	c.y = make(map[rune]rune, len(src))
	for i, r := range src {
		if _, seen := c.y[r]; !seen {
			c.y[r] = dst[i]
		}
	}
	return p.end()
}

// outFile opens a w file once per name, when the script is parsed, as
// GNU sed does (so it is created even if never written).
func (p *sedParser) outFile(name string) (*sedFile, error) {
	if f, ok := p.files[name]; ok {
		return f, nil
	}
	f, err := p.openFile(name)
	if err != nil {
		return nil, err
	}
	p.files[name] = f
	return f, nil
}
