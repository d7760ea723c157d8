package awk

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// awkCase is a program run: awk's arguments, standard input, and the
// expected standard output and exit status.
type awkCase struct {
	name   string
	args   []string
	stdin  string
	want   string
	status int
}

// Files every case's working directory holds.
var fixtures = map[string]string{
	"plan.md": "# Plan\n\n## Task 1: setup\nDo the setup.\n```\n## Task 2: fake inside fence\n```\nMore of task 1.\n\n## Task 2: build\nBuild it.\n- step a\n\n### Task 3 helper\nnot task 3 header since no number? yes it is\n## Task 20: later\nTask 20 text.\n## Task 2\nTask 2 again.\n",
	"f1.txt":  "a\nb\nc\n",
	"f2.txt":  "b\nx\nc\n",
}

// newEnv returns an Env whose streams are buffers and whose directory is
// a fresh temporary directory holding the fixtures. Its Exec runs a few
// fake commands (echo, sort, cat, exit N) so that pipes can be tested
// without a shell.
func newEnv(t testing.TB, stdin string) (*proc.Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range fixtures {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	var stdout, stderr bytes.Buffer
	e := &proc.Env{
		Ctx:     context.Background(),
		Stdin:   strings.NewReader(stdin),
		Stdout:  &stdout,
		Stderr:  &stderr,
		Dir:     dir,
		Environ: []string{"AWKTESTVAR=hello", "HOME=/home/user"},
		Exec:    fakeExec,
	}
	return e, &stdout, &stderr
}

// fakeExec stands in for the shell: args are {"sh", "-c", cmd}.
func fakeExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 3 || args[0] != "sh" || args[1] != "-c" {
		return 127
	}
	status := 0
	for _, cmd := range strings.Split(args[2], ";") {
		f := strings.Fields(cmd)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "echo":
			io.WriteString(stdout, strings.Join(f[1:], " ")+"\n")
		case "cat":
			io.Copy(stdout, stdin)
		case "sort":
			var lines []string
			sc := bufio.NewScanner(stdin)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			sort.Strings(lines)
			for _, l := range lines {
				io.WriteString(stdout, l+"\n")
			}
		case "exit":
			if len(f) > 1 {
				status = int(strToNum(f[1]))
			}
			return status
		default:
			io.WriteString(stderr, "sh: "+f[0]+": not found\n")
			status = 127
		}
	}
	return status
}

func runAwk(t testing.TB, stdin string, args ...string) (string, string, int) {
	t.Helper()
	e, stdout, stderr := newEnv(t, stdin)
	status := Main(e, append([]string{"awk"}, args...))
	return stdout.String(), stderr.String(), status
}

func runCases(t *testing.T, cases []awkCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, stderr, status := runAwk(t, c.stdin, c.args...)
			assert.Equal(t, c.want, got, "awk %q: stdout; stderr: %s", c.args, stderr)
			assert.Equal(t, c.status, status, "awk %q: exit status; stderr: %s", c.args, stderr)
		})
	}
}

func TestMawkCases(t *testing.T) { runCases(t, mawkCases) }
func TestGawkCases(t *testing.T) { runCases(t, gawkCases) }

// TestPipes checks the forms that run commands through Exec.
func TestPipes(t *testing.T) {
	runCases(t, []awkCase{
		{"print to pipe", []string{`BEGIN { print "b" | "sort"; print "a" | "sort"; close("sort"); print "done" }`}, "", "a\nb\ndone\n", 0},
		{"pipe closed at exit", []string{`{ print | "sort" } END { print "end" }`}, "z\ny\n", "end\ny\nz\n", 0},
		{"cmd getline", []string{`BEGIN { while (("echo x y; echo z" | getline line) > 0) n++; print n, line }`}, "", "2 z\n", 0},
		{"cmd getline $0", []string{`BEGIN { "echo a b c" | getline; print $2, NF, NR }`}, "", "b 3 1\n", 0},
		{"close status", []string{`BEGIN { "echo x; exit 3" | getline; print close("echo x; exit 3") }`}, "", "3\n", 0},
		{"system", []string{`BEGIN { printf "a"; r = system("echo b; exit 4"); print "r=" r }`}, "", "ab\nr=4\n", 0},
		{"system missing", []string{`BEGIN { print system("nosuchcmd") }`}, "", "127\n", 0},
	})
}

func TestStderr(t *testing.T) {
	out, errOut, status := runAwk(t, "", `BEGIN { print "out"; print "err" > "/dev/stderr"; printf "x" > "/dev/stdout" }`)
	assert.Equal(t, "out\nx", out, "stdout")
	assert.Equal(t, "err\n", errOut, "stderr")
	assert.Zero(t, status, "exit status")
}

