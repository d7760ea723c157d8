package textcmd

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// reSyntax is a regular expression dialect of grep and sed.
type reSyntax int

const (
	basicRE    reSyntax = iota // POSIX BRE with GNU extensions (grep -G, sed)
	extendedRE                 // POSIX ERE (grep -E, sed -E)
	fixedRE                    // fixed strings (grep -F)
	perlRE                     // grep -P, mapped onto RE2
)

// reOptions say how to translate a pattern.
type reOptions struct {
	syntax reSyntax
	// sed turns on sed's escapes (\n, \t, \dNNN, \oNNN, \xHH, \cX), which
	// GNU sed converts before compiling, even inside brackets.
	sed bool
}

// translated is a pattern rewritten into Go's RE2 syntax.
type translated struct {
	expr string
	// warnings are what GNU grep warns about but accepts.
	warnings []string
}

// errBackref is returned for back-references, which RE2 cannot match.
var errBackref = errors.New("back-references are not supported")

// reError is a pattern's syntax error. Its text is GNU regerror's
// message, capitalised as GNU prints it.
type reError string

func (e reError) Error() string { return string(e) }

// translate rewrites a GNU BRE or ERE into RE2 syntax with the same
// meaning. The differences it bridges: in a BRE \( \) \{ \} \| \+ \? are
// operators and ( ) { } | + ? are literal; a * at the start of an
// expression is literal (BRE) or ignored (ERE); ^ and $ are anchors only
// at the ends of a BRE; backslash is literal inside brackets; \< \> \` \'
// are GNU's word and buffer anchors; an ERE { that does not start a valid
// interval is literal; and stacked quantifiers (a**) are legal. The
// errors carry glibc's regcomp messages, which grep and sed print.
func translate(pat string, o reOptions) (translated, error) {
	t := &reTranslator{pat: pat, o: o, ere: o.syntax == extendedRE}
	err := t.run()
	return translated{expr: t.out.String(), warnings: t.warnings}, err
}

type reTranslator struct {
	pat      string
	o        reOptions
	ere      bool
	i        int
	out      strings.Builder
	warnings []string
	// atom is where the last quantifiable atom starts in out, -1 when
	// there is none (start of expression, after an anchor or "(" or "|").
	atom int
	// quantified is true when the atom already has a quantifier, so a
	// second one must wrap it: RE2 rejects a** and reads a*? as lazy.
	quantified bool
	groups     []int // out positions of open groups
}

func (t *reTranslator) run() error {
	t.atom = -1
	for t.i < len(t.pat) {
		c := t.pat[t.i]
		start := t.i
		t.i++
		switch {
		case c == '\\':
			if t.i >= len(t.pat) {
				return reError("Trailing backslash")
			}
			c2 := t.pat[t.i]
			t.i++
			if err := t.escape(c2, start); err != nil {
				return err
			}
		case c == '[':
			at := t.out.Len()
			if err := t.bracket(); err != nil {
				return err
			}
			t.setAtom(at)
		case c == '.':
			t.literalAtom(".", true)
		case c == '*':
			if err := t.quantifier("*", start); err != nil {
				return err
			}
		case c == '^':
			if t.ere || t.atStart(start) {
				t.out.WriteByte('^')
				t.atom = -1
			} else {
				t.literalAtom(`\^`, true)
			}
		case c == '$':
			if t.ere || t.atEnd() {
				t.out.WriteByte('$')
				t.atom = -1
			} else {
				t.literalAtom(`\$`, true)
			}
		case t.ere && (c == '+' || c == '?'):
			if err := t.quantifier(string(c), start); err != nil {
				return err
			}
		case t.ere && c == '{':
			if err := t.interval(start); err != nil {
				return err
			}
		case t.ere && c == '(':
			t.open()
		case t.ere && c == ')':
			if len(t.groups) == 0 {
				t.literalAtom(`\)`, true)
			} else {
				t.close()
			}
		case t.ere && c == '|':
			t.alt()
		case c < utf8.RuneSelf:
			t.literalAtom(regexp.QuoteMeta(string(c)), true)
		default:
			r, n := utf8.DecodeRuneInString(t.pat[start:])
			t.i = start + n
			t.literalAtom(regexp.QuoteMeta(string(r)), true)
		}
	}
	if len(t.groups) > 0 {
		return reError(`Unmatched ( or \(`)
	}
	return nil
}

