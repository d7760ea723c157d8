package skillpkg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/internal/skillname"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

// Options configures a [Manager]. SkillsDir and LockFile are required.
type Options struct {
	// SkillsDir is the folder skills are installed into, one folder per
	// skill named after it (./.agents/skills for a project).
	SkillsDir string
	// LockFile is the lock to read and write.
	LockFile string
	// Force lets Add replace a skill folder that another source (or no
	// lock entry) owns.
	Force bool
	// Out receives one human-readable line per event; nil discards them.
	Out io.Writer
}

// A Manager installs skills into one skills folder and keeps its lock.
// It is not safe for concurrent use, and two processes running verbs on
// the same folder at once may lose one's lock update.
type Manager struct {
	o Options
}

// New returns a Manager for o.
func New(o *Options) (*Manager, error) {
	if o == nil || o.SkillsDir == "" || o.LockFile == "" {
		return nil, errors.New("skillpkg: SkillsDir and LockFile are required")
	}
	m := &Manager{o: *o}
	if m.o.Out == nil {
		m.o.Out = io.Discard
	}
	return m, nil
}

// printf prints one line, escaped: names, paths and warnings come from
// repositories skillrun does not trust (internal/termsafe).
func (m *Manager) printf(format string, args ...any) {
	fmt.Fprintln(m.o.Out, termsafe.String(fmt.Sprintf(format, args...)))
}

func (m *Manager) dest(name string) string { return filepath.Join(m.o.SkillsDir, name) }

// A candidate is a skill found in a source, loaded where it lies.
type candidate struct {
	path  string // slash path in the source
	skill *skills.Skill
}

// Add installs the skills of src (those named in names, or all when
// names is empty) and pins them in the lock.
func (m *Manager) Add(ctx context.Context, src Source, names []string) error {
	lock, err := ReadLock(m.o.LockFile)
	if err != nil {
		return err
	}
	base, commit, done, err := m.open(ctx, src.URL, src.Git, src.Ref, "")
	if err != nil {
		return err
	}
	defer done()
	fd, err := findSkills(base, src.Sub)
	if err != nil {
		return fmt.Errorf("%s: %w", src.Raw, err)
	}
	for _, s := range fd.Skipped {
		m.printf("skipped %s", s)
	}
	cands, err := loadCandidates(base, fd.Paths, src.Raw)
	if err != nil {
		return err
	}
	if cands, err = selectSkills(cands, names, src.Raw); err != nil {
		return err
	}
	if err := m.checkLookAlikes(lock, cands); err != nil {
		return err
	}
	tx := &txn{dir: m.o.SkillsDir}
	defer tx.abort()
	var report []string
	for _, c := range cands {
		name := c.skill.Name
		e := Entry{Source: src.Raw, SourceType: src.Type, URL: src.URL, Ref: src.Ref, Commit: commit, SkillPath: c.path}
		if err := m.checkOwner(lock, name, e); err != nil {
			return err
		}
		st, err := tx.stage(base, c.path, name)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", name, c.path, err)
		}
		e.ComputedHash = st.digest
		lock.Skills[name] = e
		report = append(report, addedLines(name, e, m.dest(name), st)...)
	}
	if err := tx.commit(func() error { return lock.Write(m.o.LockFile) }); err != nil {
		return err
	}
	for _, l := range report {
		m.printf("%s", l)
	}
	return nil
}

func addedLines(name string, e Entry, dest string, st *staged) []string {
	at := "a plain folder (no commit)"
	if e.Commit != "" {
		at = "commit " + e.Commit
	}
	lines := []string{
		fmt.Sprintf("added %s from %s (%s), %s", name, e.Source, e.SkillPath, at),
		"  installed in " + dest,
		"  digest " + e.ComputedHash,
	}
	for _, l := range st.caps.Lines() {
		lines = append(lines, "  "+l)
	}
	for _, w := range st.skill.Problems {
		lines = append(lines, "  warning: "+w.Error())
	}
	return lines
}

