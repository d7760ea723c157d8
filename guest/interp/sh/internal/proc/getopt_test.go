package proc

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGetopt(t *testing.T) {
	g := Getopt{Spec: "r,recursive f n,lines: s,suffix:: ,verbose ,version-sort q,quiet,silent ,color,colour:: 1"}
	for _, c := range []struct {
		args     []string
		opts     []Opt
		operands []string
	}{
		// Combined short flags, attached and separate values.
		{[]string{"-rf", "a", "-n5", "b"}, []Opt{{Key: "r"}, {Key: "f"}, {Key: "n", Val: "5", HasVal: true}}, []string{"a", "b"}},
		{[]string{"-n", "5", "x"}, []Opt{{Key: "n", Val: "5", HasVal: true}}, []string{"x"}},
		{[]string{"-rn5"}, []Opt{{Key: "r"}, {Key: "n", Val: "5", HasVal: true}}, nil},
		{[]string{"-rn", "-5"}, []Opt{{Key: "r"}, {Key: "n", Val: "-5", HasVal: true}}, nil},
		{[]string{"-1r"}, []Opt{{Key: "1"}, {Key: "r"}}, nil},
		// Long options: --long=x, --long x, prefixes, aliases.
		{[]string{"--lines=7", "--rec", "-"}, []Opt{{Key: "n", Val: "7", HasVal: true}, {Key: "r"}}, []string{"-"}},
		{[]string{"--lines", "7"}, []Opt{{Key: "n", Val: "7", HasVal: true}}, nil},
		{[]string{"--lines="}, []Opt{{Key: "n", HasVal: true}}, nil},
		{[]string{"--l", "--verb"}, []Opt{{Key: "n", Val: "--verb", HasVal: true}}, nil},
		{[]string{"--version-sort", "--silent", "--qu", "--si"}, []Opt{{Key: "version-sort"}, {Key: "q"}, {Key: "q"}, {Key: "q"}}, nil},
		{[]string{"--col", "--colour=never"}, []Opt{{Key: "color"}, {Key: "color", Val: "never", HasVal: true}}, nil},
		// Optional values: only attached, never the next argument.
		{[]string{"--suffix", "x"}, []Opt{{Key: "s"}}, []string{"x"}},
		{[]string{"--suffix=.bak", "-s", "-s~", "-rs.x"}, []Opt{{Key: "s", Val: ".bak", HasVal: true}, {Key: "s"}, {Key: "s", Val: "~", HasVal: true}, {Key: "r"}, {Key: "s", Val: ".x", HasVal: true}}, nil},
		// "--" ends the options; operands mix with options.
		{[]string{"-n", "5", "--", "-r", "--", "--lines"}, []Opt{{Key: "n", Val: "5", HasVal: true}}, []string{"-r", "--", "--lines"}},
		{[]string{"a", "-r", "b", "--verbose"}, []Opt{{Key: "r"}, {Key: "verbose"}}, []string{"a", "b"}},
		{nil, nil, nil},
	} {
		opts, ops, err := g.Parse(c.args)
		assert.NoError(t, err, "%q", c.args)
		assert.Equal(t, c.opts, opts, "%q: options", c.args)
		assert.Equal(t, c.operands, ops, "%q: operands", c.args)
	}
}

func TestGetoptErrors(t *testing.T) {
	g := Getopt{Spec: "r,recursive n,lines: s,suffix:: ,verbose ,version-sort q,quiet,silent"}
	for args, msg := range map[string]string{
		"-x":            "invalid option -- 'x'",
		"-rx":           "invalid option -- 'x'",
		"-r-":           "invalid option -- '-'",
		"-n":            "option requires an argument -- 'n'",
		"-rn":           "option requires an argument -- 'n'",
		"--lines":       "option '--lines' requires an argument",
		"--li":          "option '--lines' requires an argument",
		"--verbose=":    "option '--verbose' doesn't allow an argument",
		"--rec=1":       "option '--recursive' doesn't allow an argument",
		"--ver":         "option '--ver' is ambiguous; possibilities: '--verbose' '--version-sort'",
		"--ver=1":       "option '--ver' is ambiguous; possibilities: '--verbose' '--version-sort'",
		"--s":           "option '--s' is ambiguous; possibilities: '--suffix' '--silent'",
		"--nope":        "unrecognized option '--nope'",
		"--nope=1":      "unrecognized option '--nope=1'",
		"--recursively": "unrecognized option '--recursively'",
		"--":            "",
		"-":             "",
	} {
		_, _, err := g.Parse([]string{args})
		if msg == "" {
			assert.NoError(t, err, args)
		} else {
			assert.EqualError(t, err, msg, args)
		}
	}
	// The first error wins, even after an operand.
	_, _, err := g.Parse([]string{"a", "-x", "--nope"})
	assert.EqualError(t, err, "invalid option -- 'x'", "first error")
	// An unknown long option is named, for commands that answer --help
	// themselves.
	var oe *OptError
	_, _, err = g.Parse([]string{"--help=x"})
	if assert.ErrorAs(t, err, &oe, "--help=x") {
		assert.Equal(t, "help", oe.Unrecognized, "--help=x")
	}
	_, _, err = g.Parse([]string{"--ver"})
	if assert.ErrorAs(t, err, &oe, "--ver") {
		assert.Empty(t, oe.Unrecognized, "--ver")
	}
}

func TestGetoptModes(t *testing.T) {
	// Posix (POSIXLY_CORRECT, env, xargs) ends the options at the first
	// operand.
	_, ops, _ := Getopt{Spec: "n:", Posix: true}.Parse([]string{"-n1", "echo", "-n"})
	assert.Equal(t, []string{"echo", "-n"}, ops, "posix")
	// Stop takes negative numbers as operands, as seq does; options
	// before them still count and the number's value is never an option.
	negative := func(a string) bool {
		return len(a) > 1 && a[0] == '-' && (a[1] == '.' || a[1] >= '0' && a[1] <= '9')
	}
	g := Getopt{Spec: "s,separator: w", Stop: negative}
	opts, ops, err := g.Parse([]string{"-w", "-s", "-1", "-5", "-w", "3"})
	assert.NoError(t, err, "stop")
	assert.Equal(t, []Opt{{Key: "w"}, {Key: "s", Val: "-1", HasVal: true}}, opts, "stop: options")
	assert.Equal(t, []string{"-5", "-w", "3"}, ops, "stop: operands")
	_, _, err = (Getopt{Spec: "w"}).Parse([]string{"-5"})
	assert.EqualError(t, err, "invalid option -- '5'", "-5 without Stop")
	// Ordered keeps the operands' places among the options (tar -C).
	opts, ops, _ = Getopt{Spec: "C,directory: v", Ordered: true}.Parse([]string{"a", "-C", "d", "b", "-v", "--", "-c"})
	want := []Opt{{Val: "a", HasVal: true}, {Key: "C", Val: "d", HasVal: true}, {Val: "b", HasVal: true}, {Key: "v"}, {Val: "-c", HasVal: true}}
	assert.Equal(t, want, opts, "ordered: options")
	assert.Equal(t, []string{"a", "b", "-c"}, ops, "ordered: operands")
}

func TestUsage(t *testing.T) {
	var stderr bytes.Buffer
	e := &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}
	assert.Equal(t, 1, e.Usage("cut", 1, "%v", &OptError{msg: "invalid option -- 'x'"}), "status")
	e.TryHelp("seq")
	want := "cut: invalid option -- 'x'\nTry 'cut --help' for more information.\nTry 'seq --help' for more information.\n"
	assert.Equal(t, want, stderr.String(), "stderr")
}
