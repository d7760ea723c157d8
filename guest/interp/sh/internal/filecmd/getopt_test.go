package filecmd

import (
	"bytes"
	"regexp"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, q, qa, qf string }{
		{"x", "‘x’", "'x'", "x"},
		{"a b", "‘a b’", "'a b'", "'a b'"},
		{"it's", "‘it's’", `"it's"`, `"it's"`},
		{"a:b", "‘a:b’", "'a:b'", "'a:b'"},
		{"a\nb", `‘a\nb’`, `'a'$'\n''b'`, `'a'$'\n''b'`},
		{"\x01", `‘\001’`, `''$'\001'`, `''$'\001'`},
		{"~a", "‘~a’", "'~a'", "'~a'"},
		{"a~", "‘a~’", "'a~'", "a~"},
		{"é", "‘é’", "'é'", "é"},
	} {
		if got := q(c.in); got != c.q {
			t.Errorf("q(%q) = %s, want %s", c.in, got, c.q)
		}
		if got := qa(c.in); got != c.qa {
			t.Errorf("qa(%q) = %s, want %s", c.in, got, c.qa)
		}
		if got := qf(c.in); got != c.qf {
			t.Errorf("qf(%q) = %s, want %s", c.in, got, c.qf)
		}
	}
}

func TestLsLong(t *testing.T) {
	dir := setup(t, fixture{"d/a": "hello\n", "d/sub/": "", "d/l -> a": ""})
	r := run(t, dir, "", "ls", "-l", "--time-style=long-iso", "d")
	// Owner and group are the sandbox user; link counts are derived.
	if r.stdout[:8] != "total 8\n" || !bytes.Contains([]byte(r.stdout), []byte("-rw-r--r-- 1 user user    6 2026-11-20 10:00 a\n")) ||
		!regexp.MustCompile(`\ndrwxr-xr-x 2 user user +\d+ 2026-11-20 10:00 sub\n`).MatchString(r.stdout) ||
		!bytes.Contains([]byte(r.stdout), []byte(" l -> a\n")) {
		t.Errorf("got %q", r.stdout)
	}
}
