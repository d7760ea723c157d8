package awk

import (
	"fmt"
	"regexp"
	"strings"
)

// compileRegex compiles a POSIX extended regular expression, as awk
// writes them, into Go's RE2. The translation handles what RE2 reads
// differently: backslash escapes inside brackets, "]" first in a
// bracket, awk's string escapes, a leading "*" or "+" being literal, and
// "." matching newline. Matching is leftmost-longest as POSIX requires.
func compileRegex(src string) (*regexp.Regexp, error) {
	tr, err := translateERE(src)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(tr)
	if err != nil {
		msg := err.Error()
		if e, ok := err.(interface{ Unwrap() error }); ok && e.Unwrap() != nil {
			msg = e.Unwrap().Error()
		}
		return nil, fmt.Errorf("invalid regex /%s/: %s", src, strings.TrimPrefix(msg, "error parsing regexp: "))
	}
	re.Longest()
	return re, nil
}

func translateERE(src string) (string, error) {
	var b strings.Builder
	b.WriteString("(?s)")
	// atomStart is true where a repetition operator has nothing to
	// repeat, which POSIX leaves undefined and awks take literally.
	atomStart := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\\':
			if i+1 >= len(src) {
				b.WriteString(`\\`)
				atomStart = false
				continue
			}
			i++
			switch e := src[i]; e {
			case 'y', '<', '>':
				b.WriteString(`\b`)
			case 'B', 's', 'S', 'w', 'W':
				b.WriteByte('\\')
				b.WriteByte(e)
			case '`':
				b.WriteString(`\A`)
			case '\'':
				b.WriteString(`\z`)
			default:
				ch, n := escapeChar(src[i:])
				i += n - 1
				b.WriteString(quoteRune(ch))
			}
			atomStart = false
		case '[':
			n, cls, err := translateBracket(src[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(cls)
			i += n - 1
			atomStart = false
		case '*', '+', '?':
			if atomStart {
				b.WriteString(`\` + string(c))
				atomStart = false
			} else {
				b.WriteByte(c)
				// RE2 rejects a repeated repetition ("a**"); awk
				// treats it as the single one.
				for i+1 < len(src) && (src[i+1] == '*' || src[i+1] == '+' || src[i+1] == '?') {
					i++
				}
			}
		case '{':
			if atomStart || !isInterval(src[i:]) {
				b.WriteString(`\{`)
				atomStart = false
			} else {
				j := strings.IndexByte(src[i:], '}')
				b.WriteString(src[i : i+j+1])
				i += j
			}
		case '}':
			b.WriteString(`\}`)
			atomStart = false
		case '(', '|':
			b.WriteByte(c)
			atomStart = true
		case '^':
			b.WriteByte(c)
			atomStart = true
		default:
			b.WriteByte(c)
			atomStart = false
		}
	}
	return b.String(), nil
}

// isInterval reports whether s starts with a valid {n}, {n,} or {n,m}.
func isInterval(s string) bool {
	j := strings.IndexByte(s, '}')
	if j < 2 {
		return false
	}
	body := s[1:j]
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	allDigits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if !isDigit(t[i]) {
				return false
			}
		}
		return len(t) <= 4
	}
	return lo != "" && allDigits(lo) && allDigits(hi) && (comma || hi == "")
}

// escapeChar decodes the escape after a backslash in a regex and returns
// the character and the bytes used. Unknown escapes stand for the
// character itself.
func escapeChar(s string) (rune, int) {
	switch c := s[0]; c {
	case 'n':
		return '\n', 1
	case 't':
		return '\t', 1
	case 'r':
		return '\r', 1
	case 'f':
		return '\f', 1
	case 'v':
		return '\v', 1
	case 'a':
		return 7, 1
	case 'b':
		return 8, 1
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, n := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return rune(v), n
	case 'x':
		v, n := 0, 1
		for n < 3 && n < len(s) && hexVal(s[n]) >= 0 {
			v = v*16 + hexVal(s[n])
			n++
		}
		if n == 1 {
			return 'x', 1
		}
		return rune(v), n
	default:
		if c >= 0x80 {
			r := []rune(s[:min(len(s), 4)])[0]
			return r, len(string(r))
		}
		return rune(c), 1
	}
}

// quoteRune writes r so that RE2 takes it literally.
func quoteRune(r rune) string {
	if r < 0x80 && !isWordByte(byte(r)) {
		return fmt.Sprintf(`\x{%x}`, r)
	}
	if r >= 0x80 && r <= 0xff {
		return fmt.Sprintf(`\x{%x}`, r)
	}
	return string(r)
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// translateBracket converts the bracket expression at the start of s and
// returns its length in s.
func translateBracket(s string) (int, string, error) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s) && s[i] == '^' {
		b.WriteByte('^')
		i++
	}
	first := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			if b.Len() == 2 || b.String() == "[^]" {
				return 0, "", fmt.Errorf("invalid bracket expression in regex")
			}
			return i + 1, b.String(), nil
		case c == '[' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '.' || s[i+1] == '='):
			end := strings.Index(s[i+2:], string(s[i+1])+"]")
			if end < 0 {
				b.WriteString(`\[`)
				break
			}
			name := s[i+2 : i+2+end]
			switch s[i+1] {
			case ':':
				b.WriteString("[:" + name + ":]")
			default: // collating symbol or equivalence class: the text itself
				for _, r := range name {
					b.WriteString(quoteRune(r))
				}
			}
			i += 2 + end + 1
		case c == '\\' && i+1 < len(s):
			r, n := escapeChar(s[i+1:])
			b.WriteString(quoteRune(r))
			i += n
		case c == '-':
			b.WriteByte('-')
		case c < 0x80 && !isWordByte(c):
			b.WriteString(quoteRune(rune(c)))
		default:
			b.WriteByte(c)
		}
		first = false
	}
	return 0, "", fmt.Errorf("unterminated [ in regex")
}

// regexCache keeps compiled dynamic regexes: scripts match fields
// against the same string for every record.
type regexCache map[string]*regexp.Regexp

func (c regexCache) get(src string) (*regexp.Regexp, error) {
	if re, ok := c[src]; ok {
		return re, nil
	}
	re, err := compileRegex(src)
	if err != nil {
		return nil, err
	}
	if len(c) > 500 {
		clear(c)
	}
	c[src] = re
	return re, nil
}
