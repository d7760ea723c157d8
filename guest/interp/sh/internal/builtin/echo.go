package builtin

import "strings"

// Echo formats like bash's echo builtin with xpg_echo off. Leading
// arguments made only of the option letters n, e and E (like -ne) are
// options: -n drops the final newline, -e expands backslash escapes and -E
// turns that off again; anything else, "--" included, is printed. Under -e,
// \c ends the output at once, without a newline.
func Echo(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && isEchoOptions(args[0]) {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !escapes {
			b.WriteString(a)
			continue
		}
		s, stop := expandEcho(a)
		b.WriteString(s)
		if stop {
			return b.String()
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

// isEchoOptions reports whether a is a cluster of echo's option letters.
func isEchoOptions(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	return strings.Trim(a[1:], "neE") == ""
}
