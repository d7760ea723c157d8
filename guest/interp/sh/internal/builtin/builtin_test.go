package builtin

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The expectations below were checked against GNU bash 5.2.15 with
// LC_ALL=C.UTF-8 and TZ=UTC.

func TestPrintf(t *testing.T) {
	// %(fmt)T formats in the local time zone; pin it.
	defer func(loc *time.Location) { time.Local = loc }(time.Local)
	time.Local = time.UTC
	tests := []struct {
		format string
		args   []string
		out    string
		errs   string
		status int
	}{
		{"-%s-%s-%s-\n", []string{"a b", "x y"}, "-a b-x y--\n", "", 0},
		{"-%s-%s-\n", []string{"a", "b", "c", "d", "e"}, "-a-b-\n-c-d-\n-e--\n", "", 0},
		{"x", []string{"y"}, "x", "", 0},
		{"[%5s][%-5s]", []string{"abc", "abc"}, "[  abc][abc  ]", "", 0},
		{"[%6.4s][%.0s][%06s]", []string{"spam-eggs", "foo", "42"}, "[  spam][][    42]", "", 0},
		{"%d %i %d %d", []string{"42", "-42", "'a", `"b`}, "42 -42 97 98", "", 0},
		{"[%6.4d][%.4d][%6.d][%06d][%6.6d]", []string{"42", "-42", "-42", "-42", "-42"}, "[  0042][-0042][   -42][-00042][-000042]", "", 0},
		{"[%#o][%#x][%#X][%#o][%.0d]", []string{"42", "42", "42", "0", "0"}, "[052][0x2a][0X2A][0][]", "", 0},
		{"[%+d][% d][%-5d]", []string{"42", "42", "42"}, "[+42][ 42][42   ]", "", 0},
		{"%u %o %x %X", []string{"-42", "-42", "-42", "-1"}, "18446744073709551574 1777777777777777777726 ffffffffffffffd6 FFFFFFFFFFFFFFFF", "", 0},
		{"%d %X %d %d", []string{"0x55", "055", "+077", " -123"}, "85 2D 63 -123", "", 0},
		{"%x %u", []string{"'μ", "'三"}, "3bc 19977", "", 0},
		{"%x %x", []string{"'\xce\xce", "'\xf4\x91\x84\x91"}, "ce 111111", "", 0},
		{"%d\n", []string{"3abc"}, "3\n", "printf: 3abc: invalid number\n", 1},
		{"%d\n", []string{" -42 "}, "-42\n", "printf:  -42 : invalid number\n", 1},
		{"%d\n", []string{"xyz"}, "0\n", "printf: xyz: invalid number\n", 1},
		{"%d %d\n", []string{"08", "0x"}, "0 0\n", "printf: 08: invalid octal number\nprintf: 0x: invalid hex number\n", 1},
		{"%d\n", []string{""}, "0\n", "", 0},
		{"%d\n", []string{"64#a"}, "64\n", "printf: 64#a: invalid number\n", 1},
		{"%d\n", []string{"18446744073709551616"}, "9223372036854775807\n", "printf: warning: 18446744073709551616: Numerical result out of range\n", 0},
		{"%u\n", []string{"-18446744073709551615"}, "1\n", "", 0},
		{"[%f][%.2f][%8.2f][%-8.2f]", []string{"3.14159", "3.14159", "3.14159", "3.14159"}, "[3.141590][3.14][    3.14][3.14    ]", "", 0},
		{"[%08.4f][%-08.4f]", []string{"3.14", "3.14"}, "[003.1400][3.1400  ]", "", 0},
		{"[%e][%E][%g][%G]", []string{"3.14", "3.14", "3.14", "3.14"}, "[3.140000e+00][3.140000E+00][3.14][3.14]", "", 0},
		{"[%.0f][%#.0f][%g][%#g]", []string{"3", "3", "3", "3"}, "[3][3.][3][3.00000]", "", 0},
		{"%.3g %g %g %g", []string{"1234567", "0.0001", "0.00001", "123456789"}, "1.23e+06 0.0001 1e-05 1.23457e+08", "", 0},
		{"%.30f", []string{"0.1"}, "0.100000000000000000001355252716", "", 0},
		{"%a %a %a %.0a %.0a %A", []string{"1", "3.14", "0", "1.0625", "15.5", "-2.5"}, "0x8p-3 0xc.8f5c28f5c28f5c3p-2 0x0p+0 0x8p-3 0x1p+4 -0XAP-2", "", 0},
		{"%f %e %g %F", []string{"inf", "nan", "-inf", "inf"}, "inf nan -inf INF", "", 0},
		{"%f %f", []string{"0x1.8p1", "-0"}, "3.000000 -0.000000", "", 0},
		{"%f\n", []string{"1e5000"}, "inf\n", "printf: warning: 1e5000: Numerical result out of range\n", 0},
		{"a\\tb\\0377\\377\\u2620\\U0000065f\\x41\\Z", nil, "a\tb\x1f7\xff\xe2\x98\xa0\xd9\x9fA\\Z", "", 0},
		{"\\c|\\'|\\\"|\\?|a\\", nil, "\\c|'|\"|?|a\\", "", 0},
		{"\\x|\\u|", nil, "\\x|\\u|", "printf: missing hex digit for \\x\nprintf: missing unicode digit for \\u\n", 0},
		{"\\U110000\\ud800\\UFFFFFFFF", nil, "\xf4\x90\x80\x80\xed\xa0\x80", "", 0},
		{"[%%]", nil, "[%]", "", 0},
		{"%c|%c|%cZ", []string{"a", "ABC", "ABC"}, "a|A|AZ", "", 0},
		{"%c|%5c|%-3c|", []string{"μμ", "x", "y"}, "\xce|    x|y  |", "", 0},
		{"%c", nil, "\x00", "", 0},
		{"%z", []string{"42"}, "", "printf: `%z': missing format character\n", 1},
		{"%y", []string{"42"}, "", "printf: `y': invalid format character\n", 1},
		{"abc%", nil, "abc", "printf: `%': missing format character\n", 1},
		{"%5%", nil, "", "printf: `%': invalid format character\n", 1},
		{"[%q][%6q][%1q]", []string{"a b", "a b", "a b"}, `[a\ b][  a\ b][a\ b]`, "", 0},
		{"%q %q %q %q %q", []string{"", "'", "~a", "a=~", "#a#"}, `'' \' \~a a=\~ \#a#`, "", 0},
		{"%q %q %q %q", []string{"\t", "\xce", "a\x7fb", "\x1b"}, `$'\t' $'\316' $'a\177b' $'\E'`, "", 0},
		{"%q %q", []string{"μ x", "!*?[]"}, `μ\ x \!\*\?\[\]`, "", 0},
		{"%.2q|%5.2Q|", []string{"a b", "a b"}, `a\|  a\ |`, "", 0},
		{"[%s][%b]", []string{`\044`, `\044`}, `[\044][$]`, "", 0},
		{"%b %b %b %b", []string{`\1419`, `\01419`, `\558`, `\A`}, `a9 a9 -8 \A`, "", 0},
		{"[%b]\n", []string{`ab\ncd\cxy`}, "[ab\ncd", "", 0},
		{"%b|%s\n", []string{`a\c`, "b", "c"}, "a", "", 0},
		{"[%*s][%.*s][%*.*s][%-*d]", []string{"9", "hello", "3", "hello", "9", "3", "hello", "-4", "7"}, "[    hello][hel][      hel][7   ]", "", 0},
		{"%(%Y-%m-%d %H:%M:%S)T|%10.5(%Y-%m-%d)T|", []string{"1557978599", "1557978599"}, "2019-05-16 03:49:59|     2019-|", "", 0},
		{"%(%a %b %e %j %U %W %V %G %u %w %s %z %Z)T", []string{"1704067200"}, "Mon Jan  1 001 00 01 01 2024 1 1 1704067200 +0000 UTC", "", 0},
		{"%(%-d %_m %05Y %^a %3j)T", []string{"86400"}, "2  1 01970 FRI 002", "", 0},
		{"%(%Y" + strings.Repeat("%Y", 31) + ")T", []string{"0"}, "", "", 0},
		{"%999999999d", []string{"1"}, "", "printf: `%999999999d': field width or precision too large\n", 1},
	}
	for _, tt := range tests {
		out, errs, status := Printf(tt.format, tt.args)
		assert.Equal(t, tt.out, out, "Printf(%q, %q): output", tt.format, tt.args)
		assert.Equal(t, tt.errs, errs, "Printf(%q, %q): errors", tt.format, tt.args)
		assert.Equal(t, tt.status, status, "Printf(%q, %q): status", tt.format, tt.args)
	}
}

