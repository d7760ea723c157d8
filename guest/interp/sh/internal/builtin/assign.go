package builtin

import "strings"

// singleQuote quotes s with single quotes so that eval yields s exactly.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Assign returns shell source that assigns value to name. name may be an
// array element such as a[1] or a[$i]; it is kept verbatim so that the
// subscript is evaluated in the caller's scope, as bash does for printf -v
// and read.
func Assign(name, value string) string {
	return name + "=" + singleQuote(value)
}

// AssignArray returns shell source that sets the indexed array name to
// values, replacing its previous elements as read -a does.
func AssignArray(name string, values []string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteString("=(")
	for i, v := range values {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(singleQuote(v))
	}
	b.WriteByte(')')
	return b.String()
}

// isIdentifier reports whether s is a legal shell variable name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// isAssignable reports whether s names a variable or an array element
// (name[subscript] with a non-empty, bracket-balanced subscript), the names
// printf -v and read accept.
func isAssignable(s string) bool {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return isIdentifier(s)
	}
	if !isIdentifier(s[:i]) || !strings.HasSuffix(s, "]") || len(s)-i < 3 {
		return false
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 && j != len(s)-1 {
				return false
			}
		}
	}
	return depth == 0
}
