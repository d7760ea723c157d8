package scaffold

import (
	"bytes"
	"go/format"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	if diff := cmp.Diff([]string{"python", "js", "shell", "go", "c", "rust"}, Langs()); diff != "" {
		t.Errorf("Langs mismatch (-want +got):\n%s", diff)
	}
	for _, lang := range Langs() {
		t.Run(lang, func(t *testing.T) {
			files, err := Files("word-tally", lang)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			byPath := map[string]File{}
			for _, f := range files {
				paths = append(paths, f.Path)
				byPath[f.Path] = f
				if bytes.Contains(f.Data, []byte("{{")) || bytes.Contains(f.Data, []byte("<no value>")) {
					t.Errorf("%s: a template action is left: %q", f.Path, f.Data)
				}
				wantMode := fs.FileMode(0o644)
				if strings.HasPrefix(f.Path, "scripts/") {
					wantMode = 0o755
					if !bytes.HasPrefix(f.Data, []byte("#!")) {
						t.Errorf("%s is executable but has no #! line", f.Path)
					}
				}
				if f.Mode != wantMode {
					t.Errorf("%s: mode %v, want %v", f.Path, f.Mode, wantMode)
				}
			}
			if diff := cmp.Diff(want[lang], paths); diff != "" {
				t.Errorf("files mismatch (-want +got):\n%s", diff)
			}
			md := string(byPath["SKILL.md"].Data)
			if !strings.HasPrefix(md, "---\nname: word-tally\ndescription: ") {
				t.Errorf("SKILL.md starts %q", md[:min(len(md), 60)])
			}
			l, _ := LookupLang(lang)
			run := "`" + l.runner + " " + l.Script + " FILE...`"
			if l.Build {
				run = "`skillrun run word-tally:count --allow-read=workspace -- FILE...`"
			}
			if !strings.Contains(md, run) {
				t.Errorf("SKILL.md does not say to run %s:\n%s", run, md)
			}
			if txt := string(byPath["tests/count.txtar"].Data); !strings.Contains(txt, "script = \""+l.Script+"\"\n") {
				t.Errorf("tests/count.txtar does not run %q:\n%s", l.Script, txt)
			}
			if l.Build != slices.Contains(paths, "skill.toml") {
				t.Errorf("Build is %v, but skill.toml is in %v", l.Build, paths)
			}
			if lang == "go" {
				if got := string(byPath["src/go.mod"].Data); !strings.HasPrefix(got, "module example.com/word-tally\n") {
					t.Errorf("go.mod: %q", got)
				}
				src := byPath["src/main.go"].Data
				if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
					t.Errorf("main.go is not gofmt-clean (%v)", err)
				}
			}
		})
	}
}

func TestFilesUnknownLang(t *testing.T) {
	_, err := Files("x", "cobol")
	if err == nil || !strings.Contains(err.Error(), `unknown language "cobol": use one of python, js, shell, go, c, rust`) {
		t.Errorf("Files(cobol) = %v", err)
	}
	if _, ok := LookupLang("Python"); ok {
		t.Error("LookupLang is case-insensitive; want exact names")
	}
}
