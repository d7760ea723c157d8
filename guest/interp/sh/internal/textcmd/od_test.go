package textcmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"github.com/skillrun/skillrun/internal/testkit"
)

// toolCase is a command line to run both here and with the real tool.
type toolCase struct {
	args      []string
	stdin     string
	stdinFile string // a file of dumpFiles as standard input, which can seek
}

// dumpFiles are the inputs of the od and hexdump comparisons.
var dumpFiles = func() map[string]string {
	seq := func(from, to int) string {
		var b []byte
		for c := from; c <= to; c++ {
			b = append(b, byte(c))
		}
		return string(b)
	}
	rnd := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	rnd.Read(random)
	// Floats worth printing: small integers, fractions, powers of two,
	// denormals, infinities and NaNs of both signs, the extremes.
	floats := []byte("\x00\x00\x80\x3f\x00\x00\x00\xc0\xcd\xcc\xcc\x3d\x00\x00\x80\x7f" +
		"\x00\x00\x80\xff\x00\x00\xc0\x7f\x00\x00\xc0\xff\x01\x00\x00\x00" +
		"\x00\x00\x80\x00\xff\xff\x7f\x7f\x00\x00\x00\x80\xdb\x0f\x49\x40" +
		"\x9a\x99\x99\x99\x99\x99\xb9\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f" +
		"\x18\x2d\x44\x54\xfb\x21\x09\x40\x01\x00\x00\x00\x00\x00\x00\x00" +
		"\xff\xff\xff\xff\xff\xff\xef\x7f\x00\x00\x00\x00\x00\x00\x10\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\x80\xff\x3f\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\xc0\x00\x40\x00\x00\x00\x00\x00\x00" +
		"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\x80\x01\x00\x00\x00\x00\x00\x00\x00" +
		"\xff\xff\xff\xff\xff\xff\xff\xff\xfe\x7f\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\x80\xff\xff\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\xc0\xff\x7f\x00\x00\x00\x00\x00\x00" +
		"\x35\xc2\x68\x21\xa2\xda\x0f\xc9\x00\x40\x00\x00\x00\x00\x00\x00")
	floats = append(floats, random[:256]...)
	// Long doubles with the integer bit set, of every magnitude, and
	// denormals.
	var ldouble []byte
	for i := range 200 {
		var x [16]byte
		rnd.Read(x[:8])
		x[7] |= 0x80
		exp := 0x3fff + rnd.Intn(200) - 100
		switch {
		case i%10 == 0:
			exp = rnd.Intn(0x7fff)
		case i%10 == 1:
			exp, x[7] = 0, x[7]&0x7f
		case i%10 == 2:
			for j := range 7 {
				x[j] = 0
			}
		}
		if rnd.Intn(2) == 1 {
			exp |= 0x8000
		}
		x[8], x[9] = byte(exp), byte(exp>>8)
		ldouble = append(ldouble, x[:]...)
	}
	return map[string]string{
		"empty":   "",
		"one":     "A",
		"text":    "abc\n",
		"b15":     "0123456789abcde",
		"b16":     "0123456789abcdef",
		"b17":     "0123456789abcdefg",
		"zeros":   strings.Repeat("\x00", 100),
		"rep":     strings.Repeat("0123456789abcdef", 5) + "tail" + strings.Repeat("0123456789abcdef", 2) + "0123456789abcdef",
		"rep32":   strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 4) + strings.Repeat("x", 32) + "end",
		"high":    seq(0x80, 0xff),
		"all":     seq(0, 255),
		"ctrl":    "\x00\x01\a\b\t\n\v\f\r\x1b\x7f \x1f",
		"utf8":    "héllo wörld ✓ 日本語 🙂\n",
		"lines":   "hello world\nfoo bar\n\nlast line\n",
		"strs":    "hello\x00wo\x00abcdefg\x00\x01xyzzy\x00\x00end\x00tail",
		"random":  string(random),
		"floats":  string(floats),
		"ldouble": string(ldouble),
		"-":       "a file named dash\n",
	}
}()

// realTool is the path of the tool to compare with; when it is missing
// the test skips, or fails if REQUIRE_TOOLCHAINS is set (CI).
func realTool(t *testing.T, name string) string {
	t.Helper()
	path := "/usr/bin/" + name
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s is required (REQUIRE_TOOLCHAINS is set): %v", path, err)
		}
		t.Skipf("%s is not installed: %v", path, err)
	}
	return path
}

