package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddExitCodes: 0 installed, 1 a failure, 2 a usage error.
func TestAddExitCodes(t *testing.T) {
	src := filepath.Join(t.TempDir(), "plain")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: plain\ndescription: A plain folder skill.\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "skills")
	lock := filepath.Join(t.TempDir(), "lock.json")
	tests := []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{[]string{"add", src}, 0, "added plain from"},
		{[]string{"verify"}, 0, "plain: ok"},
		{[]string{"add", src}, 0, "added plain"}, // the same source again re-pins
		{[]string{"add", "ftp://example.com/x"}, 2, "unsupported scheme"},
		{[]string{"add", src, "--skill", "zz"}, 1, `no skill "zz"`},
		{[]string{"add", "--user", "--dir", dir}, 2, "--user and --dir"},
		{[]string{"install", "--frozen"}, 0, "plain: ok"},
		{[]string{"verify", "extra-arg"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		args := append(tt.args, "--dir", dir, "--lock", lock)
		if got := run(args, strings.NewReader(""), &out, &out); got != tt.code || !strings.Contains(out.String(), tt.want) {
			t.Errorf("skillrun %s: exit %d, want %d; output (want %q):\n%s", strings.Join(tt.args, " "), got, tt.code, tt.want, out.String())
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "plain")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if got := run([]string{"verify", "--dir", dir, "--lock", lock}, strings.NewReader(""), &out, &out); got != 1 || !strings.Contains(out.String(), "plain: missing") {
		t.Errorf("verify of a missing skill: exit %d\n%s", got, out.String())
	}
	if _, err := exec.LookPath("git"); err == nil {
		out.Reset()
		if got := run([]string{"add", "file://" + src + "-missing", "--dir", dir, "--lock", lock}, strings.NewReader(""), &out, &out); got != 1 {
			t.Errorf("add of a missing repository: exit %d\n%s", got, out.String())
		}
	}
}
