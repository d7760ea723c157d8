package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/internal/skillname"
)

// An Origin says where a discovered skill came from. Origins are listed
// here from highest precedence to lowest: when two skills share a name, the
// one from the higher origin is kept and the other reported.
type Origin string

const (
	// OriginPath is a path given explicitly (a CLI argument).
	OriginPath Origin = "path"
	// OriginProject is a project's .agents/skills or .claude/skills.
	OriginProject Origin = "project"
	// OriginUser is the user's ~/.agents/skills, ~/.claude/skills or the
	// skillrun config dir.
	OriginUser Origin = "user"
)

var originRank = map[Origin]int{OriginPath: 0, OriginProject: 1, OriginUser: 2}

// A Root is a place to look for skills.
type Root struct {
	Dir    string `json:"dir"`
	Origin Origin `json:"origin"`
}

// DefaultRoots returns the conventional roots for a project directory and
// the current user, highest precedence first: the project's .agents/skills
// then .claude/skills, then the user's ~/.agents/skills, ~/.claude/skills
// and <user config dir>/skillrun/skills. A project's skills override the
// user's because they are the more specific choice, as with any tool's
// project-over-user configuration. Roots that do not exist are kept; the
// scan skips them silently.
func DefaultRoots(projectDir string) []Root {
	var roots []Root
	if projectDir != "" {
		roots = append(roots,
			Root{filepath.Join(projectDir, ".agents", "skills"), OriginProject},
			Root{filepath.Join(projectDir, ".claude", "skills"), OriginProject})
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots,
			Root{filepath.Join(home, ".agents", "skills"), OriginUser},
			Root{filepath.Join(home, ".claude", "skills"), OriginUser})
	}
	if cfg, err := os.UserConfigDir(); err == nil {
		roots = append(roots, Root{filepath.Join(cfg, "skillrun", "skills"), OriginUser})
	}
	return roots
}

// Bounds on discovery, which walks directories the user may not control.
const (
	// maxDiscoverDepth is how far below a root skills are looked for
	// (root/skill, root/group/skill, root/a/b/skill).
	maxDiscoverDepth = 3
	// maxDiscoverEntries bounds the directory entries one scan visits.
	maxDiscoverEntries = 100_000
)

// A Discovery is the result of scanning roots: the skills kept, in
// discovery order, and every problem met (skills skipped, shadowed names,
// unreadable directories), as warnings.
type Discovery struct {
	Skills   []*Skill
	Problems Problems
	// Failed holds the skills that could not be loaded.
	Failed []*LoadError
}

