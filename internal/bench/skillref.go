package bench

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// ResolveSkills loads the skills a set names. An entry is a local path
// (relative to the plugin-sets file's folder), or a repository: a git
// URL or a GitHub owner/repo. skillrun fetches nothing; a repository is
// used when it has already been cloned to reposDir/<host>/<owner>/<repo>,
// and otherwise the error says the command that would fetch it. Each
// entry may be one skill or a folder of skills.
func ResolveSkills(s *PluginSet, setsFile, reposDir string) ([]*skills.Skill, error) {
	c, err := resolveCatalog(s, setsFile, reposDir)
	if c == nil || err != nil {
		return nil, err
	}
	return c.Skills(), nil
}

// resolveCatalog finds what a set's entries hold: their skills, and the
// Markdown skills and YAML modules a trial's tools include as a session
// over those folders would (package toolset). Nil for a set without
// skills.
func resolveCatalog(s *PluginSet, setsFile, reposDir string) (*toolset.Catalog, error) {
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
	c := toolset.Discover(roots, nil)
	if d := c.Discovery; len(d.Failed) > 0 {
		f := d.Failed[0]
		return nil, fmt.Errorf("plugin set %s: %s cannot be loaded: %w", s.Name, f.Dir, f.Problems)
	}
	if c.Empty() {
		return nil, fmt.Errorf("plugin set %s: no skill found in %s", s.Name, strings.Join(s.Skills, ", "))
	}
	return c, nil
}

// skillDir finds an entry's folder: a local path as the file's author
// wrote it, else an already-cloned repository inside reposDir.
//
// A local path is resolved by the kernel, not cleaned first
// (filepath.Join would turn "owner/../.." into the folder above the file
// whether or not "owner" exists). A repository reference is validated
// part by part (repoOf) and its folder must stay inside reposDir, so no
// reference can name, or tell the operator to clone into, a folder
// outside the cache.
func skillDir(entry, base, reposDir string) (string, error) {
	local := filepath.FromSlash(entry)
	if !filepath.IsAbs(local) {
		local = base + string(filepath.Separator) + local
	}
	if fi, err := os.Stat(local); err == nil && (fi.IsDir() || strings.HasSuffix(entry, ".zip")) {
		return filepath.Clean(local), nil
	}
	ref, err := repoOf(entry)
	if errors.Is(err, errNotRepo) {
		return "", fmt.Errorf("not found at %s, and not a repository reference (owner/repo, https://host/owner/repo or git@host:owner/repo)", filepath.Clean(local))
	}
	if err != nil && !strings.Contains(entry, "://") && !strings.HasPrefix(entry, "git@") {
		return "", fmt.Errorf("not found at %s, and not a valid owner/repo: %w", filepath.Clean(local), err)
	}
	if err != nil {
		return "", fmt.Errorf("invalid repository reference: %w", err)
	}
	rel := filepath.Join(ref.host, ref.owner, ref.repo)
	if !filepath.IsLocal(rel) {
		// repoOf's checks make this unreachable; it is the last word.
		return "", fmt.Errorf("repository reference leads outside the repositories folder %s", reposDir)
	}
	where := filepath.Join(reposDir, rel)
	if reposDir != "" {
		if fi, err := os.Stat(where); err == nil && fi.IsDir() {
			return where, nil
		}
	}
	return "", fmt.Errorf("a repository skillrun does not fetch (trials run offline); clone it first: git clone https://%s/%s/%s %s", ref.host, ref.owner, ref.repo, where)
}

// A repoRef is a repository reference, each part validated.
type repoRef struct{ host, owner, repo string }

// errNotRepo: the entry has none of the repository reference forms.
var errNotRepo = errors.New("not a repository reference")

// Limits of a reference's parts (GitHub's: owners 39, repositories 100;
// DNS: 253 for a name).
const (
	maxHost  = 253
	maxOwner = 39
	maxRepo  = 100
)

var (
	// ownerRE is a GitHub owner: letters, digits and inner dashes.
	ownerRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
	// repoRE is a repository name: it starts with a letter or digit (no
	// dot, so never "." or "..", and no dash, so never an option).
	repoRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// labelRE is one label of a DNS name.
	labelRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
)

// repoOf reads owner/repo, https://host/owner/repo(.git) and
// git@host:owner/repo(.git). errNotRepo means none of these forms; any
// other error says which part of a reference is invalid. The parts are
// folder names under the repositories cache and words of a git command
// line, so each must be a plain name: the host a DNS name or an IP
// address, the owner and the repository names from a safe set of
// characters, none empty, "..", or starting with a dash or a dot.
func repoOf(entry string) (repoRef, error) {
	e := strings.TrimSuffix(strings.TrimSuffix(entry, "/"), ".git")
	var host, path string
	switch {
	case strings.HasPrefix(e, "https://") || strings.HasPrefix(e, "http://"):
		rest := e[strings.Index(e, "://")+3:]
		h, p, found := strings.Cut(rest, "/")
		if !found {
			return repoRef{}, errors.New("want https://host/owner/repo")
		}
		host, path = h, p
	case strings.HasPrefix(e, "git@"):
		h, p, found := strings.Cut(strings.TrimPrefix(e, "git@"), ":")
		if !found {
			return repoRef{}, errors.New("want git@host:owner/repo")
		}
		host, path = h, p
	case strings.Count(e, "/") == 1 && !strings.HasPrefix(e, ".") && !strings.HasPrefix(e, "-"):
		host, path = "github.com", e
	default:
		return repoRef{}, errNotRepo
	}
	if err := checkHost(host); err != nil {
		return repoRef{}, fmt.Errorf("host %q: %w", host, err)
	}
	owner, repo, ok := strings.Cut(path, "/")
	if !ok || strings.Contains(repo, "/") {
		return repoRef{}, fmt.Errorf("%q is not owner/repo", path)
	}
	if len(owner) > maxOwner || !ownerRE.MatchString(owner) {
		return repoRef{}, fmt.Errorf("owner %q: want letters, digits and inner dashes, at most %d", owner, maxOwner)
	}
	if len(repo) > maxRepo || !repoRE.MatchString(repo) || strings.Contains(repo, "..") {
		return repoRef{}, fmt.Errorf("repository %q: want letters, digits, '.', '_' and '-', starting with a letter or digit, no \"..\", at most %d", repo, maxRepo)
	}
	return repoRef{host: host, owner: owner, repo: repo}, nil
}

// checkHost accepts a DNS name or an IP address (IPv6 in brackets);
// no port, user, path or "..".
func checkHost(h string) error {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		if a, err := netip.ParseAddr(h[1 : len(h)-1]); err == nil && a.Is6() && a.Zone() == "" {
			return nil
		}
		return errors.New("not an IPv6 address")
	}
	if a, err := netip.ParseAddr(h); err == nil && a.Is4() {
		return nil
	}
	if h == "" || len(h) > maxHost {
		return fmt.Errorf("want a DNS name of 1 to %d characters", maxHost)
	}
	for label := range strings.SplitSeq(h, ".") {
		if len(label) > 63 || !labelRE.MatchString(label) {
			return errors.New("want a DNS name (labels of letters, digits and inner dashes) or an IP address")
		}
	}
	return nil
}
