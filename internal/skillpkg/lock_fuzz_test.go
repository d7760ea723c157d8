package skillpkg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadLock: any lock file is read or refused with an error, never a
// panic; what is accepted has only checked entries and writes back to a
// lock that reads the same.
func FuzzReadLock(f *testing.F) {
	f.Add([]byte(`{"version": 1, "skills": {}}`))
	f.Add([]byte(`{"version": 1, "skills": {"pdf": {"source": "anthropics/skills", "sourceType": "github", "computedHash": "sha256:` +
		strings.Repeat("0", 64) + `", "url": "https://github.com/anthropics/skills.git", "ref": "", "commit": "` +
		strings.Repeat("a", 40) + `", "skillPath": "skills/pdf"}}}`))
	f.Add([]byte(`{"version": 1, "skills": {"x": {"skillPath": "../../etc"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), LockFile)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := ReadLock(file)
		if err != nil {
			return
		}
		if err := l.Write(file); err != nil {
			t.Fatalf("an accepted lock does not write back: %v", err)
		}
		if _, err := ReadLock(file); err != nil {
			t.Fatalf("an accepted lock, written back, is refused: %v", err)
		}
	})
}

// FuzzParseSource: any SOURCE argument is parsed or refused, never a
// panic.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"owner/repo", "owner/repo@v1", "https://example.com/x.git@main", "git@host:x/y.git@v2", "./local", "file:///tmp/r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSource(s)
	})
}