// open makes a source's files available: a fresh checkout for git (at
// commit, or what ref names when commit is ""), the folder itself
// otherwise. done cleans up.
func (m *Manager) open(ctx context.Context, url string, isGit bool, ref, commit string) (dir, gotCommit string, done func(), err error) {
	if !isGit {
		return url, "", func() {}, nil
	}
	co, err := fetch(ctx, url, ref, commit)
	if err != nil {
		return "", "", nil, err
	}
	return co.dir, co.commit, co.remove, nil
}

// loadCandidates loads each skill found; one that does not load is an
// error naming its file and problem, before anything is installed.
func loadCandidates(base string, paths []string, source string) ([]candidate, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no skills found (looked for SKILL.md at the root, in Claude Code plugins, and in folders up to %d levels down)", source, maxFindDepth)
	}
	var out []candidate
	byName := map[string]string{}
	for _, p := range paths {
		s, err := skills.LoadDir(filepath.Join(base, filepath.FromSlash(p)), nil)
		if err != nil {
			return nil, fmt.Errorf("%s: skill %s is invalid: %w", source, p, err)
		}
		if err := skills.ValidateName(s.Name); err != nil {
			return nil, fmt.Errorf("%s: skill %s: name %q cannot name a folder: %w", source, p, s.Name, err)
		}
		if other, dup := byName[skillname.Key(s.Name)]; dup {
			return nil, fmt.Errorf("%s: two skills claim the name %q: %s and %s; select one with --skill is not possible, fix the repository", source, s.Name, other, p)
		}
		byName[skillname.Key(s.Name)] = p
		out = append(out, candidate{path: p, skill: s})
	}
	return out, nil
}

// selectSkills keeps the skills named (all when names is empty); an
// unknown name is an error listing the names there are.
func selectSkills(cands []candidate, names []string, source string) ([]candidate, error) {
	if len(names) == 0 {
		return cands, nil
	}
	var out []candidate
	for _, n := range names {
		i := slices.IndexFunc(cands, func(c candidate) bool { return c.skill.Name == n })
		if i < 0 {
			var have []string
			for _, c := range cands {
				have = append(have, c.skill.Name)
			}
			return nil, fmt.Errorf("%s has no skill %q; it has: %s", source, n, strings.Join(have, ", "))
		}
		if !slices.ContainsFunc(out, func(c candidate) bool { return c.skill.Name == n }) {
			out = append(out, cands[i])
		}
	}
	return out, nil
}

// checkLookAlikes refuses a skill whose name is another's under
// [skillname.Key] (case, full-width forms, invisible characters) but not
// the same: the two would be told apart by nobody reading a list.
func (m *Manager) checkLookAlikes(lock *Lock, cands []candidate) error {
	existing := slices.Collect(maps.Keys(lock.Skills))
	if entries, err := os.ReadDir(m.o.SkillsDir); err == nil {
		for _, e := range entries {
			existing = append(existing, e.Name())
		}
	}
	for _, c := range cands {
		for _, e := range existing {
			if e != c.skill.Name && skillname.Key(e) == skillname.Key(c.skill.Name) {
				return fmt.Errorf("skill %q looks like the installed %q (the same name after case folding and Unicode normalisation); two such skills cannot be told apart: remove %s first", c.skill.Name, e, m.dest(e))
			}
		}
	}
	return nil
}

// checkOwner refuses to replace a folder, or take a lock entry, that
// another source owns, unless Force is set.
func (m *Manager) checkOwner(lock *Lock, name string, e Entry) error {
	prev, inLock := lock.Skills[name]
	if inLock && prev.URL == e.URL && prev.SkillPath == e.SkillPath {
		return nil
	}
	_, statErr := os.Lstat(m.dest(name))
	exists := statErr == nil
	if m.o.Force || !exists && !inLock {
		return nil
	}
	why := "is not in the lock"
	if inLock {
		why = fmt.Sprintf("was installed from %s (%s)", prev.Source, prev.SkillPath)
	}
	if !exists {
		return fmt.Errorf("skill %s %s; remove its lock entry, or add --force to replace it", name, why)
	}
	return fmt.Errorf("%s already exists and %s; remove it first, or add --force to replace it", m.dest(name), why)
}

