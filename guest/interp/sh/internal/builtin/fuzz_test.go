package builtin

import (
	"strings"
	"testing"
)

// FuzzPrintf checks that any format and arguments terminate without
// panicking and that the output stays bounded.
func FuzzPrintf(f *testing.F) {
	for _, s := range []string{"%d\n", "%5.2f|%q|%b", "%(%Y)T", "%*.*s", "\\x41\\u263a\\0101", "%#.3a %G", "%999999999d", "%.*f"} {
		f.Add(s, "42", "3.5e4000")
	}
	f.Fuzz(func(t *testing.T, format, a1, a2 string) {
		out, _, _ := Printf(format, []string{a1, a2, a1})
		if len(out) > maxOutput+4*maxField+len(format) {
			t.Fatalf("output of %d bytes", len(out))
		}
		PrintfArgs([]string{"-v", a1, format, a2})
		Echo([]string{"-e", format, a1})
	})
}

// FuzzRead checks that read terminates without panicking on any input,
// options and IFS, and never consumes more than its input.
func FuzzRead(f *testing.F) {
	f.Add("a b\\\nc d\n", " \t\n", "-r", "x")
	f.Add("x\\  \\ \n", "x ", "-a", "arr")
	f.Add("\xce\xbcx y", ":", "-n", "1")
	f.Add("a,b\x00c", ",", "-d", "")
	f.Fuzz(func(t *testing.T, input, ifs, opt, arg string) {
		r := strings.NewReader(input)
		Read(r, []string{opt, arg, "a", "b"}, ifs, ifs != "")
		Read(r, []string{"-a", "arr"}, ifs, true)
		Read(r, []string{opt}, ifs, false)
	})
}
