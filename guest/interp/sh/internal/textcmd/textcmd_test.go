package textcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"github.com/skillrun/skillrun/internal/testkit"
)

// cmdCase is one run of a command: its arguments (args[0] is the
// command), standard input, and what it must print and return.
type cmdCase struct {
	args      []string
	stdin     string
	out, err  string
	code      int
	files     map[string]string // extra files, besides gnuFiles
	wantFiles map[string]string // files as they must be afterwards
}

// run runs a command in a fresh directory holding gnuFiles and extra.
func run(t testing.TB, ctx context.Context, args []string, stdin string, extra map[string]string) (dir, out, errOut string, code int) {
	t.Helper()
	dir = t.TempDir()
	testkit.WriteTree(t, dir, gnuFiles)
	testkit.WriteTree(t, dir, extra)
	var stdout, stderr bytes.Buffer
	e := &proc.Env{
		Ctx:     ctx,
		Stdin:   strings.NewReader(stdin),
		Stdout:  &stdout,
		Stderr:  &stderr,
		Dir:     dir,
		Environ: []string{"LANG=C.UTF-8"},
	}
	cmd, ok := Commands[args[0]]
	require.True(t, ok, "no command %q", args[0])
	code = cmd(e, args)
	return dir, stdout.String(), stderr.String(), code
}

func runCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir, out, errOut, code := run(t, context.Background(), c.args, c.stdin, c.files)
			assert.Equal(t, c.out, out, "stdout")
			assert.Equal(t, c.err, errOut, "stderr")
			assert.Equal(t, c.code, code, "exit status")
			for name, want := range c.wantFiles {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if assert.NoError(t, err, name) {
					assert.Equal(t, want, string(got), name)
				}
			}
		})
	}
}

// TestGNU runs the cases recorded from the GNU tools.
func TestGNU(t *testing.T) {
	for name, cases := range gnuCases {
		t.Run(name, func(t *testing.T) { runCases(t, cases) })
	}
}

func TestCommandsComplete(t *testing.T) {
	for _, name := range []string{"grep", "egrep", "fgrep", "sed", "tr", "head", "tail", "wc", "sort", "uniq", "cut", "paste", "comm", "nl", "rev", "tac", "fold"} {
		assert.NotNil(t, Commands[name], "missing %s", name)
	}
}

// TestFiles covers commands that write files, and grep -r, whose GNU
// order is the directory's (ours is sorted by name).
func TestFiles(t *testing.T) {
	runCases(t, []cmdCase{
		{args: []string{"sed", "-i", "s/a/X/", "f3"}, wantFiles: map[string]string{"f3": "X\nb\nc\n"}},
		{args: []string{"sed", "-i.bak", "s/a/X/", "f3", "n3"}, wantFiles: map[string]string{
			"f3": "X\nb\nc\n", "f3.bak": "a\nb\nc\n", "n3": "1\n2\n3\n", "n3.bak": "1\n2\n3\n"}},
		{args: []string{"sed", "-i", "$d", "f3", "n3"}, wantFiles: map[string]string{"f3": "a\nb\n", "n3": "1\n2\n"}},
		{args: []string{"sed", "-i", "-e", "1i\\", "-e", "top", "noeol"}, wantFiles: map[string]string{"noeol": "top\nnoeol"}},
		{args: []string{"sed", "-n", "s/o/0/w out.txt", "t"}, wantFiles: map[string]string{"out.txt": "hell0 world\nf0o bar\nHell0 again\n"}},
		{args: []string{"sed", "w /dev/stdout", "f3"}, out: "a\na\nb\nb\nc\nc\n"},
		{args: []string{"sed", "-i", "p", "d"}, err: "sed: couldn't edit d: not a regular file\n", code: 2},
		{args: []string{"sort", "-o", "f3", "-r", "f3"}, wantFiles: map[string]string{"f3": "c\nb\na\n"}},
		{args: []string{"uniq", "uq", "u.out"}, wantFiles: map[string]string{"u.out": "a\nb\nB\nc\n"}},
		{args: []string{"grep", "-r", "foo", "d"}, out: "d/a.txt:foo\nd/c.txt:nofoo\nd/sub/b.md:foo bar\n"},
		{args: []string{"grep", "-r", "foo"}, out: "d/a.txt:foo\nd/c.txt:nofoo\nd/sub/b.md:foo bar\nt:foo bar\n"},
		{args: []string{"grep", "-rl", "--include=*.txt", "foo", "."}, out: "./d/a.txt\n./d/c.txt\n"},
		{args: []string{"grep", "-r", "--exclude-dir=sub", "-h", "foo", "d"}, out: "foo\nnofoo\n"},
	})
}

