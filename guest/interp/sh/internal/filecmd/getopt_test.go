package filecmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
		assert.Equal(t, c.q, q(c.in), "q(%q)", c.in)
		assert.Equal(t, c.qa, qa(c.in), "qa(%q)", c.in)
		assert.Equal(t, c.qf, qf(c.in), "qf(%q)", c.in)
	}
}

func TestLsLong(t *testing.T) {
	dir := setup(t, fixture{"d/a": "hello\n", "d/sub/": "", "d/l -> a": ""})
	r := run(t, dir, "", "ls", "-l", "--time-style=long-iso", "d")
	// Owner and group are the sandbox user; link counts are derived.
	assert.True(t, strings.HasPrefix(r.stdout, "total 8\n"), "stdout %q", r.stdout)
	assert.Contains(t, r.stdout, "-rw-r--r-- 1 user user    6 2026-11-20 10:00 a\n")
	assert.Regexp(t, `\ndrwxr-xr-x 2 user user +\d+ 2026-11-20 10:00 sub\n`, r.stdout)
	assert.Contains(t, r.stdout, " l -> a\n")
}