// compareWithTool runs each case with the real tool and with ours, in a
// directory holding dumpFiles, and wants the same output, errors and
// exit status, byte for byte.
func compareWithTool(t *testing.T, tool string, cases []toolCase) {
	path := realTool(t, tool)
	dir := t.TempDir()
	testkit.WriteTree(t, dir, dumpFiles)
	if err := os.Mkdir(dir+"/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(path, c.args...)
			cmd.Args[0] = tool // messages start with the name it was called by
			cmd.Dir = dir
			cmd.Env = []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
			cmd.Stdin = strings.NewReader(c.stdin)
			var stdin io.Reader = strings.NewReader(c.stdin)
			if c.stdinFile != "" {
				f1, err1 := os.Open(dir + "/" + c.stdinFile)
				f2, err2 := os.Open(dir + "/" + c.stdinFile)
				if err := errors.Join(err1, err2); err != nil {
					t.Fatal(err)
				}
				defer f1.Close()
				defer f2.Close()
				cmd.Stdin, stdin = f1, f2
			}
			var wantOut, wantErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
			wantCode := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				wantCode = ee.ExitCode()
			}
			var out, errOut bytes.Buffer
			e := &proc.Env{Ctx: context.Background(), Stdin: stdin, Stdout: &out, Stderr: &errOut,
				Dir: dir, Environ: []string{"LANG=C.UTF-8"}}
			code := Commands[tool](e, append([]string{tool}, c.args...))
			assert.Equal(t, wantOut.String(), out.String(), "stdout")
			assert.Equal(t, wantErr.String(), errOut.String(), "stderr")
			assert.Equal(t, wantCode, code, "exit status")
		})
	}
}

