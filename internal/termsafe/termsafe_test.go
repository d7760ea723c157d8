package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"deploy", "deploy"},
		{"csv stats: ok (1) ü 日本", "csv stats: ok (1) ü 日本"},
		{`back\slash "q"`, `back\slash "q"`},
		// The finding: a name that turns off wrapping and jumps right.
		{"deploy\x1b[?7l\x1b[999C", `deploy\x1b[?7l\x1b[999C`},
		{"a\rb\nc\td\x00e\x7f", `a\rb\nc\td\x00e\x7f`},
		{"c1\u009b31m", `c1\u009b31m`},             // CSI as a C1 control
		{"evil\u202egnp.exe", `evil\u202egnp.exe`}, // right-to-left override
		{"de\u200bploy\u2066\u2069\u200d\ufeff", `de\u200bploy\u2066\u2069\u200d\ufeff`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"nb\u00a0sp", `nb\u00a0sp`},
		{"private\ue000", `private\ue000`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"repl\ufffd", `repl\ufffd`},
	} {
		got := String(tc.in)
		assert.Equal(t, tc.want, got, "String(%q)", tc.in)
		assert.Equal(t, got, String(got), "String is not idempotent on %q", got)
		assertPrintable(t, got)
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"deploy", 64, `"deploy"`},
		{"deploy\x1b[999C", 64, `"deploy\x1b[999C"`},
		{`a"b\c`, 0, `"a\"b\\c"`},
		{"abcdef", 3, `"abc"…`},
		{"日本語テキスト", 2, `"日本"…`},
		{"x\u202e", 64, `"x\u202e"`},
		{"x\ufffd", 64, `"x\ufffd"`},
	} {
		got := Quote(tc.in, tc.max)
		assert.Equal(t, tc.want, got, "Quote(%q, %d)", tc.in, tc.max)
		assertPrintable(t, got)
	}
	long := strings.Repeat("\x1b", 1000)
	got := Quote(long, 10)
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 10*4+3, "runes of the Quote of 1000 ESC cut to 10: %q", got)
}

// assertPrintable fails if s holds anything a terminal could interpret.
func assertPrintable(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		control := r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x1b ||
			(r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
		assert.False(t, control, "%q still holds %U", s, r)
	}
}

func FuzzString(f *testing.F) {
	f.Add("deploy\x1b[?7l\x1b[999C")
	f.Add("a\u202eb\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		assertPrintable(t, got)
		if !utf8.ValidString(got) {
			t.Errorf("String(%q) is not UTF-8: %q", s, got)
		}
		if String(got) != got {
			t.Errorf("String is not idempotent on %q", s)
		}
		assertPrintable(t, Quote(s, 16))
	})
}

func TestText(t *testing.T) {
	in := "Done.\n\x1b[2J\x1b[Hrm -rf done\u202e\nlast line"
	want := "Done.\n\\x1b[2J\\x1b[Hrm -rf done\\u202e\nlast line"
	assert.Equal(t, want, Text(in), "Text(%q)", in)
	assert.Equal(t, "a\nb\n", Text("a\nb\n"), "plain lines changed")
}
