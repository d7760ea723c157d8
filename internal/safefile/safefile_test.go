//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenAppendRefusesPlantedFiles plants, in a folder standing for a
// cloned repository, each thing a hostile project could put where
// skillrun appends its own records, and checks that nothing reaches the
// victim file and that the error says what is there.
func TestOpenAppendRefusesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("export PS1='$ '\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
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
				t.Fatalf("OpenAppend(%s) succeeded", tt.name)
			}
			if !errors.Is(err, ErrNotOwnFile) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("OpenAppend(%s) = %v, want an ErrNotOwnFile naming the path and saying %q", tt.name, err, tt.want)
			}
		})
	}
	got, err := os.ReadFile(victim)
	must(err)
	if string(got) != "export PS1='$ '\n" {
		t.Errorf("the victim changed: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
}

// TestOpenAppend checks what OpenAppend must allow: a new file (created
// 0600), an existing one (appended to, never truncated), a character
// device and a standard stream by name.
func TestOpenAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "one\ntwo\n" {
		t.Errorf("file holds %q, want both lines", got)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("created with mode %v, want no access for group or others", perm)
	}

	for _, name := range []string{"/dev/null", "/dev/stderr", "/dev/fd/2"} {
		f, err := OpenAppend(name)
		if err != nil {
			t.Errorf("OpenAppend(%s): %v", name, err)
			continue
		}
		if _, err := f.Write(nil); err != nil {
			t.Errorf("writing %s: %v", name, err)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("x\n"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writing /dev/full: %v, want ENOSPC", err)
	}
}
