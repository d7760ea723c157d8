package skills

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileScript(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
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
	require.NoError(t, err)
	for file, want := range map[string]string{
		"scripts/x.py": LangPython, "./scripts/x.py": LangPython, "scripts/x.mjs": LangJS,
		"scripts/x.ts": LangTypeScript, "scripts/x.SH": LangShell,
		"scripts/envpy": LangPython, "scripts/binpy": LangPython, "scripts/nodejs": LangJS,
		"scripts/bash": LangShell, "scripts/envvar": LangPython,
	} {
		sc, err := s.FileScript(file)
		if !assert.NoError(t, err, "FileScript(%q)", file) {
			continue
		}
		assert.Equal(t, want, sc.Language, "FileScript(%q): language", file)
		assert.Equal(t, KindSource, sc.Kind, "FileScript(%q): want a source script", file)
		assert.Equal(t, strings.TrimPrefix(file, "./"), sc.Source, "FileScript(%q): source", file)
		assert.Equal(t, sc.Source, sc.Name, "FileScript(%q): name", file)
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
		assert.ErrorContains(t, err, want, "FileScript(%q)", file)
	}
	_, err = s.FileScript("scripts/ruby")
	assert.ErrorIs(t, err, errUnknownLanguage, "an unknown #! line")
	_, err = s.FileScript("../x.py")
	assert.ErrorIs(t, err, ErrOutsideSkill, `".."`)
	var pe *fs.PathError
	_, err = s.FileScript("scripts/missing.py")
	if assert.ErrorAs(t, err, &pe, "a missing file; want a PathError naming it") {
		assert.Equal(t, "scripts/missing.py", pe.Path, "a missing file; want a PathError naming it")
	}
}

// TestFileScriptManifest: a file skill.toml lists is that script, with
// its name and capabilities; other files are found as files.
func TestFileScriptManifest(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
		"SKILL.md":          "---\nname: pub\ndescription: d\n---\n",
		"skill.toml":        "version = 1\n[scripts.report]\nsource = \"scripts/report.py\"\n[scripts.report.capabilities]\nenv = [\"LANG\"]\n",
		"scripts/report.py": "print(1)\n",
		"scripts/other.js":  "1\n",
	})
	s, err := LoadDir(dir, nil)
	require.NoError(t, err)
	sc, err := s.FileScript("scripts/report.py")
	require.NoError(t, err, "the listed file")
	require.Equal(t, "report", sc.Name, "the listed file; want the manifest's script report")
	require.Len(t, sc.Capabilities.Env, 1, "the listed file; want the manifest's script report")
	sc, err = s.FileScript("scripts/other.js")
	require.NoError(t, err, "an unlisted file")
	require.Equal(t, "scripts/other.js", sc.Name, "an unlisted file")
	require.Equal(t, LangJS, sc.Language, "an unlisted file")
}

func TestIsFileScriptName(t *testing.T) {
	for name, want := range map[string]bool{"stats": false, "fill-form_2": false, "scripts/x.py": true, "x.py": true, "tool": false} {
		assert.Equal(t, want, IsFileScriptName(name), "IsFileScriptName(%q)", name)
	}
}

// TestFileScripts: the script files of scripts/ are listed as runnable,
// helpers and non-scripts are not, and skill.toml's scripts come first.
func TestFileScripts(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pub"), map[string]string{
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
	require.NoError(t, err)
	got := s.RunnableScripts()
	want := []string{"report", "scripts/build.js", "scripts/fill_form.py", "scripts/run"}
	assert.Equal(t, want, got, "RunnableScripts()")
	assert.Empty(t, (&Skill{Name: "x"}).FileScripts(), "a constructed skill has file scripts")
}
