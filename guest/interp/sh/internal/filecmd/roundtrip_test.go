package filecmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTarRoundTrip(t *testing.T) {
	dir := setup(t, fixture{"src/a": "hi\n", "src/sub/b": "yo\n", "other/c": "c\n"})
	// Old-style bundled options, gzip, and -C between operands.
	r := run(t, dir, "", "tar", "czvf", "t.tgz", "src", "-C", "other", "c")
	if r.code != 0 || r.stdout != "src/\nsrc/a\nsrc/sub/\nsrc/sub/b\nc\n" {
		t.Fatalf("create: %+v", r)
	}
	// Compression is detected when reading, as GNU tar does.
	r = run(t, dir, "", "tar", "-tf", "t.tgz")
	if r.stdout != "src/\nsrc/a\nsrc/sub/\nsrc/sub/b\nc\n" {
		t.Errorf("list: %+v", r)
	}
	r = run(t, dir, "", "tar", "-tvzf", "t.tgz", "src/a")
	if !regexp.MustCompile(`^-rw-r--r-- user/user {9}3 \d{4}-\d\d-\d\d \d\d:\d\d src/a\n$`).MatchString(r.stdout) {
		t.Errorf("list -v: %q", r.stdout)
	}
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	r = run(t, dir, "", "tar", "-xzf", "t.tgz", "-C", "out", "--strip-components=1")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("extract: %+v", r)
	}
	for name, want := range map[string]string{"out/a": "hi\n", "out/sub/b": "yo\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	r = run(t, dir, "", "tar", "xOf", "t.tgz", "src/sub/b")
	if r.stdout != "yo\n" {
		t.Errorf("-O: %+v", r)
	}
	r = run(t, dir, "", "tar", "tf", "t.tgz", "nothere")
	if r.stderr != "tar: nothere: Not found in archive\ntar: Exiting with failure status due to previous errors\n" || r.code != 2 {
		t.Errorf("missing member: %+v", r)
	}
	r = run(t, dir, "", "tar", "cf", "e.tar")
	if r.stderr != "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n" || r.code != 2 {
		t.Errorf("empty: %+v", r)
	}
	r = run(t, dir, "", "tar", "xf", "nope.tar")
	if r.stderr != "tar: nope.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n" || r.code != 2 {
		t.Errorf("no archive: %+v", r)
	}
}

func TestGzipRoundTrip(t *testing.T) {
	dir := setup(t, fixture{"g": "hello\n", "notgz.gz": "zz\n"})
	if r := run(t, dir, "", "gzip", "g"); r != (result{}) {
		t.Fatalf("gzip: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "g")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("g not replaced")
	}
	fi, err := os.Stat(filepath.Join(dir, "g.gz"))
	if err != nil || !fi.ModTime().Equal(fixedTime) {
		t.Errorf("g.gz: %v %v", fi, err)
	}
	if r := run(t, dir, "", "zcat", "g.gz"); r.stdout != "hello\n" {
		t.Errorf("zcat: %+v", r)
	}
	if r := run(t, dir, "", "gzip", "g.gz"); r.stderr != "gzip: g.gz already has .gz suffix -- unchanged\n" || r.code != 0 {
		t.Errorf("suffix: %+v", r)
	}
	gz, _ := os.ReadFile(filepath.Join(dir, "g.gz"))
	os.WriteFile(filepath.Join(dir, "h.gz"), append(gz, "xx"...), 0o644)
	if r := run(t, dir, "", "gunzip", "h.gz"); r.stderr != "\ngzip: h.gz: decompression OK, trailing garbage ignored\n" || r.code != 2 {
		t.Errorf("garbage: %+v", r)
	}
	if r := run(t, dir, "", "gunzip", "notgz.gz"); r.stderr != "\ngzip: notgz.gz: not in gzip format\n" || r.code != 1 {
		t.Errorf("not gzip: %+v", r)
	}
	if r := run(t, dir, "", "gunzip", "g"); r != (result{}) {
		t.Errorf("gunzip g (finds g.gz): %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "g")); string(b) != "hello\n" {
		t.Errorf("gunzip: %q", b)
	}
	if r := run(t, dir, "", "gzip", "-k", "g"); r.code != 0 {
		t.Errorf("-k: %+v", r)
	}
	if r := run(t, dir, "", "gzip", "g"); r.stderr != "gzip: g.gz already exists;\tnot overwritten\n" || r.code != 2 {
		t.Errorf("exists: %+v", r)
	}
	var out bytes.Buffer
	e := newEnv(dir, "stream\n", &out, &out)
	gzipCmd(e, []string{"gzip"})
	if r := run(t, dir, out.String(), "gzip", "-d"); r.stdout != "stream\n" {
		t.Errorf("pipe: %+v", r)
	}
}

func TestXargsStatus(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		stdin string
		want  result
	}{
		{[]string{"xargs", "false"}, "a\n", result{"", "", 123}},
		{[]string{"xargs", "nope"}, "a\n", result{"", "xargs: nope: No such file or directory\n", 127}},
		{[]string{"xargs", "exit255"}, "a\nb\n", result{"", "xargs: exit255: exited with status 255; aborting\n", 124}},
		{[]string{"xargs", "-n1", "cat"}, "nope\n", result{"", "cat: nope: No such file or directory\n", 123}},
	} {
		if r := run(t, dir, c.stdin, c.args...); r != c.want {
			t.Errorf("%v: got %+v, want %+v", c.args, r, c.want)
		}
	}
}

func TestSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	e := newEnv(t.TempDir(), "", &out, &out)
	e.Ctx = ctx
	done := make(chan int)
	go func() { done <- sleep(e, []string{"sleep", "1h"}) }()
	cancel()
	select {
	case code := <-done:
		if code == 0 {
			t.Error("cancelled sleep succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("sleep ignored cancellation")
	}
	if !wait(newEnv("", "", &out, &out), 0.001) {
		t.Error("short sleep failed")
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n++; w.n > 3 {
		return 0, errors.New("broken pipe")
	}
	return len(p), nil
}

func TestYesStopsOnWriteError(t *testing.T) {
	e := newEnv("", "", &failWriter{}, &bytes.Buffer{})
	if code := yes(e, []string{"yes", "x"}); code != 1 {
		t.Errorf("exit %d", code)
	}
}

func TestMktemp(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "mktemp")
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(dir) + `/tmp\.[A-Za-z0-9]{10}\n$`).MatchString(r.stdout) {
		t.Fatalf("default: %+v", r)
	}
	if fi, err := os.Stat(strings.TrimSpace(r.stdout)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v %v", fi, err)
	}
	r = run(t, dir, "", "mktemp", "-d", "-p", dir, "work.XXXX")
	fi, err := os.Stat(strings.TrimSpace(r.stdout))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("-d: %+v %v", r, err)
	}
	r = run(t, dir, "", "mktemp", "-u", "x.XXX.txt")
	if !regexp.MustCompile(`^x\.[A-Za-z0-9]{3}\.txt\n$`).MatchString(r.stdout) {
		t.Errorf("-u with suffix: %+v", r)
	}
}