// installedDigest is the digest of the skill installed as name, or an
// error: fs.ErrNotExist when there is none.
func (m *Manager) installedDigest(name string) (string, *skills.Skill, error) {
	dir := m.dest(name)
	if _, err := os.Lstat(dir); err != nil {
		return "", nil, err
	}
	s, err := skills.LoadDir(dir, nil)
	if err != nil {
		return "", nil, fmt.Errorf("does not load: %w", err)
	}
	d, err := s.Digest()
	return d, s, err
}

// A Status is one locked skill as installed.
type Status struct {
	Name   string
	State  string // "ok", "missing" or "differs"
	Detail string // why it differs
}

func (s Status) String() string {
	if s.Detail != "" {
		return fmt.Sprintf("%s: %s (%s)", s.Name, s.State, s.Detail)
	}
	return s.Name + ": " + s.State
}

// Verify checks each locked skill against what is installed. Extras are
// the folders in the skills folder the lock does not name: other tools
// and hand-written skills share it, so they are reported, not failed.
func (m *Manager) Verify() (statuses []Status, extras []string, err error) {
	lock, err := ReadLock(m.o.LockFile)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		statuses = append(statuses, m.status(name, lock.Skills[name]))
	}
	if entries, err := os.ReadDir(m.o.SkillsDir); err == nil {
		for _, e := range entries {
			if _, ok := lock.Skills[e.Name()]; !ok && !strings.HasPrefix(e.Name(), ".") {
				extras = append(extras, e.Name())
			}
		}
	}
	return statuses, extras, nil
}

func (m *Manager) status(name string, e Entry) Status {
	d, _, err := m.installedDigest(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Status{Name: name, State: "missing", Detail: m.dest(name) + " does not exist"}
	case err != nil:
		return Status{Name: name, State: "differs", Detail: err.Error()}
	case d != e.ComputedHash:
		return Status{Name: name, State: "differs", Detail: "digest " + d + ", locked " + e.ComputedHash}
	}
	return Status{Name: name, State: "ok"}
}

// ErrNotLocked reports verbs that found installed content differing
// from the lock, for callers that choose an exit code.
var ErrNotLocked = errors.New("installed skills differ from the lock")

// Install restores exactly what the lock names: each skill whose folder
// is missing or differs is fetched at its locked commit and must have
// its locked digest. With frozen, nothing changes: every skill missing or
// differing is listed and the error wraps [ErrNotLocked].
func (m *Manager) Install(ctx context.Context, frozen bool) error {
	lock, err := ReadLock(m.o.LockFile)
	if err != nil {
		return err
	}
	if len(lock.Skills) == 0 {
		m.printf("%s pins no skills (add some with skillrun add SOURCE)", m.o.LockFile)
		return nil
	}
	var todo []Status
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		st := m.status(name, lock.Skills[name])
		if st.State == "ok" {
			m.printf("%s: ok", name)
			continue
		}
		if frozen {
			m.printf("%s", st)
		}
		todo = append(todo, st)
	}
	if frozen {
		if len(todo) > 0 {
			return fmt.Errorf("%w: %d of %d skills (run skillrun install to restore them)", ErrNotLocked, len(todo), len(lock.Skills))
		}
		return nil
	}
	tx := &txn{dir: m.o.SkillsDir}
	defer tx.abort()
	sources := map[string]string{}
	for _, st := range todo {
		e := lock.Skills[st.Name]
		key := e.URL + "\x00" + e.Commit
		base, ok := sources[key]
		if !ok {
			dir, _, done, err := m.open(ctx, e.URL, e.Commit != "", "", e.Commit)
			if err != nil {
				return fmt.Errorf("%s: %w", st.Name, err)
			}
			defer done()
			base, sources[key] = dir, dir
		}
		sg, err := tx.stage(base, e.SkillPath, st.Name)
		if err != nil {
			return fmt.Errorf("%s: %s at %s: %w", st.Name, e.URL, at(e), err)
		}
		if sg.digest != e.ComputedHash {
			return fmt.Errorf("%s: %s at %s no longer has the locked content (digest %s, locked %s); run skillrun update %s to take what it has now", st.Name, e.URL, at(e), sg.digest, e.ComputedHash, st.Name)
		}
	}
	if err := tx.commit(nil); err != nil {
		return err
	}
	for _, st := range todo {
		m.printf("%s: restored (was %s)", st.Name, st.State)
	}
	return nil
}

