package awk

import (
	"fmt"
	"strings"
)

// tokKind is a lexical token class.
type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tNumber
	tString
	tRegex
	tName
	tFuncName // a name immediately followed by "(": a function call
	tBuiltin
	tPunct // operators and punctuation; the text says which
	// keywords
	tBegin
	tEnd
	tFunction
	tIf
	tElse
	tWhile
	tFor
	tDo
	tBreak
	tContinue
	tNext
	tNextfile
	tExit
	tReturn
	tDelete
	tGetline
	tPrint
	tPrintf
	tIn
)

var keywords = map[string]tokKind{
	"BEGIN": tBegin, "END": tEnd, "function": tFunction, "func": tFunction,
	"if": tIf, "else": tElse, "while": tWhile, "for": tFor, "do": tDo,
	"break": tBreak, "continue": tContinue, "next": tNext, "nextfile": tNextfile,
	"exit": tExit, "return": tReturn, "delete": tDelete, "getline": tGetline,
	"print": tPrint, "printf": tPrintf, "in": tIn,
}

var builtinNames = map[string]bool{
	"length": true, "substr": true, "index": true, "split": true, "sub": true,
	"gsub": true, "match": true, "sprintf": true, "tolower": true, "toupper": true,
	"int": true, "sqrt": true, "exp": true, "log": true, "sin": true, "cos": true,
	"atan2": true, "rand": true, "srand": true, "system": true, "close": true,
	"fflush": true,
}

// token is one lexeme with its position for error messages.
type token struct {
	kind      tokKind
	text      string // punctuation, name, string value or regex source
	num       float64
	line, col int
}

// syntaxError is a parse or lex error at a source position.
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("syntax error at line %d, column %d: %s", e.line, e.col, e.msg)
}

// punctuation, longest first so that "**=" wins over "**" and "*".
var puncts = []string{
	"**=", "&&", "||", "==", "<=", ">=", "!=", "++", "--", "+=", "-=", "*=",
	"/=", "%=", "^=", "**", ">>", "!~",
	"{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^",
	"!", ">", "<", "|", "?", ":", "~", "$", "=",
}

// lex splits src into tokens. Whether "/" starts a regex or divides
// depends on the previous token, so the whole program is lexed up front
// and the parser gets free lookahead.
func lex(src string) ([]token, error) {
	var toks []token
	line, col := 1, 1
	i := 0
	advance := func(n int) {
		for ; n > 0 && i < len(src); n-- {
			if src[i] == '\n' {
				line++
				col = 1
			} else {
				col++
			}
			i++
		}
	}
	// regexAllowed reports whether a "/" here begins a regex: it does
	// unless the previous token ends an operand.
	regexAllowed := func() bool {
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case tNumber, tString, tRegex, tName, tBuiltin:
			return false
		case tPunct:
			return t.text != ")" && t.text != "]" && t.text != "$" && t.text != "++" && t.text != "--"
		}
		return true
	}
	for i < len(src) {
		c := src[i]
		tl, tc := line, col
		emit := func(k tokKind, text string) {
			toks = append(toks, token{kind: k, text: text, line: tl, col: tc})
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			advance(1)
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			advance(2)
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			advance(3)
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				advance(1)
			}
		case c == '\n':
			emit(tNewline, "\n")
			advance(1)
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			_, end := numPrefix(src[i:])
			text := src[i : i+end]
			toks = append(toks, token{kind: tNumber, text: text, num: strToNum(text), line: tl, col: tc})
			advance(end)
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || isDigit(src[j]) || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z') {
				j++
			}
			word := src[i:j]
			switch {
			case keywords[word] != 0:
				emit(keywords[word], word)
			case builtinNames[word]:
				emit(tBuiltin, word)
			case j < len(src) && src[j] == '(':
				emit(tFuncName, word)
			default:
				emit(tName, word)
			}
			advance(j - i)
		case c == '"':
			s, n, err := lexString(src[i:])
			if err != nil {
				return nil, &syntaxError{tl, tc, err.Error()}
			}
			emit(tString, s)
			advance(n)
		case c == '/' && regexAllowed():
			j := i + 1
			inBracket := false
			for ; j < len(src) && src[j] != '\n'; j++ {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
					j++
				} else if src[j] == '[' && !inBracket {
					inBracket = true
					if j+1 < len(src) && src[j+1] == '^' {
						j++
					}
					if j+1 < len(src) && src[j+1] == ']' {
						j++
					}
				} else if src[j] == '[' && inBracket && j+1 < len(src) && src[j+1] == ':' {
					if k := strings.Index(src[j+2:], ":]"); k >= 0 && !strings.ContainsAny(src[j+2:j+2+k], "]\n") {
						j += k + 3
					}
				} else if src[j] == ']' {
					inBracket = false
				} else if src[j] == '/' && !inBracket {
					break
				}
			}
			if j >= len(src) || src[j] != '/' {
				return nil, &syntaxError{tl, tc, "unterminated regexp"}
			}
			emit(tRegex, src[i+1:j])
			advance(j + 1 - i)
		default:
			p := ""
			for _, cand := range puncts {
				if strings.HasPrefix(src[i:], cand) {
					p = cand
					break
				}
			}
			if p == "" {
				return nil, &syntaxError{tl, tc, fmt.Sprintf("invalid character %q", c)}
			}
			emit(tPunct, p)
			advance(len(p))
		}
	}
	toks = append(toks, token{kind: tEOF, line: line, col: col})
	return toks, nil
}

// lexString decodes the string literal at the start of s (which begins
// with a quote) and returns its value and length in the source.
func lexString(s string) (string, int, error) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\n':
			return "", 0, fmt.Errorf("unterminated string")
		case '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				i += 2
				continue
			}
			n := unescape(&b, s[i+1:])
			i += 1 + n
			continue
		}
		b.WriteByte(c)
		i++
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// unescape writes the character a backslash escape stands for and
// returns how many bytes after the backslash it used. Unknown escapes
// keep their backslash, as mawk does, so "\." still works as a regex.
func unescape(b *strings.Builder, s string) int {
	if s == "" {
		b.WriteByte('\\')
		return 0
	}
	switch c := s[0]; c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'f':
		b.WriteByte(12)
	case 'v':
		b.WriteByte(11)
	case '\\', '"', '/':
		b.WriteByte(c)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, n := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		b.WriteByte(byte(v))
		return n
	case 'x':
		v, n := 0, 1
		for n < 3 && n < len(s) && hexVal(s[n]) >= 0 {
			v = v*16 + hexVal(s[n])
			n++
		}
		if n == 1 {
			b.WriteString(`\x`)
			return 1
		}
		b.WriteByte(byte(v))
		return n
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return 1
}

// unescapeString processes escapes in a -v or command-line assignment
// value, as awk does for those.
func unescapeString(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i += unescape(&b, s[i+1:])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