// atStart reports whether position p begins an expression: the start of
// the pattern, or just after \( or \| (BRE), where ^ is an anchor and *
// is literal.
func (t *reTranslator) atStart(p int) bool {
	before := t.pat[:p]
	return before == "" || strings.HasSuffix(before, `\(`) || strings.HasSuffix(before, `\|`) ||
		(t.o.sed && strings.HasSuffix(before, "\n"))
}

// atEnd reports whether the BRE continues with nothing, \) or \|, where
// $ is an anchor.
func (t *reTranslator) atEnd() bool {
	rest := t.pat[t.i:]
	return rest == "" || strings.HasPrefix(rest, `\)`) || strings.HasPrefix(rest, `\|`)
}

func (t *reTranslator) setAtom(at int) {
	t.atom = at
	t.quantified = false
}

// literalAtom writes s, which matches one character (or a group), as the
// new quantifiable atom; anchor-like text passes quantifiable=false.
func (t *reTranslator) literalAtom(s string, quantifiable bool) {
	at := t.out.Len()
	t.out.WriteString(s)
	if quantifiable {
		t.setAtom(at)
	} else {
		t.atom = -1
	}
}

// quantifier applies q (*, +, ?, {m,n}) to the last atom.
func (t *reTranslator) quantifier(q string, start int) error {
	if t.atom < 0 {
		if t.ere {
			// GNU ERE ignores a leading repetition operator; grep warns.
			if q == "*" {
				t.warnings = append(t.warnings, "* at start of expression")
			}
			return nil
		}
		// In a BRE it is an ordinary character.
		t.literalAtom(regexp.QuoteMeta(strings.Trim(t.pat[start:t.i], `\`)), true)
		return nil
	}
	if t.quantified {
		s := t.out.String()
		t.out.Reset()
		t.out.WriteString(s[:t.atom])
		t.out.WriteString("(?:" + s[t.atom:] + ")")
	}
	t.out.WriteString(q)
	t.quantified = true
	return nil
}

// interval parses an interval whose opening brace is at start; t.i is
// just after the brace (ERE) or after \{ (BRE).
func (t *reTranslator) interval(start int) error {
	rest := t.pat[t.i:]
	closer := "}"
	if !t.ere {
		closer = `\}`
	}
	end := strings.Index(rest, closer)
	body := ""
	if end >= 0 {
		body = rest[:end]
	}
	lo, hi, ok := parseInterval(body)
	if end < 0 || !ok {
		if t.ere && !t.o.sed {
			// Not an interval: GNU ERE takes the brace literally.
			t.literalAtom(`\{`, true)
			return nil
		}
		if end < 0 {
			if strings.Trim(rest, "0123456789,") == "" {
				return reError(`Unmatched \{`)
			}
			return reError(`Invalid content of \{\}`)
		}
		return reError(`Invalid content of \{\}`)
	}
	if hi >= 0 && hi < lo {
		return reError(`Invalid content of \{\}`)
	}
	if lo > 1000 || hi > 1000 {
		return reError("Regular expression too big")
	}
	t.i += end + len(closer)
	q := "{" + strconv.Itoa(lo) + ","
	if hi >= 0 {
		q += strconv.Itoa(hi)
	}
	q += "}"
	return t.quantifier(q, start)
}

// parseInterval parses "m", "m,", ",n" or "m,n"; hi is -1 for no bound.
func parseInterval(s string) (lo, hi int, ok bool) {
	a, b, comma := strings.Cut(s, ",")
	if a == "" && !comma {
		return 0, 0, false
	}
	num := func(x string) (int, bool) {
		if x == "" || strings.Trim(x, "0123456789") != "" || len(x) > 6 {
			return 0, false
		}
		n, _ := strconv.Atoi(x)
		return n, true
	}
	if a != "" {
		if lo, ok = num(a); !ok {
			return 0, 0, false
		}
	}
	if !comma {
		return lo, lo, true
	}
	if b == "" {
		return lo, -1, true
	}
	if hi, ok = num(b); !ok {
		return 0, 0, false
	}
	return lo, hi, true
}

func (t *reTranslator) open() {
	t.groups = append(t.groups, t.out.Len())
	t.out.WriteByte('(')
	t.atom = -1
}

func (t *reTranslator) close() {
	at := t.groups[len(t.groups)-1]
	t.groups = t.groups[:len(t.groups)-1]
	t.out.WriteByte(')')
	t.setAtom(at)
}

func (t *reTranslator) alt() {
	t.out.WriteByte('|')
	t.atom = -1
}

// escape handles a backslash followed by c; start is the backslash.
func (t *reTranslator) escape(c byte, start int) error {
	if t.o.sed {
		if s, ok := t.sedEscape(c); ok {
			t.literalAtom(regexp.QuoteMeta(s), true)
			return nil
		}
	}
	switch c {
	case '(', ')', '{', '}', '|', '+', '?':
		if t.ere {
			t.literalAtom(`\`+string(c), true)
			return nil
		}
		switch c {
		case '(':
			t.open()
		case ')':
			if len(t.groups) == 0 {
				return reError(`Unmatched ) or \)`)
			}
			t.close()
		case '{':
			if t.atom < 0 && t.atStart(start) {
				t.literalAtom(`\{`, true)
				return nil
			}
			return t.interval(start)
		case '}':
			t.literalAtom(`\}`, true)
		case '|':
			t.alt()
		default:
			return t.quantifier(string(c), start)
		}
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if int(c-'0') > t.closedGroups() {
			return reError("Invalid back reference")
		}
		return errBackref
	case 'w', 'W', 's', 'S':
		t.literalAtom(`\`+string(c), true)
	case 'b', 'B':
		t.literalAtom(`\`+string(c), false)
	case '<', '>':
		t.literalAtom(`\b`, false)
	case '`':
		t.literalAtom(`\A`, false)
	case '\'':
		t.literalAtom(`\z`, false)
	default:
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(t.pat[start+1:])
			t.i = start + 1 + n
			t.literalAtom(regexp.QuoteMeta(string(r)), true)
			return nil
		}
		t.literalAtom(regexp.QuoteMeta(string(c)), true)
	}
	return nil
}

// closedGroups counts the groups closed so far, which a back-reference
// may name.
func (t *reTranslator) closedGroups() int {
	n, depth := 0, 0
	for i := 0; i < t.i; i++ {
		switch {
		case t.pat[i] == '\\' && i+1 < len(t.pat):
			i++
			if !t.ere && t.pat[i] == ')' {
				n++
			}
		case t.ere && t.pat[i] == '(':
			depth++
		case t.ere && t.pat[i] == ')' && depth > 0:
			depth--
			n++
		}
	}
	return n
}

// sedEscape converts sed's character escapes; t.i is just after c.
func (t *reTranslator) sedEscape(c byte) (string, bool) {
	s, n, ok := charEscape(t.pat[t.i-2:])
	if !ok {
		return "", false
	}
	t.i += n - 2
	return s, true
}

// charEscape decodes a GNU sed character escape at the start of s (which
// begins with a backslash): \a \f \n \r \t \v, \cX, \dNNN, \oNNN, \xHH.
// n is how many bytes it used.
func charEscape(s string) (out string, n int, ok bool) {
	if len(s) < 2 || s[0] != '\\' {
		return "", 0, false
	}
	switch s[1] {
	case 'a':
		return "\a", 2, true
	case 'f':
		return "\f", 2, true
	case 'n':
		return "\n", 2, true
	case 'r':
		return "\r", 2, true
	case 't':
		return "\t", 2, true
	case 'v':
		return "\v", 2, true
	case 'c':
		if len(s) < 3 {
			return "", 0, false
		}
		c := s[2]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		return string(rune(c ^ 0x40)), 3, true
	case 'd', 'o', 'x':
		base, max := 10, 3
		digits := "0123456789"
		switch s[1] {
		case 'o':
			base, digits = 8, "01234567"
		case 'x':
			base, max, digits = 16, 2, "0123456789abcdefABCDEF"
		}
		j := 2
		for j < len(s) && j < 2+max && strings.IndexByte(digits, s[j]) >= 0 {
			j++
		}
		if j == 2 {
			return "", 0, false
		}
		v, _ := strconv.ParseUint(s[2:j], base, 16)
		return string([]byte{byte(v)}), j, true
	}
	return "", 0, false
}

// posixClasses are the bracket classes RE2 knows under the same names.
var posixClasses = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true,
	"space": true, "blank": true, "punct": true, "print": true, "graph": true,
	"cntrl": true, "alnum": true,
}

