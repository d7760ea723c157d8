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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTarRoundTrip(t *testing.T) {
	dir := setup(t, fixture{"src/a": "hi\n", "src/sub/b": "yo\n", "other/c": "c\n"})
	// Old-style bundled options, gzip, and -C between operands.
	r := run(t, dir, "", "tar", "czvf", "t.tgz", "src", "-C", "other", "c")
	require.Zero(t, r.code, "create: %+v", r)
	require.Equal(t, "src/\nsrc/a\nsrc/sub/\nsrc/sub/b\nc\n", r.stdout, "create: %+v", r)
	// Compression is detected when reading, as GNU tar does.
	r = run(t, dir, "", "tar", "-tf", "t.tgz")
	assert.Equal(t, "src/\nsrc/a\nsrc/sub/\nsrc/sub/b\nc\n", r.stdout, "list: %+v", r)
	r = run(t, dir, "", "tar", "-tvzf", "t.tgz", "src/a")
	assert.Regexp(t, `^-rw-r--r-- user/user {9}3 \d{4}-\d\d-\d\d \d\d:\d\d src/a\n$`, r.stdout, "list -v")
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	r = run(t, dir, "", "tar", "-xzf", "t.tgz", "-C", "out", "--strip-components=1")
	require.Zero(t, r.code, "extract: %+v", r)
	require.Empty(t, r.stderr, "extract: %+v", r)
	for name, want := range map[string]string{"out/a": "hi\n", "out/sub/b": "yo\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if assert.NoError(t, err, name) {
			assert.Equal(t, want, string(b), name)
		}
	}
	r = run(t, dir, "", "tar", "xOf", "t.tgz", "src/sub/b")
	assert.Equal(t, "yo\n", r.stdout, "-O: %+v", r)
	r = run(t, dir, "", "tar", "tf", "t.tgz", "nothere")
	assert.Equal(t, "tar: nothere: Not found in archive\ntar: Exiting with failure status due to previous errors\n", r.stderr, "missing member: %+v", r)
	assert.Equal(t, 2, r.code, "missing member: %+v", r)
	r = run(t, dir, "", "tar", "cf", "e.tar")
	assert.Equal(t, "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n", r.stderr, "empty: %+v", r)
	assert.Equal(t, 2, r.code, "empty: %+v", r)
	r = run(t, dir, "", "tar", "xf", "nope.tar")
	assert.Equal(t, "tar: nope.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n", r.stderr, "no archive: %+v", r)
	assert.Equal(t, 2, r.code, "no archive: %+v", r)
}

