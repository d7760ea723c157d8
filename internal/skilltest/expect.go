package skilltest

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/skillrun/skillrun/internal/safefile"
)

// verify compares what a script or command case did with what it expects:
// its exit status, its output, the files it must have written or deleted,
// and that nothing else in the workspace changed.
func (c *Case) verify(res *Result, ws string, before, after map[string]entry) {
	e := &c.Expect
	want := 0
	if e.Exit != nil {
		want = *e.Exit
	}
	if res.ExitCode != want {
		msg := "exit status %d, want %d"
		if res.Stderr != "" && e.Stderr == nil {
			msg += "; stderr:\n" + indent(tail(res.Stderr, 20))
		}
		res.fail(msg, res.ExitCode, want)
	}
	checkStream(res, "stdout", res.Stdout, e.Stdout, e.StdoutContains, e.stdoutRE)
	checkStream(res, "stderr", res.Stderr, e.Stderr, e.StderrContains, e.stderrRE)

	root, err := os.OpenRoot(ws)
	if err != nil {
		res.fail("%v", err)
		return
	}
	defer root.Close()
	for _, name := range sortedKeys(e.Files) {
		rel, _ := relPath(name) // checked when parsed
		got, err := root.ReadFile(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.fail("expected file %s was not created", name)
		case err != nil:
			res.fail("expected file %s: %v", name, safefile.Cause(err))
		case string(got) != e.Files[name]:
			res.fail("file %s differs:\n%s", name, indent(string(diff.Diff("want", []byte(e.Files[name]), "got", got))))
		}
	}
	for _, name := range e.Deleted {
		if _, ok := after[cleanSlash(name)]; ok {
			res.fail("%s was not deleted", name)
		}
	}
	for _, ch := range changes(before, after) {
		if c.expected(ch) || ignored(ch.path, e.Ignore) {
			continue
		}
		res.fail("%s was %s, and no expectation names it (list it under [expect.files], deleted or ignore)", ch.path, ch.what)
	}
}

// expected reports whether a change is one the case names: an expected
// file, a folder one lies in, or a deleted path.
func (c *Case) expected(ch change) bool {
	for name := range c.Expect.Files {
		if within(cleanSlash(name), ch.path) {
			return true
		}
	}
	for _, name := range c.Expect.Deleted {
		if within(ch.path, cleanSlash(name)) {
			return true
		}
	}
	return false
}

// checkStream checks one output stream against its exact, contains and
// matches expectations.
func checkStream(res *Result, name, got string, exact *string, contains []string, re *regexp.Regexp) {
	if exact != nil && got != *exact {
		res.fail("%s differs:\n%s", name, indent(string(diff.Diff("want", []byte(*exact), "got", []byte(got)))))
	}
	for _, s := range contains {
		if !strings.Contains(got, s) {
			res.fail("%s does not contain %q; it is:\n%s", name, s, indent(tail(got, 20)))
		}
	}
	if re != nil && !re.MatchString(got) {
		res.fail("%s does not match %s; it is:\n%s", name, re, indent(tail(got, 20)))
	}
}

// cleanSlash is a checked relative path in slash form.
func cleanSlash(p string) string {
	rel, err := relPath(p)
	if err != nil {
		return p
	}
	return strings.ReplaceAll(rel, "\\", "/")
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > n {
		lines = append([]string{"...\n"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "")
}

// indent indents every line of s by four spaces, as go test does.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (empty)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
