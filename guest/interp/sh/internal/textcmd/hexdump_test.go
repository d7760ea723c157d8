package textcmd

import (
	"strings"
	"testing"
)

// TestHexdumpLikeUtilLinux compares hexdump with util-linux's hexdump on
// this machine.
func TestHexdumpLikeUtilLinux(t *testing.T) {
	var cases []toolCase
	add := func(stdin string, args ...string) { cases = append(cases, toolCase{args: args, stdin: stdin}) }
	for _, f := range []string{"empty", "one", "text", "b15", "b16", "b17", "zeros", "rep", "rep32", "high", "ctrl", "utf8", "all", "random"} {
		for _, opts := range [][]string{
			nil, {"-C"}, {"-b"}, {"-c"}, {"-d"}, {"-o"}, {"-x"}, {"-v"}, {"-C", "-v"},
			{"-C", "-x"}, {"-x", "-C"}, {"-b", "-c", "-d"}, {"-n", "5", "-C"}, {"-s", "3", "-C"},
			{"-s", "16", "-n", "17"}, {"-s", "4", "-n", "40", "-c"},
		} {
			add("", append(opts, f)...)
		}
	}
	// Standard input, several files, -s across them, -n, long options.
	add("from stdin\n", "-C")
	add("from stdin\n")
	add("", "-C")
	add("abcdef", "-C", "-s", "2")
	add("abcdef", "-C", "-n", "3")
	add("abcdef", "-C", "-n", "0")
	add("", "-C", "b15", "b17", "one")
	add("", "-C", "empty", "b17", "empty", "text")
	add("", "-C", "-s", "20", "b15", "b17")
	add("", "-C", "-s", "15", "b15", "b17")
	add("", "-C", "-s", "16", "b15", "b17")
	add("", "-C", "-s", "100", "text")
	add("", "-C", "-s", "4", "text")
	add("", "-C", "-s", "5", "text")
	add("", "-C", "-s", "3", "empty", "text")
	add("", "-C", "-n", "3", "-s", "30", "b17", "b17")
	add("", "-C", "-n", "20", "b15", "b17")
	add("", "-C", "-n", "0", "b17")
	add("", "-s", "2", "-n", "0", "b17")
	add("", "-C", "-s", "0x10", "all")
	add("", "-C", "-s", "010", "all")
	add("", "-C", "-s", "1K", "random")
	add("", "-C", "-s", "1KiB", "-n", "1kB", "random")
	add("", "-C", "-s", "0.5K", "-n", "0.05K", "random")
	add("", "-C", "-s", "1.25K", "-n", "0.25k", "random")
	add("", "-C", "-s", " +3", "-n", "3", "random")
	add("", "--canonical", "--skip=2", "--length=5", "b17")
	add("", "--no-squeezing", "--two-bytes-hex", "zeros")
	add("", "--one-byte-octal", "--one-byte-char", "--two-bytes-decimal", "--two-bytes-octal", "b17")
	add("", "-C", "--", "-")
	add("", "-C", "-L", "b17")
	add("", "-C", "-Lnever", "b17")
	add("", "-C", "--color=always", "b17")
	// Errors.
	add("", "missing")
	add("", "-C", "missing", "text")
	add("", "-C", "text", "missing")
	add("", "-C", "missing", "missing2")
	add("", "-C", "missing", "missing2", "text")
	add("", "-C", "-s", "3", "missing", "text")
	add("", "-C", "-s", "3", "missing")
	add("", "-C", "dir", "text")
	add("", "-C", "text", "dir")
	add("abc", "-C", "-s", "1")
	add("", "-C", "-s", "9223372036854775808", "text")
	add("", "-q")
	add("", "--foo")
	add("", "-n")
	add("", "-e")
	add("", "-n", "abc")
	add("", "-n", "-1")
	add("", "-s", "-1")
	add("", "-n", "")
	add("", "-n", "99999999999999999999")
	add("", "-n", "1Y")
	add("", "-n", "1.5")
	add("", "-n", "1.0")
	add("", "-n", "1.")
	add("", "-n", "1e3")
	add("", "-n", "1B")
	add("", "-n", "1iB")
	add("", "-n", "3x")
	add("", "-Lfoo", "text")
	add("", "-V")
	for _, f := range []string{"random", "b17", "text"} {
		for _, opts := range [][]string{{"-C"}, {"-C", "-s", "3"}, {"-s", "4097", "-n", "20"}, {"-C", "-s", "4", "b15"}, {"-s", "6000"}} {
			cases = append(cases, toolCase{args: opts, stdinFile: f})
		}
	}
	compareWithTool(t, "hexdump", cases)
}

// TestHexdumpRecorded holds what util-linux 2.38's hexdump printed, for
// machines without it, and what ours prints for what it does not do.
func TestHexdumpRecorded(t *testing.T) {
	runCases(t, []cmdCase{
		{args: []string{"hexdump", "-C"}, stdin: "hello world\n",
			out: "00000000  68 65 6c 6c 6f 20 77 6f  72 6c 64 0a              |hello world.|\n0000000c\n"},
		{args: []string{"hexdump"}, stdin: "abc", out: "0000000 6261 0063                              \n0000003\n"},
		{args: []string{"hexdump", "-C"}, stdin: strings.Repeat("\x00", 48) + "\xff",
			out: "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n" +
				"00000030  ff                                                |.|\n00000031\n"},
		{args: []string{"hexdump", "-c"}, stdin: "h\xc3\xa9\x00\t",
			out: "0000000   h 303 251  \\0  \\t" + strings.Repeat(" ", 44) + "\n0000005\n"},
		{args: []string{"hexdump", "-C"}},
		{args: []string{"hexdump", "-C", "-s", "1"}, stdin: "abc", err: "hexdump: stdin: Illegal seek\n", code: 1},
		{args: []string{"hexdump", "-C", "x"}, err: "hexdump: x: No such file or directory\nhexdump: all input file arguments failed\n", code: 1},
		{args: []string{"hexdump", "-n", "abc"}, err: "hexdump: failed to parse length: 'abc': Invalid argument\n", code: 1},
		{args: []string{"hexdump", "-q"}, err: "hexdump: invalid option -- 'q'\nTry 'hexdump --help' for more information.\n", code: 1},
		{args: []string{"hexdump", "-e", `"%x"`}, err: "hexdump: -e is not supported in skillrun's sandboxed shell\n", code: 1},
		{args: []string{"hexdump", "-f", "fmt"}, err: "hexdump: -f is not supported in skillrun's sandboxed shell\n", code: 1},
	})
}
