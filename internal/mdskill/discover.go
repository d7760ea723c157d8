package mdskill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillrun/skillrun/skills"
)

// Bounds of discovery, which walks folders a stranger may have written.
const (
	// maxFiles bounds the skills of one folder.
	maxFiles = 1000
	// maxDepth is how deep below .AchillesSkills a skill folder may be:
	// <name>, <group>/<name>, <group>/<group>/<name>.
	maxDepth = 3
	// Bounds of a cskill's specs/ folder, which its model reads whole.
	maxSpecs      = 64
	maxSpecFile   = 128 << 10
	maxSpecsTotal = 512 << 10
	maxSpecsDepth = 3
)

// maxEntries bounds the directory entries one listing reads (a variable
// for the tests).
var maxEntries = 10000

// A Listing is what a .AchillesSkills folder holds.
type Listing struct {
	// Folder is the .AchillesSkills folder (or the one skill folder)
	// listed.
	Folder string
	// Files are the Markdown skill files, flat (<name>.<kind>.md) and in
	// skill folders (<name>/<kind>.md), sorted.
	Files []string
	// AgentSkills are the skill folders holding SKILL.md (or skill.md):
	// Agent Skills, which package skills loads, sorted.
	AgentSkills []string
	// Problems are the entries refused (a symbolic link leading out of
	// its folder, a descriptor skillrun does not run) and the bounds met.
	Problems skills.Problems

	stopped bool // the entries' bound was met
}

func (l *Listing) problem(sev skills.Severity, file, format string, args ...any) {
	l.Problems = append(l.Problems, skills.Problem{Severity: sev, File: file, Message: fmt.Sprintf(format, args...)})
}

