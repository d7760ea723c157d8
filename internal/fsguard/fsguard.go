// Package fsguard holds the file-system checks that the sandbox's mounts
// (package sandbox) and the core workspace tools (package host) share, so
// that a path means the same thing to a script and to a model:
//
//   - [OpenRoot] opens a granted sub-path of a folder inside the folder's
//     own [os.Root], so a symlinked sub-path cannot lead out of it;
//   - [OpenFile] opens a file without ever blocking on a FIFO and refuses
//     special files (FIFOs, sockets, devices);
//   - a [Guard] keeps protected folders (skill folders, the interpreters,
//     the compile cache) unchangeable through a writable root that
//     contains them, and every module folder in the root too: any folder
//     that holds a SKILL.md, a tool.yaml or a skill.yaml, every
//     .AchillesSkills folder and every agents folder of YAML agents.
package fsguard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// OpenRoot opens the folder sub of dir, resolved inside dir's [os.Root]:
// a sub-path that is (or passes through) a symlink leading out of dir
// fails, where os.OpenRoot of the joined path would follow it anywhere.
// sub is slash-separated and relative; "" or "." is dir itself. With
// create, the missing folders of sub are made, also through dir's root,
// unless that would make them in one of the protected folders (a
// [*ProtectedError]; see [Guard]).
func OpenRoot(dir, sub string, create bool, protected []string) (*os.Root, error) {
	parent, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if sub == "" || sub == "." {
		return parent, nil
	}
	defer parent.Close()
	name := filepath.FromSlash(sub)
	if create {
		if _, err := parent.Stat(name); errors.Is(err, fs.ErrNotExist) {
			g, err := New(parent, dir, protected)
			if err != nil {
				return nil, err
			}
			if _, err := g.Check(parent, name, false); err != nil {
				return nil, err
			}
			if err := parent.MkdirAll(name, 0o755); err != nil {
				return nil, err
			}
		}
	}
	return parent.OpenRoot(name)
}

// ErrSpecial is the error of [OpenFile] for a file that is neither a
// regular file nor a directory. It wraps [fs.ErrPermission].
var ErrSpecial = fmt.Errorf("not a regular file or folder (FIFOs, sockets and devices are refused): %w", fs.ErrPermission)

