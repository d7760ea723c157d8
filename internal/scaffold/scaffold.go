// Package scaffold makes the files of a new skill, as `skillrun new` does:
// a SKILL.md, a script that counts the lines, words and bytes of files
// (like wc) in one of [Langs], and a passing test case in tests/ for
// `skillrun test`. The skill builds and tests outside this repository: its
// Go source has its own go.mod and imports only the standard library.
//
// The files are templates under templates/ (text/template, embedded):
// templates/common for every language, templates/LANG for one, each
// ending in ".tmpl", which the file made from it drops. [Files] renders
// them; [Create] writes them as a new folder, all at once or not at all.
//
// The package checks neither the name nor the result against the Agent
// Skills rules: it sits below package skills in the layering, so its
// caller does (skills.ValidateName before, `skillrun validate` in tests).
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

// A Lang is a language a new skill's script can be written in.
type Lang struct {
	// Name is how `skillrun new --lang` names it: "python", "go", ...
	Name string
	// Script names the script to skillrun: a file of the skill
	// ("scripts/count.py", run as `skillrun run DIR:scripts/count.py`),
	// or for a compiled language its skill.toml script ("count").
	Script string
	// Build is true when the script is compiled from src/ into
	// scripts/count.wasm, which `skillrun build` makes.
	Build bool
	// runner is the program SKILL.md tells a model to run the script
	// file with ("python3"); empty for a compiled script, which runs with
	// `skillrun run NAME:count`.
	runner string
	// compatibility is SKILL.md's compatibility field.
	compatibility string
}

// langs are the languages, the default first.
var langs = []Lang{
	{Name: "python", Script: "scripts/count.py", runner: "python3",
		compatibility: "Needs Python 3 (standard library only); reads the files it is given."},
	{Name: "js", Script: "scripts/count.js", runner: "node",
		compatibility: "Needs Node.js (CommonJS, no packages); reads the files it is given."},
	{Name: "shell", Script: "scripts/count.sh", runner: "sh",
		compatibility: "Needs a POSIX shell with wc; reads the files it is given."},
	{Name: "go", Script: "count", Build: true, compatibility: compiled},
	{Name: "c", Script: "count", Build: true, compatibility: compiled},
	{Name: "rust", Script: "count", Build: true, compatibility: compiled},
}

const compiled = "Needs skillrun (the script is a WebAssembly module); reads files from the workspace only."

// DefaultLang is the language of a new skill when none is named.
const DefaultLang = "python"

// Langs returns the names of the languages, the default first.
func Langs() []string {
	names := make([]string, len(langs))
	for i, l := range langs {
		names[i] = l.Name
	}
	return names
}

// LookupLang returns the language called name, and whether there is one.
func LookupLang(name string) (Lang, bool) {
	i := slices.IndexFunc(langs, func(l Lang) bool { return l.Name == name })
	if i < 0 {
		return Lang{}, false
	}
	return langs[i], true
}

// A File is one file of a new skill.
type File struct {
	// Path is slash-separated and relative to the skill folder.
	Path string
	Data []byte
	// Mode is 0o755 for a script under scripts/ (each has a #! line),
	// else 0o644.
	Mode fs.FileMode
}

// data is what the templates see.
type data struct {
	Name, Lang, Script, Runner, Compatibility string
	Build                                     bool
}

// Files returns the files of a new skill called name whose script is in
// lang, sorted by path. It fails only for an unknown lang.
func Files(name, lang string) ([]File, error) {
	l, ok := LookupLang(lang)
	if !ok {
		return nil, fmt.Errorf("unknown language %q: use one of %s", lang, strings.Join(Langs(), ", "))
	}
	d := data{Name: name, Lang: l.Name, Script: l.Script, Runner: l.runner, Compatibility: l.compatibility, Build: l.Build}
	var files []File
	for _, dir := range []string{"templates/common", "templates/" + l.Name} {
		err := fs.WalkDir(templates, dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			f, err := render(p, d)
			if err != nil {
				return err
			}
			f.Path = strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), ".tmpl")
			files = append(files, f)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// render executes the template at p, a path in templates, with d.
func render(p string, d data) (File, error) {
	src, err := templates.ReadFile(p)
	if err != nil {
		return File{}, err
	}
	t, err := template.New(path.Base(p)).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return File{}, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return File{}, err
	}
	mode := fs.FileMode(0o644)
	if strings.Contains(p, "/scripts/") {
		mode = 0o755
	}
	return File{Data: b.Bytes(), Mode: mode}, nil
}
