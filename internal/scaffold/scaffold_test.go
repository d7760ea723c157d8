package scaffold

import (
	"bytes"
	"go/format"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFiles(t *testing.T) {
	want := map[string][]string{
		"python": {"SKILL.md", "scripts/count.py", "tests/count.txtar"},
		"js":     {"SKILL.md", "scripts/count.js", "tests/count.txtar"},
		"shell":  {"SKILL.md", "scripts/count.sh", "tests/count.txtar"},
		"go":     {"SKILL.md", "skill.toml", "src/go.mod", "src/main.go", "tests/count.txtar"},
		"c":      {"SKILL.md", "skill.toml", "src/count.c", "tests/count.txtar"},
		"rust":   {"SKILL.md", "skill.toml", "src/main.rs", "tests/count.txtar"},
	}
	assert.Equal(t, []string{"python", "js", "shell", "go", "c", "rust"}, Langs(), "Langs")
	for _, lang := range Langs() {
		t.Run(lang, func(t *testing.T) {
			files, err := Files("word-tally", lang)
			require.NoError(t, err)
			var paths []string
			byPath := map[string]File{}
			for _, f := range files {
				paths = append(paths, f.Path)
				byPath[f.Path] = f
				assert.NotContains(t, string(f.Data), "{{", "%s: a template action is left", f.Path)
				assert.NotContains(t, string(f.Data), "<no value>", "%s: a template action is left", f.Path)
				wantMode := fs.FileMode(0o644)
				if strings.HasPrefix(f.Path, "scripts/") {
					wantMode = 0o755
					assert.True(t, bytes.HasPrefix(f.Data, []byte("#!")), "%s is executable but has no #! line", f.Path)
				}
				assert.Equal(t, wantMode, f.Mode, "%s: mode", f.Path)
			}
			assert.Equal(t, want[lang], paths, "files")
			md := string(byPath["SKILL.md"].Data)
			assert.True(t, strings.HasPrefix(md, "---\nname: word-tally\ndescription: "), "SKILL.md starts %q", md[:min(len(md), 60)])
			l, _ := LookupLang(lang)
			run := "`" + l.runner + " " + l.Script + " FILE...`"
			if l.Build {
				run = "`skillrun run word-tally:count --allow-read=workspace -- FILE...`"
			}
			assert.Contains(t, md, run, "SKILL.md does not say how to run the skill")
			assert.Contains(t, string(byPath["tests/count.txtar"].Data), "script = \""+l.Script+"\"\n", "tests/count.txtar does not run %q", l.Script)
			assert.Equal(t, l.Build, slices.Contains(paths, "skill.toml"), "Build is %v, but skill.toml is in %v", l.Build, paths)
			if lang == "go" {
				got := string(byPath["src/go.mod"].Data)
				assert.True(t, strings.HasPrefix(got, "module example.com/word-tally\n"), "go.mod: %q", got)
				src := byPath["src/main.go"].Data
				formatted, err := format.Source(src)
				if assert.NoError(t, err, "main.go is not gofmt-clean") {
					assert.Equal(t, string(formatted), string(src), "main.go is not gofmt-clean")
				}
			}
		})
	}
}

func TestFilesUnknownLang(t *testing.T) {
	_, err := Files("x", "cobol")
	assert.ErrorContains(t, err, `unknown language "cobol": use one of python, js, shell, go, c, rust`, "Files(cobol)")
	_, ok := LookupLang("Python")
	assert.False(t, ok, "LookupLang is case-insensitive; want exact names")
}