// OpenFile is [os.Root.OpenFile] for files a guest or a model names. It
// opens with O_NONBLOCK, so that opening a FIFO returns at once instead of
// waiting for a writer (no timeout can interrupt a blocked open(2)), then
// checks the type of the file it actually opened (not of the path, which
// could have been swapped in between) and closes anything but a regular
// file or a directory with [ErrSpecial]. O_NONBLOCK is then cleared: it
// means nothing for regular files and folders, but the file should be what
// the caller asked for.
func OpenFile(root *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := root.OpenFile(name, flag|oNonblock, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrSpecial}
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrProtected matches a [*ProtectedError].
var ErrProtected = errors.New("protected folder")

// A ProtectedError is a change refused because its target is in a
// protected folder, or is such a folder or one of its ancestors.
type ProtectedError struct {
	Path string // the path as given, relative to the root
	Dir  string // the protected folder on the host
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("%s: in or above a protected folder (a skill, tool or agent module, Markdown skills, interpreter or compile-cache folder), which no script or tool may change (%s)", e.Path, e.Dir)
}

// Is makes errors.Is match ErrProtected and fs.ErrPermission.
func (e *ProtectedError) Is(target error) bool {
	return target == ErrProtected || target == fs.ErrPermission
}

// A Guard refuses changes, through one root, to protected folders that lie
// inside the root: anything created, written, renamed or removed in such a
// folder, and renaming, removing or changing the folder or one of its
// ancestors inside the root. Folders are compared by identity (device and
// inode, [os.SameFile]), and the path of a change is resolved first, its
// symlinks and ".." included, so no other name for a protected folder
// gets around it.
//
// The identities are taken when the Guard is made; the protected folders
// and their ancestors cannot be renamed through the root afterwards, so
// they stay right for the Guard's life. Another process (or a concurrent
// run through another root) that renames symlinks inside the root while a
// change is checked can race the check; a guest cannot create symlinks.
//
// Skill folders need no listing: every folder in the root that holds a
// SKILL.md (or skill.md) is protected the same way when the change is
// checked, so a script cannot rewrite another skill's module, wherever
// that skill lies, and run its code later with that skill's grants. The
// same holds for every other kind of module whose code or instructions
// run later with grants of their own: a YAML tool or skill module's
// folder (tool.yaml, skill.yaml), a .AchillesSkills folder of Markdown
// skills, and an agents folder holding YAML agent modules. New
// skill folders can be made: a folder becomes protected once its SKILL.md
// is written (so write it last). A folder renamed is first searched for
// skill folders ([MaxSearch] entries at most; a larger one is refused).
// A skill folder whose SKILL.md was created through this Guard ([Guard.Created])
// is not protected from it: its whole content is this writer's work (a
// script that scaffolds a new skill goes on to fill it), and the folder
// had no SKILL.md before, so no one else's grant covers it yet. Through
// any other Guard (the next run's) it is protected like every skill.
//
// A nil *Guard allows everything. A Guard is safe for concurrent use; it
// changes only by Created.
type Guard struct {
	dir       string         // the root's host folder, for messages
	dirs      []protectedDir // protected folders inside the root
	ancestors []protectedDir // their ancestors inside the root, the root excluded
	all       string         // if set, the root itself is in this protected folder

	mu   sync.Mutex
	made []fs.FileInfo // skill folders whose SKILL.md this Guard saw created
}

type protectedDir struct {
	info fs.FileInfo
	host string // the protected folder (for an ancestor: the one below it)
}

// maxDepth bounds the walks up the host's folders.
const maxDepth = 4096

// New returns the Guard of root, opened on the host folder dir, for the
// protected host folders and the skill folders in root. A protected folder
// that does not exist, or is not in dir, is skipped.
func New(root *os.Root, dir string, protected []string) (*Guard, error) {
	g := &Guard{dir: dir}
	if len(protected) == 0 {
		return g, nil
	}
	rootInfo, err := root.Stat(".")
	if err != nil {
		return nil, err
	}
	realDir, err := realPath(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range protected {
		info, err := os.Stat(p)
		if err != nil || !info.IsDir() {
			continue // nothing there to protect
		}
		realP, err := realPath(p)
		if err != nil {
			continue
		}
		switch {
		case realP == realDir || strings.HasPrefix(realDir, realP+string(filepath.Separator)):
			g.all = p // the root is the folder or inside it
			return g, nil
		case !strings.HasPrefix(realP, realDir+string(filepath.Separator)):
			continue // not inside the root (a symlink inside cannot reach it: os.Root)
		}
		ancestors, inside := ancestorsBelow(realP, rootInfo)
		if !inside {
			continue
		}
		g.dirs = append(g.dirs, protectedDir{info: info, host: p})
		for _, a := range ancestors {
			g.ancestors = append(g.ancestors, protectedDir{info: a, host: p})
		}
	}
	return g, nil
}

// realPath is p absolute with its symlinks resolved.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// ancestorsBelow walks up from the host folder p to the folder whose
// identity is root, and returns the folders strictly between them; inside
// is false if it reaches the top first.
func ancestorsBelow(p string, root fs.FileInfo) (ancestors []fs.FileInfo, inside bool) {
	for range maxDepth {
		parent := filepath.Dir(p)
		if parent == p {
			return nil, false
		}
		fi, err := os.Stat(parent)
		if err != nil {
			return nil, false
		}
		if os.SameFile(fi, root) {
			return ancestors, true
		}
		ancestors = append(ancestors, fi)
		p = parent
	}
	return nil, false
}

// Check checks a change to name (relative to root, which must be the root
// the Guard was made for) and returns the path to make it through: name
// with its symlinks resolved inside root, so the change lands on what was
// checked. follow says whether the change follows a symlink in the last
// element (opening, chmod, utimens) or acts on the link itself (unlink,
// rename, rmdir, mkdir). The error is a [*ProtectedError] for a refusal,
// or the error of resolving name (an escape, a symlink loop), which the
// change would have met too.
func (g *Guard) Check(root *os.Root, name string, follow bool) (string, error) {
	if g == nil {
		return name, nil
	}
	if g.all != "" {
		return "", &ProtectedError{Path: name, Dir: g.all}
	}
	canon, err := resolve(root, name, follow)
	if errors.Is(err, errEscapes) { // as os.Root reports it
		return "", &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	if err != nil {
		return "", err
	}
	// Every existing folder holding the target, the root first.
	dir := "."
	parts := splitPath(canon)
	for i := 0; i <= len(parts)-1; i++ {
		fi, err := root.Lstat(dir)
		if err != nil {
			break // the rest does not exist yet
		}
		if host, ok := g.protected(fi); ok {
			return "", &ProtectedError{Path: name, Dir: host}
		}
		if g.isSkillFolder(root, dir) {
			return "", &ProtectedError{Path: name, Dir: g.host(dir)}
		}
		dir = path.Join(dir, parts[i])
	}
	// The target itself: a protected folder or one of its ancestors, a
	// skill folder or a folder holding one.
	if fi, err := root.Lstat(canon); err == nil && fi.IsDir() {
		if host, ok := g.protected(fi); ok {
			return "", &ProtectedError{Path: name, Dir: host}
		}
		if host, ok := match(fi, g.ancestors); ok {
			return "", &ProtectedError{Path: name, Dir: host}
		}
		if skill, err := g.findSkillFolder(root, canon); err != nil {
			return "", err
		} else if skill != "" {
			return "", &ProtectedError{Path: name, Dir: g.host(skill)}
		}
	}
	return canon, nil
}

// host names the folder p of the root on the host, for messages.
func (g *Guard) host(p string) string { return filepath.Join(g.dir, filepath.FromSlash(p)) }

// moduleFileNames are the files that make their folder a module whose
// code runs later with grants of its own: a skill's SKILL.md as the
// loader accepts it (package skills), and a YAML tool or skill module's
// tool.yaml or skill.yaml (package yamlmod).
var moduleFileNames = []string{"SKILL.md", "skill.md", "tool.yaml", "tool.yml", "skill.yaml", "skill.yml"}

// Folders whose name makes them modules: Markdown skills
// (.AchillesSkills, package mdskill) and YAML agent modules
// (agents/<id>.yaml, package yamlmod).
const (
	markdownSkillsFolder = ".AchillesSkills"
	agentsFolder         = "agents"
)

// isSkillFolder reports whether the folder dir of root is a module
// folder, which no one else may change: it holds a SKILL.md, tool.yaml or
// skill.yaml (of any type: a link named so marks it too) that was not
// created through g; or it is a .AchillesSkills folder; or it is an agents
// folder holding an agent module (a .yaml or .yml file).
func (g *Guard) isSkillFolder(root *os.Root, dir string) bool {
	for _, n := range moduleFileNames {
		if _, err := root.Lstat(filepath.FromSlash(path.Join(dir, n))); err == nil {
			return !g.madeHere(root, dir)
		}
	}
	name := path.Base(dir)
	if dir == "." {
		name = filepath.Base(g.dir)
	}
	switch name {
	case markdownSkillsFolder:
		return true
	case agentsFolder:
		return holdsAgentModule(root, dir)
	}
	return false
}

// holdsAgentModule reports whether the folder dir of root holds a .yaml
// or .yml file (of any type), reading at most MaxSearch entries; a larger
// folder counts as holding one.
func holdsAgentModule(root *os.Root, dir string) bool {
	f, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(MaxSearch + 1)
	if len(names) > MaxSearch {
		return true
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") {
			return true
		}
	}
	return false
}

// IsSkillFile reports whether name (slash-separated) is a file that makes
// its folder a module: a skill's SKILL.md, a tool.yaml or a skill.yaml.
func IsSkillFile(name string) bool { return slices.Contains(moduleFileNames, path.Base(name)) }

// Created tells g that name, a file of root, was just created by the
// writer g guards (it did not exist before). If it is a SKILL.md, its
// folder becomes a skill folder made here, which g does not protect.
// Call it only for a file the caller saw not exist before its create:
// a SKILL.md that was there, or a folder that was a skill folder
// already, must stay protected.
func (g *Guard) Created(root *os.Root, name string) {
	if g == nil || !IsSkillFile(name) {
		return
	}
	fi, err := root.Lstat(filepath.FromSlash(path.Dir(name)))
	if err != nil || !fi.IsDir() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.made = append(g.made, fi)
}

// madeHere reports whether the folder dir of root got its SKILL.md
// through g.
func (g *Guard) madeHere(root *os.Root, dir string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.made) == 0 {
		return false
	}
	fi, err := root.Lstat(filepath.FromSlash(dir))
	if err != nil {
		return false
	}
	for _, m := range g.made {
		if os.SameFile(m, fi) {
			return true
		}
	}
	return false
}

// MaxSearch bounds the entries a Guard reads to find skill folders in a
// folder about to be renamed or removed.
const MaxSearch = 10_000

// ErrTooLarge is the error of a change to a folder too large to search
// for skill folders. It wraps [fs.ErrPermission].
var ErrTooLarge = fmt.Errorf("folder has more than %d entries to search for skill folders, so it cannot be renamed or removed: %w", MaxSearch, fs.ErrPermission)

// FindModuleFolder returns the first module folder (see [Guard]) at or
// below the host folder dir, as a slash-separated path relative to it, or
// "". It reads at most max entries and fails with [ErrTooLarge] past
// them. A writer that cannot be checked change by change (a host process
// of the native tier) must not be given write access to a folder holding
// one.
func FindModuleFolder(dir string, max int) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	g := &Guard{dir: dir}
	return g.findSkillFolderMax(root, ".", max)
}