// bracket translates a bracket expression; t.i is just after '['.
// Inside it a backslash is an ordinary character (sed's escapes aside),
// ']' first is literal, and [:class:], [=c=] and [.c.] are recognized.
func (t *reTranslator) bracket() error {
	unmatched := reError("Unmatched [, [^, [:, [., or [=")
	if t.i >= len(t.pat) {
		return reError("Invalid regular expression")
	}
	var b strings.Builder
	b.WriteByte('[')
	if t.pat[t.i] == '^' {
		b.WriteByte('^')
		t.i++
	}
	first := true
	var prev rune = -1 // last single character, a possible range start
	for {
		if t.i >= len(t.pat) {
			return unmatched
		}
		c := t.pat[t.i]
		if c == ']' && !first {
			t.i++
			break
		}
		first = false
		// One element: a class, an equivalence, a collating symbol or a
		// character.
		if c == '[' && t.i+1 < len(t.pat) && strings.IndexByte(":=.", t.pat[t.i+1]) >= 0 {
			kind := t.pat[t.i+1]
			end := strings.Index(t.pat[t.i+2:], string(kind)+"]")
			if end < 0 {
				return unmatched
			}
			name := t.pat[t.i+2 : t.i+2+end]
			t.i += 2 + end + 2
			if kind == ':' {
				if !posixClasses[name] {
					return reError("Invalid character class name")
				}
				b.WriteString("[:" + name + ":]")
				prev = -1
				continue
			}
			r, n := utf8.DecodeRuneInString(name)
			if n != len(name) || n == 0 {
				return reError("Invalid collation character")
			}
			if err := t.bracketChar(&b, r, &prev); err != nil {
				return err
			}
			continue
		}
		var r rune
		if c == '\\' && t.o.sed && t.i+1 < len(t.pat) {
			if t.pat[t.i+1] == '\\' {
				r = '\\'
				t.i += 2
			} else if s, n, ok := charEscape(t.pat[t.i:]); ok && len(s) == 1 {
				r = rune(s[0])
				t.i += n
			} else {
				r = '\\'
				t.i++
			}
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(t.pat[t.i:])
			t.i += n
		}
		if err := t.bracketChar(&b, r, &prev); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	t.out.WriteString(b.String())
	return nil
}

// bracketChar adds r to a bracket; a '-' between two characters makes
// the range, which must not run backwards.
func (t *reTranslator) bracketChar(b *strings.Builder, r rune, prev *rune) error {
	if r == '-' && *prev >= 0 && t.i < len(t.pat) && t.pat[t.i] != ']' {
		// A range: read its end.
		var hi rune
		var n int
		if t.pat[t.i] == '[' && t.i+1 < len(t.pat) && (t.pat[t.i+1] == '.' || t.pat[t.i+1] == '=') {
			kind := t.pat[t.i+1]
			end := strings.Index(t.pat[t.i+2:], string(kind)+"]")
			if end < 0 {
				return reError("Unmatched [, [^, [:, [., or [=")
			}
			hi, _ = utf8.DecodeRuneInString(t.pat[t.i+2:])
			n = 2 + end + 2
		} else {
			hi, n = utf8.DecodeRuneInString(t.pat[t.i:])
		}
		t.i += n
		if hi < *prev {
			return reError("Invalid range end")
		}
		b.WriteByte('-')
		b.WriteString(classChar(hi))
		*prev = -1
		return nil
	}
	b.WriteString(classChar(r))
	*prev = r
	return nil
}

// classChar writes r for inside an RE2 character class.
func classChar(r rune) string {
	switch r {
	case '\\', '[', ']', '^', '-':
		return `\` + string(r)
	case '\n':
		return `\n`
	}
	if r < ' ' || r == 0x7f {
		return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
	}
	return string(r)
}

// compileRE compiles a translated GNU pattern with POSIX leftmost-longest
// semantics; (?s) because a sed pattern space may hold newlines that "."
// matches.
func compileRE(expr string, icase, multiline bool) (*regexp.Regexp, error) {
	flags := "(?s"
	if icase {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	re, err := regexp.Compile(flags + ")" + expr)
	if err != nil {
		return nil, err
	}
	re.Longest()
	return re, nil
}

// translatePerl checks a grep -P pattern for what RE2 lacks, so the
// user reads why rather than a Go error.
func translatePerl(pat string) (string, error) {
	for _, bad := range []string{"(?=", "(?!", "(?<=", "(?<!", "(?>", `\K`, "(?|", "(?R", "(?("} {
		if strings.Contains(pat, bad) {
			return "", errors.New("unsupported Perl regular expression construct " + bad)
		}
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		if c == '\\' && i+1 < len(pat) {
			n := pat[i+1]
			switch {
			case n >= '1' && n <= '9':
				return "", errBackref
			case n == 'Z':
				b.WriteString(`(?:\n?\z)`)
				i++
				continue
			case n == 'h':
				b.WriteString(`[\t ]`)
				i++
				continue
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}
