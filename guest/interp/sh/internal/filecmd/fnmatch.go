package filecmd

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fnmatch flags, as in POSIX fnmatch(3).
const (
	fnmPathname = 1 << iota // '*', '?' and brackets do not match '/'
	fnmPeriod               // a leading '.' must be matched by a '.'
	fnmCasefold             // ignore case
)

// fnmatch reports whether name matches the shell pattern pat. find and
// ls use POSIX fnmatch, which differs from path.Match: without
// fnmPathname '*' matches '/', "[!a]" and "[^a]" negate, character
// classes like [[:digit:]] work, and a malformed bracket is a literal.
func fnmatch(pat, name string, flags int) bool {
	if flags&fnmCasefold != 0 {
		pat, name = strings.ToLower(pat), strings.ToLower(name)
	}
	return fnm(pat, name, flags, true)
}

func fnm(pat, name string, flags int, start bool) bool {
	for pat != "" {
		leadingDot := flags&fnmPeriod != 0 && name != "" && name[0] == '.' && start
		switch pat[0] {
		case '*':
			for pat != "" && pat[0] == '*' {
				pat = pat[1:]
			}
			if leadingDot {
				return false
			}
			if pat == "" {
				return flags&fnmPathname == 0 || !strings.Contains(name, "/")
			}
			for i := 0; i <= len(name); i++ {
				if i > 0 && flags&fnmPathname != 0 && name[i-1] == '/' {
					return false
				}
				if fnm(pat, name[i:], flags, i > 0 && name[i-1] == '/') {
					return true
				}
			}
			return false
		case '?':
			if name == "" || leadingDot || (flags&fnmPathname != 0 && name[0] == '/') {
				return false
			}
			_, n := utf8.DecodeRuneInString(name)
			pat, name = pat[1:], name[n:]
		case '[':
			if name == "" || leadingDot || (flags&fnmPathname != 0 && name[0] == '/') {
				return false
			}
			r, n := utf8.DecodeRuneInString(name)
			ok, rest, valid := matchBracket(pat, r)
			if !valid {
				// An unclosed bracket is an ordinary character.
				if name[0] != '[' {
					return false
				}
				pat, name = pat[1:], name[1:]
				break
			}
			if !ok {
				return false
			}
			pat, name = rest, name[n:]
		case '\\':
			if len(pat) > 1 {
				pat = pat[1:]
			}
			fallthrough
		default:
			if name == "" || name[0] != pat[0] {
				return false
			}
			start = pat[0] == '/'
			pat, name = pat[1:], name[1:]
			continue
		}
		start = false
	}
	return name == ""
}

var charClasses = map[string]func(rune) bool{
	"alnum": func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
	"alpha": unicode.IsLetter, "blank": func(r rune) bool { return r == ' ' || r == '\t' },
	"cntrl": unicode.IsControl, "digit": func(r rune) bool { return r >= '0' && r <= '9' },
	"graph": func(r rune) bool { return unicode.IsGraphic(r) && r != ' ' }, "lower": unicode.IsLower,
	"print": unicode.IsPrint, "punct": unicode.IsPunct, "space": unicode.IsSpace, "upper": unicode.IsUpper,
	"xdigit": func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) },
}

// matchBracket matches r against the bracket expression at the start of
// pat; valid is false if the bracket is not closed.
func matchBracket(pat string, r rune) (matched bool, rest string, valid bool) {
	i := 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	for first := true; i < len(pat); first = false {
		c := pat[i]
		if c == ']' && !first {
			return matched != negate, pat[i+1:], true
		}
		if c == '[' && i+1 < len(pat) && pat[i+1] == ':' {
			if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
				if f, ok := charClasses[pat[i+2:i+2+end]]; ok {
					matched = matched || f(r)
					i += end + 4
					continue
				}
			}
		}
		if c == '\\' && i+1 < len(pat) {
			i++
		}
		lo, n := utf8.DecodeRuneInString(pat[i:])
		i += n
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			i++
			if pat[i] == '\\' && i+1 < len(pat) {
				i++
			}
			hi, n = utf8.DecodeRuneInString(pat[i:])
			i += n
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, "", false
}
