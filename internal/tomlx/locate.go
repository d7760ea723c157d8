package tomlx

import (
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// KeyLines maps every key a TOML document defines, as [toml.Key.String]
// spells it, to the 1-based line that first defines it.
//
// It exists because BurntSushi/toml records key positions but does not
// export them, and "unknown key" or "expected a string" is only useful with
// a line number. The scanner behind [LocateKeys] understands just enough
// TOML to find where keys are defined: table headers ([a.b], [[a]]),
// key/value lines with bare, quoted and dotted keys, inline tables, and
// values it must step over without mistaking their contents for keys
// (strings of every kind, multi-line arrays, comments). It never panics or
// loops on any input: a line it cannot read is skipped.
//
// It also guards the real parser: BurntSushi/toml takes time and memory
// quadratic in how deeply keys and values nest (a 20 KiB line of dotted
// keys takes seconds), so callers scan first and refuse a document nested
// too deeply (see [LocateKeys]) before parsing it.
type KeyLines map[string]int

// MaxNesting is the nesting [LocateKeys] allows: the number of parts of a
// full key (scripts.NAME.capabilities.read has 4) and the number of arrays
// and inline tables open at once (skill.toml needs 1).
const MaxNesting = 16

// Line returns the line that defines key, or else the line of its nearest
// ancestor that could be located (a key inside an array of inline tables
// is found at the array's key), or 0.
func (kl KeyLines) Line(key toml.Key) int {
	for n := len(key); n > 0; n-- {
		if l, ok := kl[key[:n].String()]; ok {
			return l
		}
	}
	return 0
}

// LocateKeys scans src and returns the line of every key it defines. When
// keys or values nest deeper than [MaxNesting] it stops and returns the
// line where that happens as tooDeep (0 otherwise).
func LocateKeys(src []byte) (lines KeyLines, tooDeep int) {
	return LocateKeysWithin(src, MaxNesting, MaxNesting)
}

// LocateKeysWithin is [LocateKeys] with other bounds: a full key may have
// at most maxParts parts, and at most maxDepth arrays and inline tables may
// be open at once.
func LocateKeysWithin(src []byte, maxParts, maxDepth int) (lines KeyLines, tooDeep int) {
	// A byte order mark holds no newline, so dropping it keeps line numbers.
	s := &keyScanner{
		src:      strings.TrimPrefix(string(src), "\uFEFF"),
		lines:    KeyLines{},
		maxParts: maxParts,
		maxDepth: maxDepth,
	}
	for i := 0; i < len(s.src); i++ {
		if s.src[i] == '\n' {
			s.newlines = append(s.newlines, i)
		}
	}
	s.document()
	return s.lines, s.tooDeep
}

type keyScanner struct {
	src      string
	pos      int
	newlines []int // offsets of every '\n', for line numbers
	lines    KeyLines
	maxParts int // parts a full key may have
	maxDepth int // arrays and inline tables that may be open at once
	tooDeep  int // line where nesting first exceeds a bound
}

// deep notes that nesting went too deep at pos and stops the scan.
func (s *keyScanner) deep(pos int) {
	if s.tooDeep == 0 {
		s.tooDeep = s.lineAt(pos)
	}
	s.pos = len(s.src)
}

func (s *keyScanner) eof() bool { return s.pos >= len(s.src) }

func (s *keyScanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.pos]
}

// lineAt returns the 1-based line of byte offset pos.
func (s *keyScanner) lineAt(pos int) int { return sort.SearchInts(s.newlines, pos) + 1 }

// record notes the line of every prefix of key longer than from, keeping
// the first definition. It reports false, and stops the scan, when key is
// too deep.
func (s *keyScanner) record(key toml.Key, from, pos int) bool {
	if len(key) > s.maxParts {
		s.deep(pos)
		return false
	}
	line := s.lineAt(pos)
	for n := from + 1; n <= len(key); n++ {
		k := key[:n].String()
		if _, ok := s.lines[k]; !ok {
			s.lines[k] = line
		}
	}
	return true
}

// skipBlank skips spaces and tabs, and with newlines set also line breaks
// and comments.
func (s *keyScanner) skipBlank(newlines bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t':
			s.pos++
		case newlines && (c == '\n' || c == '\r'):
			s.pos++
		case newlines && c == '#':
			s.skipLine()
		default:
			return
		}
	}
}

// skipLine moves to the start of the next line.
func (s *keyScanner) skipLine() {
	if i := strings.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
		s.pos += i + 1
	} else {
		s.pos = len(s.src)
	}
}

// document reads top-level statements: table headers and key/values.
func (s *keyScanner) document() {
	var table toml.Key
	for {
		s.skipBlank(true)
		if s.eof() {
			return
		}
		start := s.pos
		if s.peek() == '[' {
			if key, ok := s.header(); ok && s.record(key, 0, start) {
				table = key
			}
		} else {
			s.keyValue(table)
		}
		// TOML allows one statement a line: whatever follows it is a
		// comment (or an error the real parser has reported), and a
		// statement this scanner could not read is skipped whole.
		s.skipLine()
	}
}