func TestCpPreserveAndMv(t *testing.T) {
	dir := setup(t, fixture{"a": "data", "d/": ""})
	os.Chmod(filepath.Join(dir, "a"), 0o640)
	if r := run(t, dir, "", "cp", "-p", "a", "d"); r != (result{}) {
		t.Fatalf("%+v", r)
	}
	fi, err := os.Stat(filepath.Join(dir, "d/a"))
	if err != nil || fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(fixedTime) {
		t.Errorf("cp -p: %v %v", fi, err)
	}
	if r := run(t, dir, "", "mv", "a", "d/a", "d"); r.stderr != "mv: 'd/a' and 'd/a' are the same file\n" || r.code != 1 {
		t.Errorf("mv: %+v", r)
	}
	if r := run(t, dir, "", "mv", "d", "e"); r != (result{}) {
		t.Errorf("mv dir: %+v", r)
	}
}

func TestDateFixed(t *testing.T) {
	tm := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for format, want := range map[string]string{
		"%a %b %e %H:%M:%S %Z %Y": "Thu Nov 26 09:00:00 UTC 2026",
		"%j %U %W %V %G %u %w":    "330 47 47 48 2026 4 4",
		"%-m/%-d %I%p %l%P":       "11/26 09AM  9am",
		"%10s|%-N|%3N":            "1795683600|000000000|000",
		"%:::z %^b %#b %Ey %Om":   "+00 NOV NOV 26 11",
	} {
		if got := strftime(tm, format); got != want {
			t.Errorf("%q: got %q, want %q", format, got, want)
		}
	}
	if l := location("EST5", nil); strftime(tm.In(l), "%H %Z %z") != "04 EST -0500" {
		t.Errorf("EST5: %s", strftime(tm.In(l), "%H %Z %z"))
	}
}

// FuzzDate feeds arbitrary formats and date strings: formatting and
// parsing must not panic, and text without '%' must come back unchanged.
func FuzzDate(f *testing.F) {
	for _, s := range []string{"%Y-%m-%d", "%_10A%-e%:::z", "%", "%5", "%^#Z", "2024-01-15 10:30", "next monday", "@1.5", "Jan 5 2024 3pm", "1 day ago"} {
		f.Add(s, int64(1795683600))
	}
	f.Fuzz(func(t *testing.T, s string, sec int64) {
		tm := time.Unix(sec%(1<<40), 0).UTC()
		out := strftime(tm, s)
		if !strings.Contains(s, "%") && out != s {
			t.Fatalf("%q became %q", s, out)
		}
		parseDate(s, tm, time.UTC)
	})
}