func TestPrintfArgs(t *testing.T) {
	const usage = "printf: usage: printf [-v var] format [arguments]\n"
	tests := []struct {
		args               []string
		varName, out, errs string
		status             int
	}{
		{nil, "", "", usage, 2},
		{[]string{"-v"}, "", "", "printf: -v: option requires an argument\n" + usage, 2},
		{[]string{"-v", "x"}, "", "", usage, 2},
		{[]string{"-x"}, "", "", "printf: -x: invalid option\n" + usage, 2},
		{[]string{"-5"}, "", "", "printf: -5: invalid option\n" + usage, 2},
		{[]string{"--"}, "", "", usage, 2},
		{[]string{"--", "-v"}, "", "-v", "", 0},
		{[]string{"%s", "-v"}, "", "-v", "", 0},
		{[]string{"-vx", "%s", "5"}, "x", "5", "", 0},
		{[]string{"-v", "x", "--", "%s", "6"}, "x", "6", "", 0},
		{[]string{"-v", "a[1]", "%s", "foo"}, "a[1]", "foo", "", 0},
		{[]string{"-v", "a[ ]", "%s", "foo"}, "a[ ]", "foo", "", 0},
		{[]string{"-v", "a[", "%s", "foo"}, "", "", "printf: `a[': not a valid identifier\n", 2},
		{[]string{"-v", "a[]", "%s", "foo"}, "", "", "printf: `a[]': not a valid identifier\n", 2},
		{[]string{"-v", "a[1]x", "%s", "foo"}, "", "", "printf: `a[1]x': not a valid identifier\n", 2},
		{[]string{"-v", "1x", "%s", "foo"}, "", "", "printf: `1x': not a valid identifier\n", 2},
	}
	for _, tt := range tests {
		v, out, errs, status := PrintfArgs(tt.args)
		assert.Equal(t, tt.varName, v, "PrintfArgs(%q): variable", tt.args)
		assert.Equal(t, tt.out, out, "PrintfArgs(%q): output", tt.args)
		assert.Equal(t, tt.errs, errs, "PrintfArgs(%q): errors", tt.args)
		assert.Equal(t, tt.status, status, "PrintfArgs(%q): status", tt.args)
	}
}