// List finds the Markdown skills of dir: those of dir/.AchillesSkills
// (the folder may be a symlink, as AchillesAgentLib allows), of dir when
// it is itself a .AchillesSkills folder, or dir's own descriptors when it
// is a skill folder below one. In a .AchillesSkills folder, a *.md file
// is a flat skill; a folder holding <kind>.md (a kind of FolderKinds) is
// a skill of that name, one holding SKILL.md an Agent Skill, and one
// holding neither may group skill folders, maxDepth deep at most. Hidden
// entries and node_modules are skipped; a symbolic link is followed only
// inside .AchillesSkills, and a descriptor's only inside its skill folder.
// None is not an error; an unreadable folder is.
func List(dir string) (*Listing, error) {
	clean := filepath.Clean(dir)
	if filepath.Base(clean) != Folder && RootOf(filepath.Join(clean, "x")) != "" && holdsDescriptor(clean) {
		root, err := os.OpenRoot(clean)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		l := &Listing{Folder: clean}
		budget := maxEntries
		l.descriptors(root, clean, false, &budget)
		return l, nil
	}
	folder := clean
	if filepath.Base(clean) != Folder {
		folder = filepath.Join(clean, Folder)
	}
	root, err := os.OpenRoot(folder)
	if errors.Is(err, os.ErrNotExist) {
		return &Listing{Folder: folder}, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	l := &Listing{Folder: folder}
	budget := maxEntries
	l.walk(root, ".", 0, &budget)
	sort.Strings(l.Files)
	sort.Strings(l.AgentSkills)
	if len(l.Files) > maxFiles {
		return nil, fmt.Errorf("%s: more than %d Markdown skills", folder, maxFiles)
	}
	return l, nil
}

// holdsDescriptor reports whether dir holds a <kind>.md descriptor.
func holdsDescriptor(dir string) bool {
	for _, k := range FolderKinds {
		if fi, err := os.Lstat(filepath.Join(dir, string(k)+".md")); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// walk lists the folder rel of root (the .AchillesSkills folder): at the
// top its flat skill files, at every depth its skill folders.
func (l *Listing) walk(root *os.Root, rel string, depth int, budget *int) {
	entries, err := l.readDir(root, rel, budget)
	if err != nil {
		l.problem(skills.Warning, l.path(rel), "%v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		rp := path.Join(rel, name)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			fi, err := root.Stat(rp)
			if err != nil {
				l.problem(skills.Error, l.path(rp), "a symbolic link leading out of %s, or to nothing: not read", l.Folder)
				continue
			}
			typ = fi.Mode().Type()
		}
		switch {
		case typ.IsDir() && depth < maxDepth:
			l.skillFolder(root, rp, depth+1, budget)
		case typ.IsDir():
			l.problem(skills.Warning, l.path(rp), "deeper than %d folders below %s: not searched", maxDepth, Folder)
		case typ.IsRegular() && depth == 0 && strings.HasSuffix(name, ".md"):
			l.Files = append(l.Files, l.path(rp))
		}
	}
}

// skillFolder lists the folder rel of root: a skill folder if it holds a
// descriptor, else a group of folders.
func (l *Listing) skillFolder(root *os.Root, rel string, depth int, budget *int) {
	sub, err := root.OpenRoot(rel)
	if err != nil {
		l.problem(skills.Warning, l.path(rel), "%v", err)
		return
	}
	defer sub.Close()
	if !l.descriptors(sub, l.path(rel), true, budget) {
		l.walk(root, rel, depth, budget)
	}
}

// stop says, once, that the listing stopped at its bound.
func (l *Listing) stop() {
	if !l.stopped {
		l.stopped = true
		l.problem(skills.Warning, l.Folder, "stopped after %d entries; the rest is not searched", maxEntries)
	}
}

// readDir reads the entries of the folder rel of root, sorted, at most
// what is left of budget (which it spends): past it, the rest is not
// read, and said once.
func (l *Listing) readDir(root *os.Root, rel string, budget *int) ([]fs.DirEntry, error) {
	if *budget <= 0 {
		l.stop()
		return nil, nil
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(*budget + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(entries) > *budget {
		entries = entries[:*budget]
		l.stop()
	}
	*budget -= len(entries)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// descriptors adds the descriptors of the skill folder dir (opened as
// sub): its <kind>.md files and, if agents, its SKILL.md. It reports
// whether the folder holds any (a descriptor refused counts).
func (l *Listing) descriptors(sub *os.Root, dir string, agents bool, budget *int) bool {
	entries, err := l.readDir(sub, ".", budget)
	if err != nil {
		l.problem(skills.Warning, dir, "%v", err)
		return false
	}
	found, agent := false, false
	for _, e := range entries {
		name := e.Name()
		stem, isMD := strings.CutSuffix(name, ".md")
		isAgent := name == "SKILL.md" || name == "skill.md"
		isKind := isMD && slices.Contains(FolderKinds, Kind(stem))
		if !isAgent && !isKind && name != "dcgskill.md" {
			continue
		}
		found = true
		p := filepath.Join(dir, name)
		fi, err := sub.Stat(name)
		switch {
		case err != nil:
			l.problem(skills.Error, p, "a symbolic link leading out of its skill folder %s, or to nothing: not read", dir)
			continue
		case !fi.Mode().IsRegular():
			l.problem(skills.Error, p, "not a regular file")
			continue
		}
		switch {
		case isAgent:
			agent = true
		case isKind:
			l.Files = append(l.Files, p)
		default:
			l.problem(skills.Warning, p, "skillrun does not run dcgskill skills (AchillesAgentLib's dynamic code generation); "+
				"the nearest kind is cgskill.md, the model's code run in the sandbox: this folder is left out")
		}
	}
	if agent && agents {
		l.AgentSkills = append(l.AgentSkills, dir)
	}
	return found
}

// path is the path of rel, a path of the listed folder.
func (l *Listing) path(rel string) string {
	if rel == "." {
		return l.Folder
	}
	return filepath.Join(l.Folder, filepath.FromSlash(rel))
}

// Files lists the Markdown skill files of dir (see List).
func Files(dir string) ([]string, error) {
	l, err := List(dir)
	if err != nil {
		return nil, err
	}
	return l.Files, nil
}

// IsSkillFile reports whether a file's name is a Markdown skill's:
// <name>.<kind>.md, or a folder's descriptor <kind>.md (not SKILL.md,
// which is an Agent Skill's).
func IsSkillFile(file string) bool {
	base := filepath.Base(file)
	stem, ok := strings.CutSuffix(base, ".md")
	if !ok || base == "SKILL.md" || base == "skill.md" {
		return false
	}
	return slices.Contains(FolderKinds, Kind(stem)) || strings.Contains(stem, ".")
}

// RootOf returns the folder that holds the .AchillesSkills folder a
// skill file is in (flat, or in a skill folder up to maxDepth deep), or
// "" when the file is in none.
func RootOf(file string) string {
	d := filepath.Dir(filepath.Clean(file))
	for range maxDepth + 1 {
		if filepath.Base(d) == Folder {
			return filepath.Dir(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}

// Load reads and parses one Markdown skill file, bounded in size. The
// file is read inside its folder: a symbolic link is followed only to a
// regular file of the folder. A folder cskill's specs/ are read with it.
func Load(file string) (*Skill, skills.Problems) {
	fail := func(format string, args ...any) (*Skill, skills.Problems) {
		return nil, skills.Problems{{Severity: skills.Error, File: file, Message: fmt.Sprintf(format, args...)}}
	}
	root, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return fail("%v", err)
	}
	defer root.Close()
	base := filepath.Base(file)
	f, err := root.Open(base)
	if err != nil {
		if fi, lerr := root.Lstat(base); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fail("a symbolic link leading out of its folder, or to nothing: not read")
		}
		return fail("%v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fail("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return fail("%v", err)
	}
	s, problems := Parse(data, file)
	if s == nil || s.Dir == "" {
		return s, problems
	}
	more := folderFiles(root, s)
	problems = append(problems, more...)
	if more.Errors() != nil {
		return nil, problems
	}
	return s, problems
}

// folderFiles reads what a folder skill's kind takes from its folder
// (root): a cskill's specs/, and says that its src/ is not run.
func folderFiles(root *os.Root, s *Skill) skills.Problems {
	if s.Kind != KindCode {
		return nil
	}
	var ps skills.Problems
	add := func(sev skills.Severity, rel, format string, args ...any) {
		ps = append(ps, skills.Problem{Severity: sev, File: filepath.Join(s.Dir, filepath.FromSlash(rel)), Message: fmt.Sprintf(format, args...)})
	}
	for _, src := range []string{"src/index.mjs", "src/index.js"} {
		if _, err := root.Lstat(src); err == nil {
			add(skills.Warning, src, "skillrun does not run a cskill's module: the model writes the code for each call from %s and specs/, run in the sandbox", filepath.Base(s.File))
			break
		}
	}
	if fi, err := root.Stat("specs"); err != nil || !fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			add(skills.Error, "specs", "a symbolic link leading out of the skill folder, or unreadable: not read")
		}
		return ps
	}
	total := 0
	_ = fs.WalkDir(root.FS(), "specs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			add(skills.Error, p, "%v", err)
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/") >= maxSpecsDepth {
				add(skills.Warning, p, "deeper than %d folders below specs/: not read", maxSpecsDepth)
				return fs.SkipDir
			}
			return nil
		}
		if ext := path.Ext(p); ext != ".md" && ext != ".mds" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if len(s.Specs) == maxSpecs {
			add(skills.Error, "specs", "more than %d specification files", maxSpecs)
			return fs.SkipAll
		}
		f, err := root.Open(p)
		if err != nil {
			add(skills.Error, p, "a symbolic link leading out of the skill folder, or to nothing: not read")
			return nil
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			add(skills.Error, p, "not a regular file")
			return nil
		}
		data, err := io.ReadAll(io.LimitReader(f, maxSpecFile+1))
		switch {
		case err != nil:
			add(skills.Error, p, "%v", err)
		case len(data) > maxSpecFile:
			add(skills.Error, p, "over the %d-byte limit for a specification", maxSpecFile)
		case !utf8.Valid(data):
			add(skills.Error, p, "not UTF-8 text")
		case total+len(data) > maxSpecsTotal:
			add(skills.Error, p, "the specifications pass %d bytes in all, the most a model is given", maxSpecsTotal)
			return fs.SkipAll
		default:
			total += len(data)
			s.Specs = append(s.Specs, Spec{Path: p, Text: string(trimBOM(data))})
		}
		return nil
	})
	return ps
}

// LoadDir loads every Markdown skill of dir (see List). Skills with
// errors are left out; all problems are returned.
func LoadDir(dir string) ([]*Skill, skills.Problems) {
	l, err := List(dir)
	if err != nil {
		return nil, skills.Problems{{Severity: skills.Error, File: dir, Message: err.Error()}}
	}
	return l.Load()
}

// Load loads the listing's skills. Two of one name (a.skill.md and
// a.cgskill.md, or the flat a.oskill.md and the folder a/) are an error
// naming both: they would be one tool. The first in the listing's order
// is kept.
func (l *Listing) Load() ([]*Skill, skills.Problems) {
	var out []*Skill
	problems := append(skills.Problems{}, l.Problems...)
	byName := map[string]string{}
	for _, f := range l.Files {
		s, ps := Load(f)
		problems = append(problems, ps...)
		if s == nil {
			continue
		}
		if other, dup := byName[s.Name]; dup {
			problems = append(problems, skills.Problem{Severity: skills.Error, File: f,
				Message: fmt.Sprintf("a second skill named %s (the first is %s): both would be the tool %s", s.Name, other, s.ToolName())})
			continue
		}
		byName[s.Name] = f
		out = append(out, s)
	}
	return out, problems
}