// findSkillFolder returns the first module folder at or below dir, or "".
// Symlinks are not followed (they lead to folders found elsewhere).
func (g *Guard) findSkillFolder(root *os.Root, dir string) (string, error) {
	return g.findSkillFolderMax(root, dir, MaxSearch)
}

// findSkillFolderMax is findSkillFolder reading at most max entries.
func (g *Guard) findSkillFolderMax(root *os.Root, dir string, max int) (string, error) {
	todo := []string{dir}
	seen := 0
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if g.isSkillFolder(root, d) {
			return d, nil
		}
		f, err := root.Open(filepath.FromSlash(d))
		if err != nil {
			return "", err
		}
		entries, err := f.ReadDir(max + 1 - seen)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		seen += len(entries)
		if seen > max {
			return "", &fs.PathError{Op: "rename", Path: dir, Err: ErrTooLarge}
		}
		for _, e := range entries {
			if e.IsDir() {
				todo = append(todo, path.Join(d, e.Name()))
			}
		}
	}
	return "", nil
}

func (g *Guard) protected(fi fs.FileInfo) (string, bool) { return match(fi, g.dirs) }

func match(fi fs.FileInfo, dirs []protectedDir) (string, bool) {
	for _, d := range dirs {
		if os.SameFile(fi, d.info) {
			return d.host, true
		}
	}
	return "", false
}

