package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// The languages of source scripts, as [Script.Language] names them.
const (
	LangPython     = "python"
	LangJS         = "js"
	LangTypeScript = "typescript"
	LangShell      = "shell"
)

// errUnknownLanguage is returned by [Skill.FileScript] for a file whose
// extension and "#!" line name no language skillrun knows.
var errUnknownLanguage = errors.New("no language skillrun can run")

// maxShebang bounds the first line read for a "#!" line.
const maxShebang = 256

// FileScript returns the script that runs file, a path inside the skill
// folder as a published SKILL.md names it ("scripts/fill_form.py"),
// whether or not skill.toml lists it. If the manifest has a script whose
// source is file, that script is returned; otherwise a script of kind
// [KindSource] named file (cleaned), whose [Script.Language] is told by
// the extension (.py; .js, .mjs, .cjs; .ts, .mts, .cts; .sh, .bash) or,
// without a known one, by the file's "#!" line ("#!/usr/bin/env python3",
// "#!/bin/bash").
//
// Errors name what is wrong: a path that leaves the skill (absolute,
// "..", a link out; matching [ErrOutsideSkill]), a file that does not
// exist or is not a regular file, or one in no language skillrun knows
// ([errUnknownLanguage]). Whether an interpreter for the language is
// installed is the runner's question, not this one's.
func (s *Skill) FileScript(file string) (*Script, error) {
	clean, err := resourcePath(file)
	if err != nil {
		return nil, err
	}
	if s.Manifest != nil {
		for _, name := range s.Manifest.ScriptNames() {
			if sc := s.Manifest.Scripts[name]; sc.Kind == KindSource && path.Clean(sc.Source) == clean {
				return sc, nil
			}
		}
	}
	lang, known := languageOfName(clean)
	if !known {
		head, err := s.readHead(clean)
		if err != nil {
			return nil, err
		}
		if lang, known = languageOfShebang(head); !known {
			why := "no known extension (.py, .js, .ts, .sh) and no #! line"
			if line, ok := shebangLine(head); ok {
				why = fmt.Sprintf("its #! line %q names no interpreter skillrun has (python, node, bash, sh)", line)
			}
			return nil, &fs.PathError{Op: "run", Path: file, Err: fmt.Errorf("%w: %s", errUnknownLanguage, why)}
		}
	} else if _, err := s.readHead(clean); err != nil {
		return nil, err // missing, a folder, or a link out
	}
	return &Script{Name: clean, Kind: KindSource, Source: clean, Language: lang}, nil
}

// readHead returns the start of the skill's file name, at most
// maxShebang bytes, after checking it is a regular file inside the skill.
func (s *Skill) readHead(name string) ([]byte, error) {
	fsys, closer, err := s.openFiles()
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	f, err := fsys.Open(name)
	if err != nil {
		if isEscape(err) {
			return nil, &fs.PathError{Op: "run", Path: name, Err: ErrOutsideSkill}
		}
		return nil, &fs.PathError{Op: "run", Path: name, Err: describeFSError(err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "run", Path: name, Err: describeFSError(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "run", Path: name, Err: errors.New("not a regular file")}
	}
	buf := make([]byte, maxShebang)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// languageOfName tells a script's language by its extension.
func languageOfName(name string) (string, bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".py":
		return LangPython, true
	case ".js", ".mjs", ".cjs":
		return LangJS, true
	case ".ts", ".mts", ".cts":
		return LangTypeScript, true
	case ".sh", ".bash":
		return LangShell, true
	}
	return "", false
}

// shebangLine returns the "#!" line at the start of head, without "#!".
func shebangLine(head []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return "", false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	return strings.TrimSpace(strings.TrimSuffix(string(line), "\r")), true
}

// languageOfShebang tells a script's language by its "#!" line: the
// interpreter named, or for env the command after its options
// ("#!/usr/bin/env -S python3 -u").
func languageOfShebang(head []byte) (string, bool) {
	line, ok := shebangLine(head)
	if !ok {
		return "", false
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", false
	}
	cmd := path.Base(fields[0])
	if cmd == "env" {
		cmd = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				cmd = path.Base(f)
				break
			}
		}
	}
	switch {
	case cmd == "python" || strings.HasPrefix(cmd, "python3") || cmd == "python2":
		return LangPython, true
	case cmd == "node" || cmd == "nodejs":
		return LangJS, true
	case cmd == "ts-node" || cmd == "tsx" || cmd == "deno" || cmd == "bun":
		return LangTypeScript, true
	case cmd == "bash" || cmd == "sh" || cmd == "dash":
		return LangShell, true
	}
	return "", false
}

// IsFileScriptName reports whether a script name as given to run is a
// file path ("scripts/x.py") rather than a skill.toml script name, which
// has neither '/' nor '.'.
func IsFileScriptName(name string) bool { return strings.ContainsAny(name, "/.") }

// maxFileScripts bounds the script files [Skill.FileScripts] lists.
const maxFileScripts = 64

// FileScripts returns the script files of the skill that a model may call
// as tools: the files directly in its scripts/ folder whose language
// [Skill.FileScript] can tell, except those whose name starts with "_" or
// "." (helpers such as __init__.py) and those skill.toml lists (they are
// its scripts already), sorted by path, at most 64. A skill loaded
// without its files (constructed) has none.
func (s *Skill) FileScripts() []*Script {
	fsys, closer, err := s.openFiles()
	if err != nil {
		return nil
	}
	entries, err := fs.ReadDir(fsys, "scripts")
	closer.Close()
	if err != nil {
		return nil
	}
	var out []*Script
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue
		}
		sc, err := s.FileScript("scripts/" + name)
		if err != nil || sc.Name != sc.Source { // not a script, or skill.toml's
			continue
		}
		out = append(out, sc)
		if len(out) == maxFileScripts {
			break
		}
	}
	return out
}

// RunnableScripts returns the names of the scripts of the skill that run:
// skill.toml's, sorted, then the paths of [Skill.FileScripts].
func (s *Skill) RunnableScripts() []string {
	var names []string
	if s.Manifest != nil {
		names = s.Manifest.ScriptNames()
	}
	for _, sc := range s.FileScripts() {
		names = append(names, sc.Name)
	}
	return names
}