func TestEcho(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-", "--", "---"}, "- -- ---\n"},
		{[]string{`\`, `\\`}, `\ \\` + "\n"},
		{[]string{"-e", `\`, `\\`}, `\ \` + "\n"},
		{[]string{"-en", `abc\ndef\n`}, "abc\ndef\n"},
		{[]string{"-ez", `abc\n`}, `-ez abc\n` + "\n"},
		{[]string{"-e", "-E", `a\n`}, `a\n` + "\n"},
		{[]string{"-e", `\a\b\d\e\f`}, "\a\b\\d\x1b\f\n"},
		{[]string{"-e", `ab\0cd`}, "ab\x00cd\n"},
		{[]string{"-e", "xy", `ab\cde`, "zzz"}, "xy ab"},
		{[]string{"-e", `abcd\x65f\044e\u0065\U00000065`}, "abcdef$eee\n"},
		{[]string{"-en", `\03777`}, "\xff7"},
		{[]string{"-en", `\04000`}, "\x000"},
		{[]string{"-en", `abcd\x6`, `\x`, `\xg`}, "abcd\x06 \\x \\xg"},
		{[]string{"-en", `\u6`, `\0`, `\1`, `\8`}, "\x06 \x00 \\1 \\8"},
		{[]string{"-e", `a\'b\"c\?d`}, `a\'b\"c\?d` + "\n"},
		{[]string{"-n"}, ""},
		{nil, "\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Echo(tt.args), "Echo(%q)", tt.args)
	}
}

func TestRead(t *testing.T) {
	unset := "\x00unset"
	tests := []struct {
		input string
		ifs   string
		args  []string
		want  ReadResult
		rest  string
	}{
		{"A\t\tB C D E\nFG\n", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", "A\t\tB C D E"}}}, "FG\n"},
		{"", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", ""}}, Status: 1}, ""},
		{"ZZZ", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", "ZZZ"}}, Status: 1}, ""},
		{"A\t\tB C D E \nFG\n", unset, []string{"x", "y", "z"}, ReadResult{Vars: [][2]string{{"x", "A"}, {"y", "B"}, {"z", "C D E"}}}, "FG\n"},
		{"a b\n", unset, []string{"a", "b", "c"}, ReadResult{Vars: [][2]string{{"a", "a"}, {"b", "b"}, {"c", ""}}}, ""},
		{"12345\n", unset, []string{"-n", "4", "x"}, ReadResult{Vars: [][2]string{{"x", "1234"}}}, "5\n"},
		{"  a b  \n", unset, []string{"-n", "6"}, ReadResult{Vars: [][2]string{{"REPLY", "  a b "}}}, " \n"},
		{"  a b  \n", unset, []string{"-n", "5", "x", "y", "z"}, ReadResult{Vars: [][2]string{{"x", "a"}, {"y", "b"}, {"z", ""}}}, "  \n"},
		{"  a b c \n", unset, []string{"-d", "c", "-n", "5"}, ReadResult{Vars: [][2]string{{"REPLY", "  a b"}}}, " c \n"},
		{"  a b  \\\n  line2\n", unset, nil, ReadResult{Vars: [][2]string{{"REPLY", "  a b    line2"}}}, ""},
		{"  a b  \\\n  line2\n", unset, []string{"-r", "x"}, ReadResult{Vars: [][2]string{{"x", `a b  \`}}}, "  line2\n"},
		{"a b c\n", unset, []string{"-N", "4", "A", "B", "C"}, ReadResult{Vars: [][2]string{{"A", "a b "}, {"B", ""}, {"C", ""}}}, "c\n"},
		{"a\nb\nc\n", unset, []string{"-N", "3"}, ReadResult{Vars: [][2]string{{"REPLY", "a\nb"}}}, "\nc\n"},
		{"one\\ two\\x65three\n", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", "one twox65three"}}}, ""},
		{"\\a \\b \\x65 \\145\n", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", "a b x65 145"}}}, ""},
		{"  \\\\a :b\\: c:d\\\n  e\n", ":", []string{"a", "b", "c", "d"}, ReadResult{Vars: [][2]string{{"a", `  \a `}, {"b", "b: c"}, {"c", "d  e"}, {"d", ""}}}, ""},
		{"  a b c d\n", "", []string{"x", "y"}, ReadResult{Vars: [][2]string{{"x", "  a b c d"}, {"y", ""}}}, ""},
		{"a b c\\ d\n", unset, []string{"-a", "arr", "extra"}, ReadResult{ArrayName: "arr", Array: []string{"a", "b", "c d"}}, ""},
		{"a b c\\ d\n", unset, []string{"-r", "-a", "arr"}, ReadResult{ArrayName: "arr", Array: []string{"a", "b", `c\`, "d"}}, ""},
		{"a,b,c:d,e,f:g,h,i", ",", []string{"-d", ":", "v1", "v2"}, ReadResult{Vars: [][2]string{{"v1", "a"}, {"v2", "b,c"}}}, "d,e,f:g,h,i"},
		{"a,b\x00c", ",", []string{"-d", "", "v1"}, ReadResult{Vars: [][2]string{{"v1", "a,b"}}}, "c"},
		{"a\x00b\n", unset, []string{"x"}, ReadResult{Vars: [][2]string{{"x", "ab"}}}, ""},
		{"a b x x\n", "x ", []string{"-a", "a"}, ReadResult{ArrayName: "a", Array: []string{"a", "b", ""}}, ""},
		{"ax x xb\n", "x ", []string{"-a", "a"}, ReadResult{ArrayName: "a", Array: []string{"a", "", "", "b"}}, ""},
		{"\n", unset, []string{"-a", "a"}, ReadResult{ArrayName: "a", Array: []string{}}, ""},
		{"a ax  x  x  \n", "x ", []string{"a", "b"}, ReadResult{Vars: [][2]string{{"a", "a"}, {"b", "ax  x  x"}}}, ""},
		{"xaxx  \n", "x ", []string{"a", "b"}, ReadResult{Vars: [][2]string{{"a", ""}, {"b", "axx"}}}, ""},
		{"hello\\ world  test\n", `\ `, []string{"a", "b"}, ReadResult{Vars: [][2]string{{"a", "hello world"}, {"b", "test"}}}, ""},
		{"x\\  \\ \n", "x ", []string{"a", "b"}, ReadResult{Vars: [][2]string{{"a", ""}, {"b", "\x01"}}}, ""},
		{"Aa b \\ a\\ b\n", unset, []string{"a", "b", "c"}, ReadResult{Vars: [][2]string{{"a", "Aa"}, {"b", "b"}, {"c", " a b"}}}, ""},
		{"a b\\,c d\n", unset, []string{"-d", ","}, ReadResult{Vars: [][2]string{{"REPLY", "a b,c d\n"}}, Status: 1}, ""},
		{"a\v\vb:c\v\n", "\v:", []string{"x", "y", "z"}, ReadResult{Vars: [][2]string{{"x", "a"}, {"y", "b"}, {"z", "c"}}}, ""},
		{"\xce\xbcx y\n", unset, []string{"-n", "1"}, ReadResult{Vars: [][2]string{{"REPLY", "\xce\xbc"}}}, "x y\n"},
		{"abc\\def\n", unset, []string{"-n", "4"}, ReadResult{Vars: [][2]string{{"REPLY", "abcd"}}}, "ef\n"},
		{"hi\n", unset, []string{"-rn1", "var"}, ReadResult{Vars: [][2]string{{"var", "h"}}}, "i\n"},
		{"hi\n", unset, []string{"-n", "0"}, ReadResult{Vars: [][2]string{{"REPLY", ""}}}, "hi\n"},
		{"hi\n", unset, []string{"-t", "0"}, ReadResult{}, "hi\n"},
		{"hi\n", unset, []string{"-t", "-0.5"}, ReadResult{Vars: [][2]string{{"REPLY", "hi"}}}, ""},
		{"hi\n", unset, []string{"-t", "-1"}, ReadResult{Status: 1, Errs: "read: -1: invalid timeout specification\n"}, "hi\n"},
		{"hi\n", unset, []string{"-n", "x"}, ReadResult{Status: 1, Errs: "read: x: invalid number\n"}, "hi\n"},
		{"hi\n", unset, []string{"-u", "3"}, ReadResult{Status: 1, Errs: "read: 3: invalid file descriptor: Bad file descriptor\n"}, "hi\n"},
		{"hi\n", unset, []string{"-q"}, ReadResult{Status: 2, Errs: "read: -q: invalid option\n" + readUsage}, "hi\n"},
		{"hi\n", unset, []string{"-d"}, ReadResult{Status: 2, Errs: "read: -d: option requires an argument\n" + readUsage}, "hi\n"},
		{"hi\n", unset, []string{"1x"}, ReadResult{Status: 1, Errs: "read: `1x': not a valid identifier\n"}, "hi\n"},
		{"a b\n", unset, []string{"a", "1y"}, ReadResult{Vars: [][2]string{{"a", "a"}}, Status: 1, Errs: "read: `1y': not a valid identifier\n"}, ""},
		{"a b\n", unset, []string{"a[1]", "b"}, ReadResult{Vars: [][2]string{{"a[1]", "a"}, {"b", "b"}}}, ""},
	}
	for _, tt := range tests {
		r := strings.NewReader(tt.input)
		got := Read(r, tt.args, tt.ifs, tt.ifs != unset)
		rest, _ := io.ReadAll(r)
		assert.Equal(t, tt.want, got, "Read(%q, %q, IFS=%q)", tt.input, tt.args, tt.ifs)
		assert.Equal(t, tt.rest, string(rest), "Read(%q, %q, IFS=%q): rest", tt.input, tt.args, tt.ifs)
	}
}

func TestAssign(t *testing.T) {
	assert.Equal(t, `a[$i]='it'\''s'`, Assign("a[$i]", "it's"), "Assign")
	assert.Equal(t, `arr=('a b' '' ''\''')`, AssignArray("arr", []string{"a b", "", "'"}), "AssignArray")
	assert.Equal(t, `arr=()`, AssignArray("arr", nil), "AssignArray")
}