func at(e Entry) string {
	if e.Commit == "" {
		return e.SkillPath
	}
	return e.Commit + ":" + e.SkillPath
}

// Update moves each named skill (all when names is empty) to the newest
// commit of its ref, reinstalls it, and says what changed in what it
// asks for. A plain folder is copied and digested again.
func (m *Manager) Update(ctx context.Context, names []string) error {
	lock, err := ReadLock(m.o.LockFile)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(lock.Skills))
	}
	for _, n := range names {
		if _, ok := lock.Skills[n]; !ok {
			return fmt.Errorf("no skill %q in %s; it has: %s", n, m.o.LockFile, strings.Join(slices.Sorted(maps.Keys(lock.Skills)), ", "))
		}
	}
	tx := &txn{dir: m.o.SkillsDir}
	defer tx.abort()
	var report []string
	for _, name := range names {
		e := lock.Skills[name]
		commit := e.Commit
		if e.Commit != "" {
			if commit, err = resolveRemote(ctx, e.URL, e.Ref); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if commit == e.Commit {
				m.printf("%s: up to date (%s)", name, short(commit))
				continue
			}
		}
		base, _, done, err := m.open(ctx, e.URL, e.Commit != "", "", commit)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer done()
		sg, err := tx.stage(base, e.SkillPath, name)
		if err != nil {
			return fmt.Errorf("%s: %s at %s: %w", name, e.URL, at(Entry{Commit: commit, SkillPath: e.SkillPath}), err)
		}
		if e.Commit == "" && sg.digest == e.ComputedHash {
			tx.drop(sg)
			m.printf("%s: up to date (folder unchanged)", name)
			continue
		}
		var before Caps
		if _, s, err := m.installedDigest(name); err == nil {
			before = inspect(s, m.dest(name))
		}
		ne := e
		ne.Commit, ne.ComputedHash = commit, sg.digest
		lock.Skills[name] = ne
		report = append(report, updatedLines(name, e, ne, before, sg.caps)...)
	}
	if len(report) == 0 {
		return nil
	}
	if err := tx.commit(func() error { return lock.Write(m.o.LockFile) }); err != nil {
		return err
	}
	for _, l := range report {
		m.printf("%s", l)
	}
	return nil
}

func updatedLines(name string, old, cur Entry, before, after Caps) []string {
	lines := []string{fmt.Sprintf("updated %s: %s -> %s", name, short(old.Commit), short(cur.Commit))}
	if old.ComputedHash == cur.ComputedHash {
		return append(lines, "  content unchanged (digest "+cur.ComputedHash+")")
	}
	lines = append(lines, "  digest "+old.ComputedHash+" -> "+cur.ComputedHash)
	if d := Diff(before, after); len(d) > 0 {
		lines = append(lines, "  what it asks for changed:")
		for _, l := range d {
			lines = append(lines, "    "+l)
		}
	} else {
		lines = append(lines, "  what it asks for: unchanged")
	}
	return append(lines,
		"  a policy that pins the old digest now withholds this skill's grants until you re-grant it; to pin the new content use:",
		fmt.Sprintf("    digest = %q", cur.ComputedHash))
}

func short(commit string) string {
	if commit == "" {
		return "folder"
	}
	return commit[:min(len(commit), 12)]
}

// A staged skill is a copy waiting in a temporary folder beside its
// destination, loaded and digested.
type staged struct {
	name, tmp, dest string
	backup          string // where the replaced folder waits, "" if none
	digest          string
	skill           *skills.Skill
	caps            Caps
}