// Bounds of resolve, as Linux's and os.Root's.
const (
	maxSymlinks = 40
	maxSteps    = 255 * 8
)

// errEscapes is resolve's error for a path or link leading out of the
// root: the words os.Root uses.
var errEscapes = errors.New("path escapes from parent")

// resolve returns name with every symlink (the last element's only when
// follow) replaced by its target and ".." applied to what it resolved, as
// os.Root resolves a path. Elements that do not exist are kept as they
// are. It reads the links through root, so it never leaves it.
func resolve(root *os.Root, name string, follow bool) (string, error) {
	if path.IsAbs(name) || filepath.IsAbs(name) {
		return "", errEscapes
	}
	todo := splitPath(name)
	var done []string
	links := 0
	for steps := 0; len(todo) > 0; steps++ {
		if steps > maxSteps {
			return "", syscall.ENAMETOOLONG
		}
		elem := todo[0]
		todo = todo[1:]
		if elem == ".." {
			if len(done) == 0 {
				return "", errEscapes
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(append([]string{}, done...), elem)...)
		if len(todo) == 0 && !follow {
			done = append(done, elem)
			break
		}
		fi, err := root.Lstat(filepath.FromSlash(cur))
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, elem) // a folder, a file, or not there (yet)
			continue
		}
		if links++; links > maxSymlinks {
			return "", syscall.ELOOP
		}
		target, err := root.Readlink(filepath.FromSlash(cur))
		if err != nil {
			return "", err
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) {
			return "", errEscapes
		}
		todo = append(splitPath(target), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// splitPath splits a slash-separated relative path into its elements,
// without "" and ".".
func splitPath(p string) []string {
	var parts []string
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e != "" && e != "." {
			parts = append(parts, e)
		}
	}
	return parts
}