// TestUnsupported: what RE2 cannot do fails cleanly with status 2.
func TestUnsupported(t *testing.T) {
	for _, args := range [][]string{
		{"grep", `\(a\)\1`, "f3"},
		{"grep", "-P", "a(?!b)", "f3"},
		{"grep", "-P", `(a)\1`, "f3"},
	} {
		_, out, errOut, code := run(t, context.Background(), args, "", nil)
		assert.Equal(t, 2, code, "%q: exit status", args)
		assert.Empty(t, out, "%q: stdout", args)
		assert.True(t, strings.HasPrefix(errOut, "grep: "), "%q: stderr %q", args, errOut)
	}
	_, _, errOut, code := run(t, context.Background(), []string{"sed", `s/\(a\)\1/x/`, "f3"}, "", nil)
	assert.Equal(t, 1, code, "sed back-reference: exit status")
	assert.True(t, strings.HasPrefix(errOut, "sed: -e expression #1, char "), "sed back-reference: stderr %q", errOut)
}

// TestCancel: an endless sed loop stops when the shell cancels it.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(t, ctx, []string{"sed", ":a;ba", "f3"}, "", nil)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		require.FailNow(t, "sed did not stop when cancelled")
	}
}

// fuzzRun runs a command with a deadline, so endless scripts end; it
// fails if the command panics (the fuzzer reports that by itself).
func fuzzRun(t *testing.T, args []string, stdin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var out, errOut bytes.Buffer
	e := &proc.Env{Ctx: ctx, Stdin: strings.NewReader(stdin), Stdout: &limitWriter{w: &out}, Stderr: &errOut, Dir: t.TempDir()}
	code := Commands[args[0]](e, args)
	assert.GreaterOrEqual(t, code, 0, "%q: exit status", args)
	assert.LessOrEqual(t, code, 255, "%q: exit status", args)
}

// limitWriter fails once a fuzzed script has printed a lot, so an
// endless printing loop cannot exhaust memory before the deadline.
type limitWriter struct {
	w *bytes.Buffer
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.w.Len() > 1<<20 {
		return 0, os.ErrClosed
	}
	return l.w.Write(p)
}

func FuzzSed(f *testing.F) {
	for _, s := range []string{"p", "s/a/b/g", `s/\(x\)*/\1\U&/2`, "$!N;P;D", ":a;N;$!ba;s/\n/ /g", "1~2{h;d};G", "y/abc/xyz/", "/a/,/b/c\\\nX", "0,/x/d", `s/[[:alpha:]]\{2,\}/<&>/g`, "a\\", "l 5", "{p;{p}}", "s/x*//3g", "D"} {
		f.Add(s, "abc\nxyz\n\naab")
	}
	f.Fuzz(func(t *testing.T, script, input string) {
		fuzzRun(t, []string{"sed", script}, input)
		fuzzRun(t, []string{"sed", "-E", "-n", script}, input)
	})
}

func FuzzGrep(f *testing.F) {
	for _, s := range []string{"a", `\(a\|b\)*c`, "[[:space:]]+", "x{2,3}", "[]a-]", `\<w`, "^$", "(", "a**", "[z-a]", `\{1`} {
		f.Add(s, "abc\nxyz\n\naab")
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		fuzzRun(t, []string{"grep", "-n", pattern}, input)
		fuzzRun(t, []string{"grep", "-E", "-o", "-w", "-i", pattern}, input)
		fuzzRun(t, []string{"grep", "-F", "-x", "-c", pattern}, input)
		fuzzRun(t, []string{"grep", "-P", "-C1", pattern}, input)
	})
}