// header reads "[a.b]" or "[[a.b]]".
func (s *keyScanner) header() (toml.Key, bool) {
	s.pos++ // [
	array := s.peek() == '['
	if array {
		s.pos++
	}
	key, ok := s.keyPath()
	if !ok || s.peek() != ']' {
		return nil, false
	}
	s.pos++
	if array {
		if s.peek() != ']' {
			return nil, false
		}
		s.pos++
	}
	return key, true
}

// keyValue reads "key = value" inside table.
func (s *keyScanner) keyValue(table toml.Key) {
	start := s.pos
	key, ok := s.keyPath()
	if !ok || s.peek() != '=' {
		return
	}
	s.pos++
	full := append(table[:len(table):len(table)], key...)
	if s.record(full, len(table), start) {
		s.value(full, 0)
	}
}

// keyPath reads a dotted key ("a", "a.b", `"x y".z`, 'lit') and the
// blanks after it.
func (s *keyScanner) keyPath() (toml.Key, bool) {
	var key toml.Key
	for {
		s.skipBlank(false)
		part, ok := s.simpleKey()
		if !ok {
			return nil, false
		}
		key = append(key, part)
		s.skipBlank(false)
		if s.peek() != '.' {
			return key, true
		}
		s.pos++
	}
}

func (s *keyScanner) simpleKey() (string, bool) {
	switch c := s.peek(); c {
	case '"', '\'':
		start := s.pos
		if strings.HasPrefix(s.src[s.pos:], strings.Repeat(string(c), 3)) {
			return "", false // multi-line strings are not keys
		}
		if !s.skipString() {
			return "", false
		}
		raw := s.src[start+1 : s.pos-1]
		if c == '\'' {
			return raw, true
		}
		if u, err := strconv.Unquote(`"` + raw + `"`); err == nil {
			return u, true
		}
		return raw, true
	default:
		start := s.pos
		for !s.eof() && isBareKeyByte(s.peek()) {
			s.pos++
		}
		return s.src[start:s.pos], s.pos > start
	}
}

func isBareKeyByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// value steps over one value, nested in depth arrays and inline tables.
// Keys of inline tables are recorded below key; a nil key means "inside an
// array", where nothing is recorded.
func (s *keyScanner) value(key toml.Key, depth int) {
	s.skipBlank(false)
	if c := s.peek(); (c == '[' || c == '{') && depth >= s.maxDepth {
		s.deep(s.pos)
		return
	}
	switch s.peek() {
	case '"', '\'':
		s.skipString()
	case '[':
		s.pos++
		for {
			s.skipBlank(true)
			if s.eof() {
				return
			}
			if s.peek() == ']' {
				s.pos++
				return
			}
			before := s.pos
			s.value(nil, depth+1)
			s.skipBlank(true)
			if s.peek() == ',' {
				s.pos++
			}
			if s.pos == before {
				s.pos++ // cannot read it; never loop
			}
		}
	case '{':
		s.pos++
		for {
			s.skipBlank(true)
			if s.eof() {
				return
			}
			if s.peek() == '}' {
				s.pos++
				return
			}
			before := s.pos
			if sub, ok := s.keyPath(); ok && s.peek() == '=' {
				s.pos++
				var full toml.Key
				if key != nil {
					full = append(key[:len(key):len(key)], sub...)
					if !s.record(full, len(key), before) {
						return
					}
				} else if len(sub) > s.maxParts {
					s.deep(before)
					return
				}
				s.value(full, depth+1)
			}
			s.skipBlank(true)
			if s.peek() == ',' {
				s.pos++
			}
			if s.pos == before {
				s.pos++
			}
		}
	default:
		// A number, boolean or date: up to the next delimiter. Dates may
		// contain a space, so blanks do not end it.
		for !s.eof() && !strings.ContainsRune(",]}#\r\n", rune(s.peek())) {
			s.pos++
		}
	}
}

// skipString steps over a basic or literal string, single- or multi-line,
// starting at its opening quote. It reports whether the string was closed.
func (s *keyScanner) skipString() bool {
	q := s.peek()
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s.src[s.pos:], triple) {
		s.pos += 3
		for !s.eof() {
			if q == '"' && s.peek() == '\\' {
				s.pos += 2
				continue
			}
			if strings.HasPrefix(s.src[s.pos:], triple) {
				s.pos += 3
				// Up to two more quotes belong to the content: """a"""""
				for n := 0; n < 2 && s.peek() == q; n++ {
					s.pos++
				}
				return true
			}
			s.pos++
		}
		s.pos = len(s.src)
		return false
	}
	s.pos++
	for !s.eof() {
		switch c := s.peek(); {
		case c == '\n':
			return false
		case c == '\\' && q == '"':
			s.pos += 2
			continue
		case c == q:
			s.pos++
			return true
		}
		s.pos++
	}
	s.pos = len(s.src)
	return false
}