// TestOdLikeGNU compares od with GNU coreutils' od on this machine.
func TestOdLikeGNU(t *testing.T) {
	var cases []toolCase
	add := func(stdin string, args ...string) { cases = append(cases, toolCase{args: args, stdin: stdin}) }
	inputs := []string{"empty", "one", "text", "b15", "b16", "b17", "zeros", "rep", "high", "ctrl", "utf8", "all"}
	for _, f := range inputs {
		for _, opts := range [][]string{
			nil, {"-c"}, {"-A", "n", "-c"}, {"-A", "n", "-t", "x1"}, {"-t", "c", "-t", "x1"},
			{"-b"}, {"-d"}, {"-o"}, {"-s"}, {"-x"}, {"-i"}, {"-l"}, {"-a"}, {"-t", "x1z"},
			{"-A", "x", "-t", "d1", "-t", "u1"}, {"-A", "d", "-t", "o2", "-t", "x4", "-t", "u8"},
			{"-v", "-t", "x8"}, {"-w8", "-c"}, {"-w", "-t", "x2z"},
		} {
			add("", append(opts, f)...)
		}
	}
	for _, opts := range [][]string{
		{"-c"}, {"-t", "x1"}, {"-t", "a"}, {"-t", "d2"}, {"-t", "u4"}, {"-t", "o8"}, {"-t", "xC"},
		{"-t", "dS"}, {"-t", "uI"}, {"-t", "oL"}, {"-t", "d4u2x1"}, {"-t", "c", "-t", "x2", "-t", "d4", "-t", "f8"},
		{"-t", "f4"}, {"-t", "f8"}, {"-t", "fF"}, {"-t", "fD"}, {"-t", "fL"}, {"-t", "f16"}, {"-t", "f"},
		{"-f"}, {"-e"}, {"-F"}, {"-D"}, {"-O"}, {"-X"}, {"-H"}, {"-I"}, {"-L"}, {"-B"}, {"-h"},
		{"-t", "x2", "--endian=big"}, {"-t", "f8", "-t", "fL", "--endian=big"}, {"--endian=little", "-t", "d8"},
		{"-w3", "-c"}, {"-w10", "-t", "x2"}, {"-w1", "-t", "x2"}, {"-w0"}, {"-w40", "-t", "x8z"},
		{"-t", "x8", "-t", "c", "-w24"}, {"-A", "n", "-t", "f4", "-t", "x4"},
	} {
		add("", append(opts, "random")...)
		add("", append(opts, "floats")...)
	}
	// Several files, standard input, skipping and limiting.
	add("from stdin\n", "-c")
	add("from stdin\n", "-c", "-")
	add("from stdin\n", "-c", "b15", "-", "text")
	add("stdin", "-c", "-", "-")
	add("", "-c", "b15", "b17", "one")
	add("", "-c", "-A", "n", "text", "text")
	add("", "-t", "x4", "b15", "one", "text")
	add("", "-c", "empty", "rep", "empty")
	add("", "-j", "5", "-c", "b17")
	add("", "-j", "15", "-c", "b15", "b17")
	add("", "-j", "16", "-c", "b15", "b17")
	add("", "-j", "20", "-N", "5", "-c", "b15", "b17")
	add("0123456789", "-j", "3", "-N", "4", "-c")
	add("0123456789", "-j", "3", "-N", "4", "-c", "-", "text")
	add("", "-j", "4097", "-t", "x1", "random")
	add("", "-j", "4999", "-t", "x1", "random", "text")
	add("", "-j", "5001", "-t", "x1", "random", "text")
	add("", "-j", "0x10", "-c", "all")
	add("", "-j", "010", "-c", "all")
	add("", "-j", "1k", "-N", "1b", "-A", "d", "random")
	add("", "-j", "1kB", "-N", "0x20", "random")
	add("", "-j", "1KiB", "-N", "32", "random")
	add("", "-j", "k", "-N", "3", "random")
	add("", "-j", " 5", "-c", "b17")
	add("", "-j", "+5", "-c", "b17")
	add("", "-j", "100", "-c", "b17")
	add("", "-j", "18", "b17")
	add("", "-j", "17", "b17")
	add("", "-N", "0", "b17")
	add("", "-N", "0", "-A", "n", "b17")
	add("", "-N", "3", "-c", "b17", "missing")
	add("", "-N", "20", "-c", "b17", "missing")
	add("", "-N", "17", "-t", "x4", "b17")
	add("", "-N", "33", "-c", "rep")
	add("", "-Ax", "-j", "16", "-N", "70", "-c", "rep")
	add("", "--skip-bytes=2", "--read-bytes=3", "--format=c", "--address-radix=d", "b17")
	add("", "--output-duplicates", "-c", "zeros")
	add("", "--width=4", "-c", "b17")
	add("", "--width", "-c", "b17")
	add("", "-c", "--", "-j")
	// Repeated lines become "*" unless -v.
	for _, f := range []string{"zeros", "rep", "rep32"} {
		add("", "-c", f)
		add("", "-v", "-c", f)
		add("", "-w32", "-c", f)
		add("", "-w4", "-t", "x4", f)
		add("", "-t", "x8", "-t", "c", f)
		add("", "-A", "n", "-t", "x1", f)
	}
	// Traditional operands.
	add("", "-c", "all", "10")
	add("", "-c", "all", "+10")
	add("", "-c", "all", "0x10")
	add("", "-c", "all", "1b")
	add("", "-c", "all", "1B")
	add("", "-c", "all", "10.")
	add("", "-c", "all", "1x")
	add("", "-c", "all", "+")
	add("", "-c", "all", "")
	add("", "-t", "c", "all", "10")
	add("", "all", "+400")
	add("0123456789abcdef", "-c", "+7")
	add("", "-c", "b17", "b15", "+2")
	add("0123456789abcdef", "--traditional", "10")
	add("0123456789abcdef", "--traditional", "1", "2")
	add("", "--traditional", "-c", "all", "10", "20")
	add("", "--traditional", "-A", "n", "-c", "all", "10", "20")
	add("", "--traditional", "-A", "x", "-c", "-t", "x1", "all", "10", "20")
	add("", "--traditional", "-c", "all", "b17")
	add("", "--traditional", "-c", "all", "10")
	add("", "--traditional", "-c", "all")
	// Strings.
	add("", "-S", "3", "strs")
	add("", "-S4", "-A", "x", "strs")
	add("", "--strings", "strs")
	add("", "--strings=5", "-N", "20", "strs")
	add("", "-S0", "strs")
	add("", "-S", "3", "-j", "3", "strs")
	add("", "-S", "2", "-A", "n", "strs", "strs")
	add("ab\x00cde\x00", "-S", "2")
	add("", "-S", "3", "-t", "x1", "strs")
	add("", "-S", "x", "strs")
	// Errors.
	add("", "missing")
	add("", "-c", "missing", "text")
	add("", "-c", "text", "missing")
	add("", "-c", "missing", "missing2")
	add("", "-c", "dir", "text")
	add("", "-j", "3", "-c", "dir", "text")
	add("abc\n", "-t", "q")
	add("abc\n", "-t", "x3")
	add("abc\n", "-t", "x0")
	add("abc\n", "-t", "x9")
	add("abc\n", "-t", "f2")
	add("abc\n", "-t", "f12")
	add("abc\n", "-t", "fH")
	add("abc\n", "-t", "d99999999999999999999")
	add("abc\n", "-t", "xz2")
	add("abc\n", "-t", "z")
	add("abc\n", "-t", "")
	add("abc\n", "-t", "q", "-t", "x5", "-t", "c")
	add("abc\n", "-q")
	add("abc\n", "--foo")
	add("abc\n", "-A")
	add("abc\n", "-A", "q")
	add("abc\n", "-A", "dx")
	add("abc\n", "-j", "abc")
	add("abc\n", "-j", "1x")
	add("abc\n", "-j", "-1")
	add("abc\n", "-j", "2B")
	add("abc\n", "-j", "1R")
	add("abc\n", "-j", "99999999999999999999")
	add("abc\n", "-j", "1Y")
	add("abc\n", "-j", "5")
	add("abc\n", "-j", "1m")
	add("abc\n", "-N", "")
	add("abc\n", "--skip-bytes=x")
	add("abc\n", "--skip=1x")
	add("abc\n", "--read-bytes=1Z")
	add("abc\n", "-w-1")
	add("abc\n", "-w5x")
	add("abc\n", "-wx")
	add("abc\n", "--width=x")
	add("abc\n", "-w99999999999999999999")
	add("abc\n", "--endian=foo")
	add("abc\n", "--endian=")
	add("abc\n", "--endian=b", "-t", "x2")
	for _, f := range []string{"random", "b17", "text"} {
		for _, opts := range [][]string{{"-c"}, {"-j", "3", "-c"}, {"-j", "4097", "-N", "20", "-t", "x1"}, {"-j", "4", "-c", "-", "b15"}, {"-j", "6000"}} {
			cases = append(cases, toolCase{args: opts, stdinFile: f})
		}
	}
	add("", "-t", "fL", "ldouble")
	add("", "-t", "f8", "-t", "f4", "-t", "fL", "--endian=big", "ldouble")
	add("", "--version")
	add("abc\n", "-j", "99999999999999999999", "-N", "1")
	add("abc\n", "-j", "18446744073709551615", "-N", "1")
	compareWithTool(t, "od", cases)
}