// TestErrors checks that failures are messages with status 2, never
// panics.
func TestErrors(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"syntax", []string{"BEGIN { x = }"}, "line 1, column 13"},
		{"syntax line 2", []string{"BEGIN {\n  print (\n}"}, "line 3"},
		{"unterminated string", []string{`BEGIN { print "abc }`}, "unterminated string"},
		{"unterminated regex", []string{`/abc`}, "unterminated regexp"},
		{"bad regex", []string{`/a(/`}, "invalid regex"},
		{"division by zero", []string{`BEGIN { print 1/0 }`}, "division by zero"},
		{"modulo by zero", []string{`BEGIN { print 1%0 }`}, "division by zero"},
		{"negative field", []string{`{ print $(-1) }`}, "field -1"},
		{"scalar as array", []string{`BEGIN { x = 1; x[1] = 2 }`}, "scalar x as an array"},
		{"array as scalar", []string{`BEGIN { x[1] = 1; print x }`}, "array x in a scalar context"},
		{"undefined function", []string{`BEGIN { f() }`}, "never defined"},
		{"too many args", []string{"function f(a) {}\nBEGIN { f(1, 2) }"}, "accepts only 1"},
		{"recursion", []string{"function f(n) { return f(n+1) }\nBEGIN { f(1) }"}, "too deep"},
		{"missing file", []string{`{ print }`, "nosuchfile"}, "cannot open file `nosuchfile' for reading: No such file or directory"},
		{"printf args", []string{`BEGIN { printf "%s %s\n", 1 }`}, "not enough arguments"},
		{"no program", nil, "usage:"},
		{"bad option", []string{"-q", "1"}, "usage:"},
		{"missing -f", []string{"-f", "nosuch.awk"}, "can't open source file"},
		{"redirect fail", []string{`BEGIN { print 1 > "no/such/dir/x" }`}, "can't redirect"},
		{"break outside loop", []string{`BEGIN { break }`}, "outside a loop"},
		{"return outside function", []string{`BEGIN { return }`}, "outside a function"},
		{"deep parens", []string{"BEGIN { x = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + " }"}, "nested too deeply"},
		{"deep blocks", []string{"BEGIN " + strings.Repeat("{", 5000) + strings.Repeat("}", 5000)}, "nested too deeply"},
		{"deep unary", []string{"BEGIN { x = " + strings.Repeat("-", 5000) + "1 }"}, "nested too deeply"},
		{"string too long", []string{`BEGIN { s = "x"; while (1) s = s s }`}, "string too long"},
		{"huge field", []string{`{ $100000000 = 1 }`}, "too large"},
	}
	old := maxStringLen
	maxStringLen = 1 << 20
	defer func() { maxStringLen = old }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, status := runAwk(t, "a\n", c.args...)
			assert.Equal(t, 2, status, "awk %q: exit status", c.args)
			assert.Contains(t, stderr, c.wantErr, "awk %q: stderr", c.args)
		})
	}
}

func TestProgFile(t *testing.T) {
	e, stdout, _ := newEnv(t, "x y\n")
	os.WriteFile(filepath.Join(e.Dir, "p.awk"), []byte("{ print $2 }\n"), 0o644)
	os.WriteFile(filepath.Join(e.Dir, "q.awk"), []byte("END { print NR }\n"), 0o644)
	st := Main(e, []string{"awk", "-f", "p.awk", "-fq.awk", "--", "-"})
	assert.Zero(t, st, "exit status")
	assert.Equal(t, "y\n1\n", stdout.String(), "stdout")
}

func TestOutputFiles(t *testing.T) {
	e, stdout, _ := newEnv(t, "a\nb\n")
	st := Main(e, []string{"awk", `{ print > ($0 ".out"); print NR >> "all.out" } END { close("all.out"); while ((getline l < "all.out") > 0) print "all", l }`})
	require.Zero(t, st, "exit status")
	require.Equal(t, "all 1\nall 2\n", stdout.String(), "stdout")
	for name, want := range map[string]string{"a.out": "a\n", "b.out": "b\n", "all.out": "1\n2\n"} {
		got, err := os.ReadFile(filepath.Join(e.Dir, name))
		if assert.NoError(t, err, name) {
			assert.Equal(t, want, string(got), name)
		}
	}
}

// TestCancel checks that an endless loop stops when the context ends.
func TestCancel(t *testing.T) {
	for _, prog := range []string{
		`BEGIN { while (1) ; }`,
		`BEGIN { for (;;) x++ }`,
		`BEGIN { do x++; while (1) }`,
		`function f(n) { if (n < 30) { f(n+1); f(n+1) } } BEGIN { f(0) }`,
	} {
		e, _, _ := newEnv(t, "")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		e.Ctx = ctx
		done := make(chan int, 1)
		go func() { done <- Main(e, []string{"awk", prog}) }()
		select {
		case st := <-done:
			assert.Equal(t, 130, st, "%s: exit status", prog)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "not cancelled", prog)
		}
		cancel()
	}
}

// TestEnvironArgv checks the variables built from the environment and
// the command line.
func TestEnvironArgv(t *testing.T) {
	out, _, _ := runAwk(t, "", `BEGIN { print ENVIRON["HOME"], ARGC, ARGV[0], ARGV[2] }`, "f1.txt", "n=1")
	assert.Equal(t, "/home/user 3 awk n=1\n", out)
}

func TestForInOrder(t *testing.T) {
	out, _, _ := runAwk(t, "", `BEGIN { a[10]; a[9]; a["b"]; a["a"]; a[1]; for (k in a) printf "%s ", k; print "" }`)
	assert.Equal(t, "1 9 10 a b \n", out)
}