// Discover finds and loads skills under roots, in the order given, which
// is also their precedence. A root may itself be a skill (a directory with
// SKILL.md, or a .zip); otherwise its subdirectories are searched, up to
// maxDiscoverDepth levels, not descending into hidden directories,
// node_modules, or a skill once found. Skills are loaded leniently unless
// o.Strict.
//
// Names are compared after NFKC normalisation and case folding, so a
// look-alike ("ｄeploy", "Deploy") collides with the name it imitates.
// Of skills claiming one name only the one from the highest root is kept;
// each collision is a warning naming both, as written and escaped, and
// every kept skill records the others in [Skill.Rivals], so that no
// policy grant by name goes to either (see [Skill.Ref]).
func Discover(roots []Root, o *LoadOptions) *Discovery {
	d := &Discovery{}
	type kept struct {
		skill  *Skill
		origin Origin
	}
	byName := map[string]kept{}
	claims := map[string][]*Skill{} // every skill claiming a name, by key
	budget := maxDiscoverEntries
	for _, r := range roots {
		paths, ps := findSkillPaths(r.Dir, &budget)
		d.Problems = append(d.Problems, ps...)
		for _, p := range paths {
			s, err := Load(p, o)
			var le *LoadError
			switch {
			case errors.As(err, &le):
				d.Failed = append(d.Failed, le)
				continue
			case err != nil:
				d.Problems = append(d.Problems, Problem{Severity: Warning, File: p, Message: err.Error()})
				continue
			}
			s.Origin = r.Origin
			key := skillname.Key(s.Name)
			claims[key] = append(claims[key], s)
			prev, dup := byName[key]
			if !dup {
				byName[key] = kept{s, r.Origin}
				d.Skills = append(d.Skills, s)
				continue
			}
			winner, loser := prev.skill, s
			if originRank[r.Origin] < originRank[prev.origin] {
				winner, loser = s, prev.skill
			}
			d.Problems = append(d.Problems, Problem{Severity: Warning, File: loser.Location, Field: "name",
				Code: "name-collision", Message: fmt.Sprintf(
					"skill %q (%s) is shadowed by skill %q at %q (%s), which claims the same name; no policy grant by name goes to either: pin the one meant with path = \"...\" in the policy",
					loser.Name, loser.Origin, winner.Name, winner.Location, winner.Origin)})
			if winner == s {
				for i, x := range d.Skills {
					if x == prev.skill {
						d.Skills[i] = s
					}
				}
				byName[key] = kept{s, r.Origin}
			}
		}
	}
	for _, list := range claims {
		if len(list) < 2 {
			continue
		}
		for _, s := range list {
			for _, other := range list {
				if other != s {
					s.Rivals = append(s.Rivals, other.where())
				}
			}
		}
	}
	return d
}

// where names the skill's location for messages: its place on disk, or
// where its SKILL.md was found.
func (s *Skill) where() string {
	if s.place != "" {
		return s.place
	}
	return s.Location
}

// findSkillPaths returns the skills under dir in lexical order: dir itself
// when it is a skill, else the skill directories and .zip files below it.
func findSkillPaths(dir string, budget *int) ([]string, Problems) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, Problems{{Severity: Warning, File: dir, Message: err.Error()}}
	}
	if !fi.IsDir() {
		return []string{dir}, nil
	}
	var out []string
	var ps Problems
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		if hasSkillFile(d) {
			out = append(out, d)
			return
		}
		if depth == maxDiscoverDepth {
			return
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			ps = append(ps, Problem{Severity: Warning, File: d, Message: err.Error()})
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if *budget--; *budget < 0 {
				if *budget == -1 {
					ps = append(ps, Problem{Severity: Warning, File: dir,
						Message: fmt.Sprintf("stopped after %d directory entries; point skillrun at a narrower folder", maxDiscoverEntries)})
				}
				return
			}
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			p := filepath.Join(d, name)
			switch {
			case e.IsDir():
				walk(p, depth+1)
			case e.Type()&fs.ModeSymlink != 0:
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					walk(p, depth+1)
				}
			case strings.EqualFold(filepath.Ext(name), ".zip"):
				out = append(out, p)
			}
		}
	}
	walk(dir, 0)
	return out, ps
}

func hasSkillFile(dir string) bool {
	for _, n := range skillFileNames {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Found lists the skills under one path, without loading them.
type Found struct {
	// Paths are the skill folders and .zip files found, in lexical order.
	Paths []string
	// Problems are unreadable folders and scan limits met, as warnings.
	Problems Problems
	// Err is set when the path itself cannot be read (it does not exist,
	// or permission is denied).
	Err error
}

// FindSkills finds the skills at or below p, as [Discover] does for each
// root, without loading them: p itself when it is a skill folder, a
// SKILL.md or a .zip, else the skills in the folders below it.
func FindSkills(p string) Found {
	fi, err := os.Stat(p)
	if err != nil {
		return Found{Err: err}
	}
	if !fi.IsDir() {
		if isSkillFileName(filepath.Base(p)) {
			return Found{Paths: []string{filepath.Dir(p)}}
		}
		return Found{Paths: []string{p}}
	}
	budget := maxDiscoverEntries
	paths, ps := findSkillPaths(p, &budget)
	return Found{Paths: paths, Problems: ps}
}