// A txn installs skills all or nothing: stage copies each one into a
// hidden temporary folder inside the skills folder (so the final rename
// stays on one file system and is atomic), commit swaps them all into
// place and runs the lock write, undoing every swap if anything fails.
type txn struct {
	dir     string
	created bool // dir did not exist before
	staged  []*staged
	done    bool
}

// stage copies the skill folder rel (a slash path) of the source folder
// base and checks the copy: it must load as a valid skill named name (its
// folder's name to be), with no link leading out.
func (t *txn) stage(base, rel, name string) (*staged, error) {
	src, err := within(base, rel)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(t.dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(t.dir, 0o755); err != nil {
			return nil, err
		}
		t.created = true
	}
	tmp, err := os.MkdirTemp(t.dir, ".skillrun-new-*")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	st := &staged{name: name, tmp: tmp, dest: filepath.Join(t.dir, name)}
	t.staged = append(t.staged, st)
	if err := copyTree(src, tmp); err != nil {
		return nil, err
	}
	s, err := skills.LoadDir(tmp, &skills.LoadOptions{DirName: name})
	if err != nil {
		return nil, fmt.Errorf("invalid skill: %w", err)
	}
	if s.Name != name {
		return nil, fmt.Errorf("its SKILL.md now names it %q, not %q; remove %s and add the skill again", s.Name, name, name)
	}
	if st.digest, err = s.Digest(); err != nil {
		return nil, err
	}
	st.skill, st.caps = s, inspect(s, tmp)
	return st, nil
}

// within returns the folder rel names in base, with links resolved,
// refusing one that a link in the repository leads elsewhere: a new
// commit could turn a locked skillPath into a link to the user's files,
// which a copy would then bring into the skills folder.
func within(base, rel string) (string, error) {
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(rel)))
	if err != nil {
		return "", fmt.Errorf("the skill's folder %s is not there", rel)
	}
	r, err := filepath.Rel(realBase, real)
	if err != nil || r != "." && !filepath.IsLocal(r) {
		return "", fmt.Errorf("the skill's folder %s leads out of the repository through a symbolic link", rel)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the skill's folder %s is not a folder", rel)
	}
	return real, nil
}

// drop discards a staged copy that is not needed.
func (t *txn) drop(st *staged) {
	_ = os.RemoveAll(st.tmp)
	t.staged = slices.DeleteFunc(t.staged, func(s *staged) bool { return s == st })
}

// commit moves every staged copy into place, the folder it replaces
// aside, then runs after (the lock write); on any failure it puts every
// folder back as it was.
func (t *txn) commit(after func() error) error {
	var moved []*staged
	undo := func(err error) error {
		for _, st := range slices.Backward(moved) {
			err = errors.Join(err, os.Rename(st.dest, st.tmp))
			if st.backup != "" {
				err = errors.Join(err, os.Rename(st.backup, st.dest))
				st.backup = ""
			}
		}
		return err
	}
	for _, st := range t.staged {
		if _, err := os.Lstat(st.dest); err == nil {
			st.backup = st.tmp + ".old"
			if err := os.Rename(st.dest, st.backup); err != nil {
				st.backup = ""
				return undo(err)
			}
		}
		if err := os.Rename(st.tmp, st.dest); err != nil {
			if st.backup != "" {
				err = errors.Join(err, os.Rename(st.backup, st.dest))
				st.backup = ""
			}
			return undo(err)
		}
		moved = append(moved, st)
	}
	if after != nil {
		if err := after(); err != nil {
			return undo(err)
		}
	}
	t.done = true
	for _, st := range t.staged {
		if st.backup != "" {
			_ = os.RemoveAll(st.backup)
		}
	}
	return nil
}

// abort removes what an unfinished transaction staged, and the skills
// folder if it made it and it is empty again.
func (t *txn) abort() {
	if t.done {
		return
	}
	for _, st := range t.staged {
		_ = os.RemoveAll(st.tmp)
	}
	if t.created {
		_ = os.Remove(t.dir) // only if empty
	}
}
