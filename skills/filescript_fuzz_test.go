package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzFileScript: whatever path and first bytes a skill's file has, the
// script FileScript returns (if any) is a clean path inside the skill in
// a language skillrun knows, and nothing panics.
func FuzzFileScript(f *testing.F) {
	for _, seed := range []struct{ name, head string }{
		{"scripts/f", "#!/usr/bin/env python3\n"},
		{"scripts/f", "#!/usr/bin/env -S node --x\n"},
		{"../x.py", ""},
		{"scripts/../scripts/f", "#!/bin/bash"},
		{"/etc/passwd", ""},
		{"scripts/f", "#!"},
		{"scripts/f", "#!   \n"},
		{"scripts\\f", ""},
		{"scripts/f\x00.py", ""},
	} {
		f.Add(seed.name, []byte(seed.head))
	}
	dir := filepath.Join(f.TempDir(), "pub")
	require.NoError(f, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(f, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pub\ndescription: d\n---\n"), 0o644))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "f"), head, 0o644))
		s, err := LoadDir(dir, nil)
		require.NoError(t, err)
		sc, err := s.FileScript(name)
		if err != nil {
			return
		}
		if !fs.ValidPath(sc.Source) || strings.Contains(sc.Source, "..") || sc.Source == "." {
			t.Fatalf("FileScript(%q) = source %q: not a clean path inside the skill", name, sc.Source)
		}
		switch sc.Language {
		case LangPython, LangJS, LangTypeScript, LangShell:
		default:
			t.Fatalf("FileScript(%q) = language %q", name, sc.Language)
		}
		_, _ = languageOfShebang(head)
	})
}
