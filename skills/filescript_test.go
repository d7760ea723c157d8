package skills

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileScript(t *testing.T) {
	dir := writeTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
		"SKILL.md":          "---\nname: pub\ndescription: d\n---\nRun scripts/x.py.\n",
		"scripts/x.py":      "print(1)\n",
		"scripts/x.mjs":     "console.log(1)\n",
		"scripts/x.ts":      "let a: number = 1\n",
		"scripts/x.SH":      "echo 1\n",
		"scripts/envpy":     "#!/usr/bin/env -S python3 -u\nprint(1)\n",
		"scripts/binpy":     "#!/usr/bin/python3.11\nprint(1)\n",
		"scripts/nodejs":    "#!/usr/bin/env node\nconsole.log(1)\n",
		"scripts/bash":      "#!/bin/bash\r\necho 1\n",
		"scripts/envvar":    "#!/usr/bin/env LANG=C python3\nprint(1)\n",
		"scripts/ruby":      "#!/usr/bin/env ruby\n",
		"scripts/plain":     "no shebang\n",
		"scripts/empty":     "",
		"scripts/dir.py/.k": "",
	})
	s, err := LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"scripts/x.py": LangPython, "./scripts/x.py": LangPython, "scripts/x.mjs": LangJS,
		"scripts/x.ts": LangTypeScript, "scripts/x.SH": LangShell,
		"scripts/envpy": LangPython, "scripts/binpy": LangPython, "scripts/nodejs": LangJS,
		"scripts/bash": LangShell, "scripts/envvar": LangPython,
	} {
		sc, err := s.FileScript(file)
		if err != nil {
			t.Errorf("FileScript(%q): %v", file, err)
			continue
		}
		if sc.Language != want || sc.Kind != KindSource || sc.Source != strings.TrimPrefix(file, "./") || sc.Name != sc.Source {
			t.Errorf("FileScript(%q) = %+v; want a source script in %s", file, sc, want)
		}
	}
	for file, want := range map[string]string{
		"scripts/ruby":        `its #! line "/usr/bin/env ruby" names no interpreter skillrun has`,
		"scripts/plain":       "no known extension",
		"scripts/empty":       "no known extension",
		"scripts/missing.py":  "no such file",
		"scripts/dir.py":      "not a regular file",
		"../pub/scripts/x.py": `contains ".."`,
		"/etc/passwd":         "is absolute",
		"":                    "invalid argument",
	} {
		_, err := s.FileScript(file)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FileScript(%q) = %v; want an error containing %q", file, err, want)
		}
	}
	if _, err := s.FileScript("scripts/ruby"); !errors.Is(err, ErrUnknownLanguage) {
		t.Errorf("an unknown #! line: %v; want ErrUnknownLanguage", err)
	}
	if _, err := s.FileScript("../x.py"); !errors.Is(err, ErrOutsideSkill) {
		t.Errorf(`"..": %v; want ErrOutsideSkill`, err)
	}
	var pe *fs.PathError
	if _, err := s.FileScript("scripts/missing.py"); !errors.As(err, &pe) || pe.Path != "scripts/missing.py" {
		t.Errorf("a missing file: %v; want a PathError naming it", err)
	}
}

// TestFileScriptManifest: a file skill.toml lists is that script, with
// its name and capabilities; other files are found as files.
func TestFileScriptManifest(t *testing.T) {
	dir := writeTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
		"SKILL.md":          "---\nname: pub\ndescription: d\n---\n",
		"skill.toml":        "version = 1\n[scripts.report]\nsource = \"scripts/report.py\"\n[scripts.report.capabilities]\nenv = [\"LANG\"]\n",
		"scripts/report.py": "print(1)\n",
		"scripts/other.js":  "1\n",
	})
	s, err := LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := s.FileScript("scripts/report.py")
	if err != nil || sc.Name != "report" || len(sc.Capabilities.Env) != 1 {
		t.Fatalf("the listed file: %+v, %v; want the manifest's script report", sc, err)
	}
	sc, err = s.FileScript("scripts/other.js")
	if err != nil || sc.Name != "scripts/other.js" || sc.Language != LangJS {
		t.Fatalf("an unlisted file: %+v, %v", sc, err)
	}
}

func TestIsFileScriptName(t *testing.T) {
	for name, want := range map[string]bool{"stats": false, "fill-form_2": false, "scripts/x.py": true, "x.py": true, "tool": false} {
		if got := IsFileScriptName(name); got != want {
			t.Errorf("IsFileScriptName(%q) = %v", name, got)
		}
	}
}

// TestFileScripts: the script files of scripts/ are listed as runnable,
// helpers and non-scripts are not, and skill.toml's scripts come first.
func TestFileScripts(t *testing.T) {
	dir := writeTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
		"SKILL.md":             "---\nname: pub\ndescription: d\n---\n",
		"skill.toml":           "version = 1\n[scripts.report]\nsource = \"scripts/report.py\"\n",
		"scripts/report.py":    "print(1)\n",
		"scripts/fill_form.py": "print(1)\n",
		"scripts/build.js":     "1\n",
		"scripts/run":          "#!/bin/sh\necho\n",
		"scripts/__init__.py":  "",
		"scripts/_helpers.py":  "",
		"scripts/.hidden.py":   "",
		"scripts/README.md":    "# notes\n",
		"scripts/sub/deep.py":  "print(1)\n",
		"top.py":               "print(1)\n",
	})
	s, err := LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.RunnableScripts()
	want := []string{"report", "scripts/build.js", "scripts/fill_form.py", "scripts/run"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RunnableScripts() = %q; want %q", got, want)
	}
	if n := len((&Skill{Name: "x"}).FileScripts()); n != 0 {
		t.Errorf("a constructed skill has %d file scripts", n)
	}
}
