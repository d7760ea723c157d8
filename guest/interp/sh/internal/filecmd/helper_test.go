package filecmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// result is what one command run produced.
type result struct {
	stdout, stderr string
	code           int
}

// newEnv builds a command's environment over in-memory streams, working
// in dir, with an Exec that runs this package's commands plus an echo
// (a shell builtin in the real shell).
func newEnv(dir, stdin string, stdout, stderr io.Writer) *proc.Env {
	e := &proc.Env{
		Ctx:     context.Background(),
		Stdin:   strings.NewReader(stdin),
		Stdout:  stdout,
		Stderr:  stderr,
		Dir:     dir,
		Environ: []string{"TZ=UTC", "LANG=C.UTF-8", "HOME=/home/user", "TMPDIR=" + dir},
	}
	e.Exec = func(args []string, in io.Reader, out, errw io.Writer) int {
		sub := *e
		sub.Stdin, sub.Stdout, sub.Stderr = in, out, errw
		return execBuiltin(&sub, args)
	}
	return e
}

func execBuiltin(e *proc.Env, args []string) int {
	switch args[0] {
	case "echo":
		io.WriteString(e.Stdout, strings.Join(args[1:], " ")+"\n")
		return 0
	case "true":
		return 0
	case "false":
		return 1
	case "exit255":
		return 255
	}
	cmd, ok := Commands[args[0]]
	if !ok {
		return 127
	}
	return cmd(e, args)
}

// run runs one command line in dir.
func run(t testing.TB, dir, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := newEnv(dir, stdin, &out, &errb)
	code := execBuiltin(e, args)
	return result{out.String(), errb.String(), code}
}

// fixture describes files to create: a name ending in "/" is a
// directory, "name -> target" a symbolic link, anything else a file with
// the given content. Every file gets the same fixed modification time so
// that listings are reproducible.
type fixture map[string]string

var fixedTime = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func setup(t testing.TB, files fixture) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if from, to, ok := strings.Cut(name, " -> "); ok {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, from)), 0o755)
			require.NoError(t, os.Symlink(to, filepath.Join(dir, from)))
			continue
		}
		if strings.HasSuffix(name, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		os.Chtimes(p, fixedTime, fixedTime)
	}
	// Directories last: creating their entries changed their times.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			os.Chtimes(p, fixedTime, fixedTime)
		}
		return nil
	})
	return dir
}

// aCase is one table entry: a command line, its input and what GNU
// prints for it.
type aCase struct {
	name   string
	files  fixture
	stdin  string
	args   []string
	stdout string
	stderr string
	code   int
}

func runCases(t *testing.T, cases []aCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := setup(t, c.files)
			r := run(t, dir, c.stdin, c.args...)
			// "$DIR" in an expected output stands for the test's directory.
			want, wantErr := strings.ReplaceAll(c.stdout, "$DIR", dir), strings.ReplaceAll(c.stderr, "$DIR", dir)
			assert.Equal(t, want, r.stdout, "%v: stdout", c.args)
			assert.Equal(t, wantErr, r.stderr, "%v: stderr", c.args)
			assert.Equal(t, c.code, r.code, "%v: exit status", c.args)
		})
	}
}
