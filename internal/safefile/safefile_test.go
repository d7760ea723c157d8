//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAppendRefusesPlantedFiles plants, in a folder standing for a
// cloned repository, each thing a hostile project could put where
// skillrun appends its own records, and checks that nothing reaches the
// victim file and that the error says what is there.
func TestOpenAppendRefusesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("export PS1='$ '\n"), 0o644))
	repo := filepath.Join(dir, "repo")
	require.NoError(t, os.Mkdir(repo, 0o755))
	must := func(err error) {
		t.Helper()
		require.NoError(t, err)
	}
	must(os.Symlink("../victim", filepath.Join(repo, "link.jsonl")))
	must(os.Symlink("../nowhere", filepath.Join(repo, "dangling.jsonl")))
	must(os.Link(victim, filepath.Join(repo, "hard.jsonl")))
	must(os.Mkdir(filepath.Join(repo, "dir.jsonl"), 0o755))
	must(syscall.Mkfifo(filepath.Join(repo, "fifo.jsonl"), 0o644))

	tests := []struct{ name, want string }{
		{"link.jsonl", "it is a symlink"},
		{"dangling.jsonl", "it is a symlink"},
		{"hard.jsonl", "a hard link"},
		{"dir.jsonl", "a directory"},
		{"fifo.jsonl", "a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(repo, tt.name)
			f, err := OpenAppend(p)
			if err == nil {
				f.WriteString("pwned\n")
				f.Close()
			}
			require.Error(t, err, "OpenAppend(%s) succeeded", tt.name)
			assert.ErrorIs(t, err, ErrNotOwnFile, "OpenAppend(%s)", tt.name)
			assert.ErrorContains(t, err, tt.want, "OpenAppend(%s)", tt.name)
			assert.ErrorContains(t, err, p, "OpenAppend(%s): want the path named", tt.name)
		})
	}
	got, err := os.ReadFile(victim)
	must(err)
	assert.Equal(t, "export PS1='$ '\n", string(got), "the victim changed")
	_, err = os.Lstat(filepath.Join(dir, "nowhere"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the dangling link's target was created")
}

// TestOpenAppend checks what OpenAppend must allow: a new file (created
// 0600), an existing one (appended to, never truncated), a character
// device and a standard stream by name.
func TestOpenAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(p)
		require.NoError(t, err)
		_, err = f.WriteString(line)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\n", string(got), "file content, want both lines")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	perm := fi.Mode().Perm()
	assert.Zero(t, perm&0o077, "created with mode %v, want no access for group or others", perm)

	for _, name := range []string{"/dev/null", "/dev/stderr", "/dev/fd/2"} {
		f, err := OpenAppend(name)
		if !assert.NoError(t, err, "OpenAppend(%s)", name) {
			continue
		}
		_, err = f.Write(nil)
		assert.NoError(t, err, "writing %s", name)
		f.Close()
	}
}

// TestOpenAppendFullDisk writes to /dev/full, a character device that
// fails every write with ENOSPC, as a full disk does: opening is allowed
// and the write error is an error, not a crash.
func TestOpenAppendFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	f, err := OpenAppend("/dev/full")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("x\n")
	assert.ErrorIs(t, err, syscall.ENOSPC, "writing /dev/full")
}

// TestCause: a path error gives its cause; any other error is itself.
func TestCause(t *testing.T) {
	_, err := os.Open(filepath.Join(t.TempDir(), "missing"))
	require.Error(t, err)
	assert.ErrorIs(t, Cause(err), fs.ErrNotExist)
	assert.NotContains(t, Cause(err).Error(), "missing")
	other := errors.New("other")
	assert.Same(t, other, Cause(other))
	assert.NoError(t, Cause(nil))
}
