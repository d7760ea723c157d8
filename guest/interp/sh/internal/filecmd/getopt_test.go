package filecmd

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"
)

func TestGetopt(t *testing.T) {
	g := getopt{name: "cmd", spec: "r,recursive f n,lines: s,suffix:: ,verbose ,version-sort"}
	for _, c := range []struct {
		args     []string
		opts     []opt
		operands []string
		stderr   string
	}{
		{[]string{"-rf", "a", "-n5", "b"}, []opt{{key: "r"}, {key: "f"}, {key: "n", val: "5", hasVal: true}}, []string{"a", "b"}, ""},
		{[]string{"-n", "5", "--", "-r"}, []opt{{key: "n", val: "5", hasVal: true}}, []string{"-r"}, ""},
		{[]string{"--lines=7", "--rec", "-"}, []opt{{key: "n", val: "7", hasVal: true}, {key: "r"}}, []string{"-"}, ""},
		{[]string{"--suffix", "x"}, []opt{{key: "s"}}, []string{"x"}, ""},
		{[]string{"-z"}, nil, nil, "cmd: invalid option -- 'z'\nTry 'cmd --help' for more information.\n"},
		{[]string{"-n"}, nil, nil, "cmd: option requires an argument -- 'n'\nTry 'cmd --help' for more information.\n"},
		{[]string{"--ver"}, nil, nil, "cmd: option '--ver' is ambiguous; possibilities: '--verbose' '--version-sort'\nTry 'cmd --help' for more information.\n"},
		{[]string{"--verbose=1"}, nil, nil, "cmd: option '--verbose' doesn't allow an argument\nTry 'cmd --help' for more information.\n"},
		{[]string{"--nope"}, nil, nil, "cmd: unrecognized option '--nope'\nTry 'cmd --help' for more information.\n"},
	} {
		var errb bytes.Buffer
		e := newEnv("/", "", &bytes.Buffer{}, &errb)
		opts, ops, _, _ := g.parse(e, c.args)
		if !reflect.DeepEqual(opts, c.opts) || !reflect.DeepEqual(ops, c.operands) || errb.String() != c.stderr {
			t.Errorf("%q: got %v %q %q", c.args, opts, ops, errb.String())
		}
	}
	// posix stops at the first operand, as env and xargs need.
	e := newEnv("/", "", &bytes.Buffer{}, &bytes.Buffer{})
	_, ops, _, _ := getopt{name: "xargs", spec: "n:", posix: true}.parse(e, []string{"-n1", "echo", "-n"})
	if !reflect.DeepEqual(ops, []string{"echo", "-n"}) {
		t.Errorf("posix: %q", ops)
	}
}

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
