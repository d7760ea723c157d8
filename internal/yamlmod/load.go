package yamlmod

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// Load reads the modules of dir: dir/skills/<id>/skill.yaml,
// dir/tools/<id>/tool.yaml and dir/agents/<id>.yaml. A missing folder
// (dir itself, or one of the three) holds nothing, which is no problem.
//
// Every problem found is returned, each with its file and line. A file
// with an error is left out of the Set and the others load; an agent
// naming a skill or tool that did not load is such an error. Warnings
// (a step naming an unknown tool, a requirement skillrun cannot meet)
// leave the file in. Every file is read through an [os.Root] on dir, so
// no symbolic link leads out of it.
//
// Requirements are checked against the interpreters installed in the
// default folder (scripts.InstalledInterpreters("")).
func Load(dir string) (*Set, skills.Problems) {
	return load(dir, scripts.InstalledInterpreters(""))
}

// A loader loads one directory.
type loader struct {
	dir      string
	root     *os.Root
	find     scripts.InterpreterFunc
	set      *Set
	problems skills.Problems
	// broken are the ids of files that did not load, so a reference to
	// one says so rather than "no such".
	brokenSkills, brokenTools map[string]bool
}

func load(dir string, find scripts.InterpreterFunc) (*Set, skills.Problems) {
	set := &Set{Dir: dir}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return set, skills.Problems{{Severity: skills.Error, File: dir, Message: err.Error()}}
	}
	defer root.Close()
	l := &loader{dir: dir, root: root, find: find, set: set,
		brokenSkills: map[string]bool{}, brokenTools: map[string]bool{}}
	l.loadTools()
	l.loadSkills()
	l.loadAgents()
	return set, l.problems
}

func (l *loader) errf(file, format string, args ...any) {
	l.problems = append(l.problems, skills.Problem{Severity: skills.Error, File: file, Message: fmt.Sprintf(format, args...)})
}

// display is the path of rel (slash-separated, under dir) for problems.
func (l *loader) display(rel string) string { return filepath.Join(l.dir, filepath.FromSlash(rel)) }

// entries lists folder (under dir) sorted by name, hidden entries left
// out; a missing folder has none. More than maxEntries is an error and
// none of them is read: which ones to read would be arbitrary.
func (l *loader) entries(folder string) []fs.DirEntry {
	f, err := l.root.Open(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		l.errf(l.display(folder), "%v", describeFSError(err))
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		l.errf(l.display(folder), "not a folder: %s/ holds one entry per module", folder)
		return nil
	}
	list, err := f.ReadDir(maxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		l.errf(l.display(folder), "%v", err)
		return nil
	}
	if len(list) > maxEntries {
		l.errf(l.display(folder), "more than %d entries: none of %s/ is read", maxEntries, folder)
		return nil
	}
	out := list[:0]
	for _, e := range list {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// isDir says whether the entry rel is a folder, following a link that
// stays inside dir.
func (l *loader) isDir(rel string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	fi, err := l.root.Stat(filepath.FromSlash(rel))
	return err == nil && fi.IsDir()
}

// read reads the regular file rel, at most MaxFile bytes. found is false
// when there is no such file.
func (l *loader) read(rel string) (data []byte, found bool, err error) {
	f, err := l.root.Open(filepath.FromSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, describeFSError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, true, err
	}
	if !fi.Mode().IsRegular() {
		return nil, true, errors.New("not a regular file")
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err == nil && len(data) > MaxFile {
		err = fmt.Errorf("over the %d-byte limit for a module file", MaxFile)
	}
	return data, true, err
}

// modules lists the folders of kind (skills, tools) holding file, and
// reports folders that hold a misspelt one. Folders without it (an Agent
// Skill's, say) are not this loader's.
func (l *loader) modules(kind, file string) []string {
	var ids []string
	for _, e := range l.entries(kind) {
		rel := path.Join(kind, e.Name())
		if !l.isDir(rel, e) {
			continue
		}
		if _, err := l.root.Stat(filepath.FromSlash(path.Join(rel, file))); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				l.errf(l.display(path.Join(rel, file)), "%v", describeFSError(err))
				continue
			}
			yml := strings.TrimSuffix(file, ".yaml") + ".yml"
			if _, err := l.root.Stat(filepath.FromSlash(path.Join(rel, yml))); err == nil {
				l.errf(l.display(path.Join(rel, yml)), "not read: name it %s", file)
			}
			continue
		}
		if !validID(e.Name()) {
			l.errf(l.display(path.Join(rel, file)), "folder name %q is not an id: letters, digits, - and _, at most %d", e.Name(), maxIDLen)
			continue
		}
		ids = append(ids, e.Name())
	}
	return ids
}

func (l *loader) loadTools() {
	for _, id := range l.modules(ToolsFolder, ToolFile) {
		rel := path.Join(ToolsFolder, id, ToolFile)
		t := l.loadTool(id, rel)
		if t == nil {
			l.brokenTools[id] = true
			continue
		}
		l.set.Tools = append(l.set.Tools, t)
	}
}

func (l *loader) loadSkills() {
	for _, id := range l.modules(SkillsFolder, SkillFile) {
		rel := path.Join(SkillsFolder, id, SkillFile)
		s := l.loadSkill(id, rel)
		if s == nil {
			l.brokenSkills[id] = true
			continue
		}
		l.set.Skills = append(l.set.Skills, s)
	}
}

func (l *loader) loadAgents() {
	for _, e := range l.entries(AgentsFolder) {
		name := e.Name()
		rel := path.Join(AgentsFolder, name)
		switch {
		case strings.HasSuffix(name, ".yml"):
			l.errf(l.display(rel), "not read: an agent is agents/<id>.yaml")
			continue
		case !strings.HasSuffix(name, ".yaml") || l.isDir(rel, e):
			continue // agents/*.md are skillrun's own agent definitions
		}
		id := strings.TrimSuffix(name, ".yaml")
		if !validID(id) {
			l.errf(l.display(rel), "file name %q is not an id: letters, digits, - and _, at most %d", id, maxIDLen)
			continue
		}
		if a := l.loadAgent(id, rel); a != nil {
			l.set.Agents = append(l.set.Agents, a)
		}
	}
}

// readModule reads rel and returns a parser for it, or nil after
// reporting why it cannot be read.
func (l *loader) readModule(rel string) ([]byte, *parser) {
	file := l.display(rel)
	data, _, err := l.read(rel)
	if err != nil {
		l.errf(file, "%v", err)
		return nil, nil
	}
	return data, &parser{file: file}
}

// errOutside is the error of a path that leads out of the module folder.
var errOutside = fmt.Errorf("a symbolic link leads out of the module folder: %w", fs.ErrPermission)

// describeFSError turns os.Root's refusal of a link leading out into
// errOutside (os has no sentinel for it; package skills matches the
// message too), and drops the path a PathError repeats.
func describeFSError(err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return errOutside
	}
	return safefile.Cause(err)
}