// TestOdRecorded holds what GNU od 9.1 printed, for machines without it.
func TestOdRecorded(t *testing.T) {
	runCases(t, []cmdCase{
		{args: []string{"od", "-A", "n", "-c"}, stdin: "abc\n", out: "   a   b   c  \\n\n"},
		{args: []string{"od", "-A", "n", "-t", "x1"}, stdin: "abc\n", out: " 61 62 63 0a\n"},
		{args: []string{"od", "-t", "c", "-t", "x1"}, stdin: "abc\n", out: "0000000   a   b   c  \\n\n         61  62  63  0a\n0000004\n"},
		{args: []string{"od", "-c"}, stdin: "h\xc3\xa9\x00\t", out: "0000000   h 303 251  \\0  \\t\n0000005\n"},
		{args: []string{"od"}, stdin: "abc", out: "0000000 061141 000143\n0000003\n"},
		{args: []string{"od", "-t", "x2z"}, stdin: "abc", out: "0000000 6261 0063                                >abc<\n0000003\n"},
		{args: []string{"od", "-c"}, stdin: strings.Repeat("x", 40), out: "0000000   x   x   x   x   x   x   x   x   x   x   x   x   x   x   x   x\n*\n0000040   x   x   x   x   x   x   x   x\n0000050\n"},
		{args: []string{"od", "-t", "f4", "-t", "f8"}, stdin: "\x00\x00\x80\x3f\x00\x00\x00\x00", out: "0000000               1               0\n                       5.263544247e-315\n0000010\n"},
		{args: []string{"od", "-t", "fL"}, stdin: "\x00\x00\x00\x00\x00\x00\x00\x80\xff\x3f\x00\x00\x00\x00\x00\x00", out: "0000000                             1\n0000020\n"},
		{args: []string{"od"}, out: "0000000\n"},
		{args: []string{"od", "-A", "n"}},
		{args: []string{"od", "-t", "q"}, err: "od: invalid character 'q' in type string ‘q’\n", code: 1},
		{args: []string{"od", "-t", "x3"}, err: "od: invalid type string ‘x3’;\nthis system doesn't provide a 3-byte integral type\n", code: 1},
		{args: []string{"od", "x"}, err: "od: x: No such file or directory\n", code: 1},
		{args: []string{"od", "-q"}, err: "od: invalid option -- 'q'\nTry 'od --help' for more information.\n", code: 1},
		{args: []string{"od", "-j", "5"}, stdin: "abc", err: "od: cannot skip past end of combined input\n", code: 1},
		{args: []string{"od", "-j", "1x"}, err: "od: invalid suffix in -j argument '1x'\n", code: 1},
		{args: []string{"od", "-w3"}, stdin: "abc", out: "0000000 061141\n0000002 000143\n0000003\n", err: "od: warning: invalid width 3; using 2 instead\n"},
	})
}
