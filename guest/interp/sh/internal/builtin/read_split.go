package builtin

import (
	"strings"
	"unicode/utf8"
)

// splitter splits a record read by read into fields the way bash 5.2 does.
// seps are the separators in use (IFS, or nothing for -N), ifs is $IFS
// itself, which a few of bash's steps consult directly.
type splitter struct {
	seps string
	ifs  string
}

func spcTabNl(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func (s *splitter) isSep(c byte) bool { return strings.IndexByte(s.seps, c) >= 0 }
func (s *splitter) isIFS(c byte) bool { return strings.IndexByte(s.ifs, c) >= 0 }

// shStyle reports whether the separators are exactly the default ones,
// when only space, tab and newline count as IFS white space.
func (s *splitter) shStyle() bool { return s.seps == " \t\n" }

// isWhiteSep reports whether c counts as IFS white space in a separator.
func (s *splitter) isWhiteSep(c byte) bool {
	if s.shStyle() {
		return spcTabNl(c)
	}
	return isCSpace(c)
}

// extract returns the end of the field starting at i: the first separator
// not protected by CTLESC. A multibyte character is a separator only if it
// is one of the separators as a whole.
func (s *splitter) extract(str string, i int) int {
	for i < len(str) {
		c := str[i]
		if c == ctlEsc && !s.isSep(ctlEsc) {
			i = min(i+2, len(str))
			continue
		}
		if c >= 0x80 {
			if r, n := utf8.DecodeRuneInString(str[i:]); r != utf8.RuneError && n > 1 {
				if strings.ContainsRune(s.seps, r) {
					return i
				}
				i += n
				continue
			}
		}
		if s.isSep(c) {
			return i
		}
		i++
	}
	return i
}

// skipSep moves past the separator at i and the separator run that goes
// with it: IFS white space, and one non-white separator after white space.
func (s *splitter) skipSep(str string, i int, white func(byte) bool) int {
	whitesep := i < len(str) && s.isWhiteSep(str[i])
	if i < len(str) {
		if r, n := utf8.DecodeRuneInString(str[i:]); r != utf8.RuneError && n > 1 {
			i += n
		} else {
			i++
		}
	}
	for i < len(str) && white(str[i]) && s.isSep(str[i]) {
		i++
	}
	if i < len(str) && whitesep && s.isSep(str[i]) && !s.isWhiteSep(str[i]) {
		i++
		for i < len(str) && s.isWhiteSep(str[i]) && s.isSep(str[i]) {
			i++
		}
	}
	return i
}

// word takes the next field from str like bash's get_word_from_string. ok
// is false if str holds only separator white space.
func (s *splitter) word(str string) (w, rest string, ok bool) {
	i := 0
	for i < len(str) {
		c := str[i]
		if !s.isSep(c) || (s.shStyle() && !spcTabNl(c)) || (!s.shStyle() && !isCSpace(c)) {
			break
		}
		i++
	}
	if i == len(str) {
		return "", "", false
	}
	str = str[i:]
	end := s.extract(str, 0)
	return str[:end], str[s.skipSep(str, end, spcTabNl):], true
}

// list splits str into all its fields like bash's list_string, for read -a.
func (s *splitter) list(str string) []string {
	if str == "" {
		return nil
	}
	if s.seps != "" {
		i := 0
		for i < len(str) && s.isSep(str[i]) && isCSpace(str[i]) {
			i++
		}
		str = str[i:]
	}
	var words []string
	for i := 0; i < len(str); {
		end := s.extract(str, i)
		switch w := str[i:end]; {
		case w != "":
			words = append(words, w)
		case !s.shStyle() && !isCSpace(str[end]):
			words = append(words, "")
		}
		i = s.skipSep(str, end, s.isWhiteSep)
	}
	return words
}

// stripTrailing removes trailing IFS white space (space, tab and newline
// only), also when escaped, as bash's strip_trailing_ifs_whitespace does.
func (s *splitter) stripTrailing(str string, sawEscape bool) string {
	i := len(str) - 1
	for i > 0 && ((spcTabNl(str[i]) && s.isIFS(str[i])) ||
		(sawEscape && str[i] == ctlEsc && i+1 < len(str) && spcTabNl(str[i+1]))) {
		i--
	}
	return str[:i+1]
}

// assign splits input over names as bash's read does: each name but the
// last gets one field, the last gets the rest of the line, or just its one
// field when exactly one remains.
func (s *splitter) assign(res ReadResult, names []string, input string, sawEscape bool) ReadResult {
	value := func(v string) string {
		if sawEscape && v != "" {
			return dequote(v)
		}
		return v
	}
	if s.seps != "" {
		i := 0
		for i < len(input) && spcTabNl(input[i]) && s.isIFS(input[i]) {
			i++
		}
		input = input[i:]
	}
	for _, name := range names[:len(names)-1] {
		if !isAssignable(name) {
			res.Status, res.Errs = 1, invalidName(name).Errs
			return res
		}
		w := ""
		if input != "" {
			w, input, _ = s.word(input)
		}
		res.Vars = append(res.Vars, [2]string{name, value(w)})
	}
	last := names[len(names)-1]
	if !isAssignable(last) {
		res.Status, res.Errs = 1, invalidName(last).Errs
		return res
	}
	if input != "" {
		w, rest, _ := s.word(input)
		if rest == "" {
			input = w
		} else {
			input = s.stripTrailing(input, sawEscape)
		}
	}
	res.Vars = append(res.Vars, [2]string{last, value(input)})
	return res
}
