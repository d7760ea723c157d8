package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillrun/skillrun/skills"
)

// ownerRepo is a GitHub owner/repo as ADE-bench writes a skills entry.
var ownerRepo = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)

// ResolveSkills loads the skills a set names. An entry is a local path
// (relative to the plugin-sets file's folder), or a repository: a git
// URL or a GitHub owner/repo. skillrun fetches nothing; a repository is
// used when it has already been cloned to reposDir/<host>/<owner>/<repo>,
// and otherwise the error says the command that would fetch it. Each
// entry may be one skill or a folder of skills.
func ResolveSkills(s *PluginSet, setsFile, reposDir string) ([]*skills.Skill, error) {
	base := filepath.Dir(setsFile)
	var roots []skills.Root
	for _, entry := range s.Skills {
		dir, err := skillDir(entry, base, reposDir)
		if err != nil {
			return nil, fmt.Errorf("plugin set %s: skill %q: %w", s.Name, entry, err)
		}
		roots = append(roots, skills.Root{Dir: dir, Origin: skills.OriginPath})
	}
	if len(roots) == 0 {
		return nil, nil
	}
	d := skills.Discover(roots, nil)
	if len(d.Failed) > 0 {
		f := d.Failed[0]
		return nil, fmt.Errorf("plugin set %s: %s cannot be loaded: %w", s.Name, f.Dir, f.Problems)
	}
	if len(d.Skills) == 0 {
		return nil, fmt.Errorf("plugin set %s: no skill found in %s", s.Name, strings.Join(s.Skills, ", "))
	}
	return d.Skills, nil
}

func skillDir(entry, base, reposDir string) (string, error) {
	local := entry
	if !filepath.IsAbs(local) {
		local = filepath.Join(base, filepath.FromSlash(entry))
	}
	if fi, err := os.Stat(local); err == nil && (fi.IsDir() || strings.HasSuffix(entry, ".zip")) {
		return local, nil
	}
	host, repo, ok := repoOf(entry)
	if !ok {
		return "", fmt.Errorf("not found at %s", local)
	}
	if reposDir != "" {
		dir := filepath.Join(reposDir, host, filepath.FromSlash(repo))
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir, nil
		}
	}
	where := filepath.Join(reposDir, host, filepath.FromSlash(repo))
	return "", fmt.Errorf("a repository skillrun does not fetch (trials run offline); clone it first: git clone https://%s/%s %s", host, repo, where)
}

// repoOf reads owner/repo, https://host/owner/repo(.git) and
// git@host:owner/repo(.git).
func repoOf(entry string) (host, repo string, ok bool) {
	e := strings.TrimSuffix(strings.TrimSuffix(entry, "/"), ".git")
	switch {
	case ownerRepo.MatchString(e):
		return "github.com", e, true
	case strings.HasPrefix(e, "https://") || strings.HasPrefix(e, "http://"):
		rest := e[strings.Index(e, "://")+3:]
		h, p, found := strings.Cut(rest, "/")
		if found && ownerRepo.MatchString(p) {
			return h, p, true
		}
	case strings.HasPrefix(e, "git@"):
		h, p, found := strings.Cut(strings.TrimPrefix(e, "git@"), ":")
		if found && ownerRepo.MatchString(p) {
			return h, p, true
		}
	}
	return "", "", false
}
