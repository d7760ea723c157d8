package skillpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// fetchTimeout bounds one git command: a clone of a large repository
// over a slow link takes minutes, and one that takes longer is stuck.
const fetchTimeout = 5 * time.Minute

// maxGitOutput bounds what is kept of a git command's output.
const maxGitOutput = 1 << 20

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// workTreeTop returns the top folder of the git work tree holding dir,
// or "" when there is none. It looks for .git itself rather than asking
// git, so that copying a plain folder does not need git installed.
func workTreeTop(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

// git runs the git command confined for fetching strangers' repositories:
// no prompt for credentials (a missing repository fails instead of
// waiting), no system config, no hooks, no fsmonitor, and only the
// ordinary transports (no ext::, whose "URL" is a command line).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return "", errors.New("the git command is needed to fetch skills from repositories and was not found; install git (Debian/Ubuntu: apt-get install git; macOS: xcode-select --install)")
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	full := append([]string{
		"-c", "core.hooksPath=" + os.DevNull,
		"-c", "core.fsmonitor=false",
		"-c", "submodule.recurse=false",
		"-c", "advice.detachedHead=false",
	}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_ALLOW_PROTOCOL=file:git:http:https:ssh",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes",
		"LC_ALL=C",
	)
	var out, errOut limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("git %s: took longer than %s", args[0], fetchTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// limitedBuffer keeps the first maxGitOutput bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxGitOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// A checkout is a repository cloned into a temporary folder, detached at
// one commit.
type checkout struct {
	dir    string // the work tree
	commit string // 40 hex
	tmp    string // what remove deletes
}

func (c *checkout) remove() { _ = os.RemoveAll(c.tmp) }

// fetch clones url into a temporary folder and checks out commit, or
// when commit is "" the commit ref names (the default branch for "").
// A commit no branch or tag of the clone holds is fetched by its hash,
// which hosts such as GitHub serve. No submodule is fetched.
func fetch(ctx context.Context, url, ref, commit string) (*checkout, error) {
	tmp, err := os.MkdirTemp("", "skillrun-fetch-*")
	if err != nil {
		return nil, err
	}
	c := &checkout{dir: filepath.Join(tmp, "repo"), tmp: tmp}
	ok := false
	defer func() {
		if !ok {
			c.remove()
		}
	}()
	if _, err := git(ctx, tmp, "clone", "--quiet", "--no-checkout", "--no-recurse-submodules", "--", url, c.dir); err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	want := commit
	if want == "" {
		if want, err = revParse(ctx, c.dir, ref); err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
	} else if _, err := git(ctx, c.dir, "cat-file", "-e", want+"^{commit}"); err != nil {
		if _, err := git(ctx, c.dir, "fetch", "--quiet", "origin", want); err != nil {
			return nil, fmt.Errorf("%s no longer has commit %s: %w", url, want, err)
		}
	}
	if _, err := git(ctx, c.dir, "checkout", "--quiet", "--detach", want); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	c.commit = want
	ok = true
	return c, nil
}

// revParse resolves ref in a fresh clone to a full commit: "" is the
// remote's default branch (the clone's HEAD), a branch is found as
// origin/REF, a tag or a commit as itself.
func revParse(ctx context.Context, dir, ref string) (string, error) {
	candidates := []string{"HEAD"}
	if ref != "" {
		candidates = []string{"refs/remotes/origin/" + ref, "refs/tags/" + ref, ref}
	}
	for _, c := range candidates {
		out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")
		if err == nil && fullCommit.MatchString(out) {
			return out, nil
		}
	}
	if ref == "" {
		return "", errors.New("the repository has no default branch")
	}
	return "", fmt.Errorf("no branch, tag or commit %q", ref)
}

// resolveRemote returns the commit ref names on the remote now, without
// cloning: what `skillrun update` compares with the lock. A full commit
// hash names itself.
func resolveRemote(ctx context.Context, url, ref string) (string, error) {
	if fullCommit.MatchString(ref) {
		return ref, nil
	}
	pattern := ref
	if ref == "" {
		pattern = "HEAD"
	}
	out, err := git(ctx, "", "ls-remote", "--", url, pattern)
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", url, err)
	}
	found := map[string]string{}
	for line := range strings.Lines(out) {
		hash, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && fullCommit.MatchString(hash) {
			found[name] = hash
		}
	}
	// A tag's peeled commit (^{}) before the tag object itself.
	for _, name := range []string{"HEAD", "refs/heads/" + ref, "refs/tags/" + ref + "^{}", "refs/tags/" + ref, ref} {
		if h, ok := found[name]; ok && (ref != "" || name == "HEAD") {
			return h, nil
		}
	}
	if ref == "" {
		return "", fmt.Errorf("%s has no default branch", url)
	}
	// An abbreviated commit: only a clone can say what it is.
	c, err := fetch(ctx, url, ref, "")
	if err != nil {
		return "", err
	}
	defer c.remove()
	return c.commit, nil
}
