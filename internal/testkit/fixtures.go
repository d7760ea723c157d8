package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// EscapeFixture returns a workspace with a secret next to it, and links in it
// that point out.
func EscapeFixture(t testing.TB) (workspace string) {
	t.Helper()
	base := t.TempDir()
	workspace = filepath.Join(base, "workspace")
	secret := filepath.Join(base, "secret.txt")
	for _, err := range []error{
		os.Mkdir(workspace, 0o755),
		os.Mkdir(filepath.Join(workspace, "sub"), 0o755),
		os.WriteFile(secret, []byte("SECRET"), 0o644),
		os.WriteFile(filepath.Join(workspace, "ok.txt"), []byte("fine"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"rel":    "../secret.txt",
		"abs":    secret,
		"parent": "..",
		"root":   "/",
		"sub/up": "../../secret.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(workspace, name)); err != nil {
			t.Skipf("cannot create symlinks here: %v", err)
		}
	}
	return workspace
}