func TestGzipRoundTrip(t *testing.T) {
	dir := setup(t, fixture{"g": "hello\n", "notgz.gz": "zz\n"})
	require.Equal(t, result{}, run(t, dir, "", "gzip", "g"), "gzip")
	_, err := os.Stat(filepath.Join(dir, "g"))
	assert.ErrorIs(t, err, os.ErrNotExist, "g not replaced")
	fi, err := os.Stat(filepath.Join(dir, "g.gz"))
	if assert.NoError(t, err, "g.gz") {
		assert.True(t, fi.ModTime().Equal(fixedTime), "g.gz modified at %v, want %v", fi.ModTime(), fixedTime)
	}
	r := run(t, dir, "", "zcat", "g.gz")
	assert.Equal(t, "hello\n", r.stdout, "zcat: %+v", r)
	r = run(t, dir, "", "gzip", "g.gz")
	assert.Equal(t, "gzip: g.gz already has .gz suffix -- unchanged\n", r.stderr, "suffix: %+v", r)
	assert.Zero(t, r.code, "suffix: %+v", r)
	gz, _ := os.ReadFile(filepath.Join(dir, "g.gz"))
	os.WriteFile(filepath.Join(dir, "h.gz"), append(gz, "xx"...), 0o644)
	r = run(t, dir, "", "gunzip", "h.gz")
	assert.Equal(t, "\ngzip: h.gz: decompression OK, trailing garbage ignored\n", r.stderr, "garbage: %+v", r)
	assert.Equal(t, 2, r.code, "garbage: %+v", r)
	r = run(t, dir, "", "gunzip", "notgz.gz")
	assert.Equal(t, "\ngzip: notgz.gz: not in gzip format\n", r.stderr, "not gzip: %+v", r)
	assert.Equal(t, 1, r.code, "not gzip: %+v", r)
	assert.Equal(t, result{}, run(t, dir, "", "gunzip", "g"), "gunzip g (finds g.gz)")
	b, _ := os.ReadFile(filepath.Join(dir, "g"))
	assert.Equal(t, "hello\n", string(b), "gunzip")
	r = run(t, dir, "", "gzip", "-k", "g")
	assert.Zero(t, r.code, "-k: %+v", r)
	r = run(t, dir, "", "gzip", "g")
	assert.Equal(t, "gzip: g.gz already exists;\tnot overwritten\n", r.stderr, "exists: %+v", r)
	assert.Equal(t, 2, r.code, "exists: %+v", r)
	var out bytes.Buffer
	e := newEnv(dir, "stream\n", &out, &out)
	gzipCmd(e, []string{"gzip"})
	r = run(t, dir, out.String(), "gzip", "-d")
	assert.Equal(t, "stream\n", r.stdout, "pipe: %+v", r)
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
		assert.Equal(t, c.want, run(t, dir, c.stdin, c.args...), "%v", c.args)
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
		assert.NotZero(t, code, "cancelled sleep succeeded")
	case <-time.After(5 * time.Second):
		require.FailNow(t, "sleep ignored cancellation")
	}
	assert.True(t, wait(newEnv("", "", &out, &out), 0.001), "short sleep failed")
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
	assert.Equal(t, 1, yes(e, []string{"yes", "x"}), "exit code")
}

func TestMktemp(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "mktemp")
	require.Regexp(t, `^`+regexp.QuoteMeta(dir)+`/tmp\.[A-Za-z0-9]{10}\n$`, r.stdout, "default: %+v", r)
	fi, err := os.Stat(strings.TrimSpace(r.stdout))
	if assert.NoError(t, err, "file") {
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "file permissions")
	}
	r = run(t, dir, "", "mktemp", "-d", "-p", dir, "work.XXXX")
	fi, err = os.Stat(strings.TrimSpace(r.stdout))
	if assert.NoError(t, err, "-d: %+v", r) {
		assert.True(t, fi.IsDir(), "-d: %+v", r)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "-d: %+v", r)
	}
	r = run(t, dir, "", "mktemp", "-u", "x.XXX.txt")
	assert.Regexp(t, `^x\.[A-Za-z0-9]{3}\.txt\n$`, r.stdout, "-u with suffix: %+v", r)
}

func TestCpPreserveAndMv(t *testing.T) {
	dir := setup(t, fixture{"a": "data", "d/": ""})
	os.Chmod(filepath.Join(dir, "a"), 0o640)
	require.Equal(t, result{}, run(t, dir, "", "cp", "-p", "a", "d"), "cp -p")
	fi, err := os.Stat(filepath.Join(dir, "d/a"))
	if assert.NoError(t, err, "cp -p") {
		assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "cp -p: permissions")
		assert.True(t, fi.ModTime().Equal(fixedTime), "cp -p: modified at %v, want %v", fi.ModTime(), fixedTime)
	}
	r := run(t, dir, "", "mv", "a", "d/a", "d")
	assert.Equal(t, "mv: 'd/a' and 'd/a' are the same file\n", r.stderr, "mv: %+v", r)
	assert.Equal(t, 1, r.code, "mv: %+v", r)
	assert.Equal(t, result{}, run(t, dir, "", "mv", "d", "e"), "mv dir")
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
		assert.Equal(t, want, strftime(tm, format), "%q", format)
	}
	l := location("EST5", nil)
	assert.Equal(t, "04 EST -0500", strftime(tm.In(l), "%H %Z %z"), "EST5")

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
