package skillpkg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Source types, as the lock's sourceType records them. They follow the
// words `npx skills` writes ("github", "local"), plus "git" for any other
// git URL.
const (
	TypeGitHub = "github"
	TypeGit    = "git"
	TypeLocal  = "local"
)

// A Source is where skills come from, as [ParseSource] read it.
type Source struct {
	// Raw is the source as given, without its @ref.
	Raw string
	// Type is TypeGitHub, TypeGit or TypeLocal.
	Type string
	// URL is what git clones, or for a plain folder (Git false) the
	// absolute folder that is copied.
	URL string
	// Ref is the branch, tag or commit asked for; "" means the remote's
	// default branch.
	Ref string
	// Git is false for a local folder that is not in a git work tree: it
	// is copied as it is and recorded with no commit.
	Git bool
	// Sub is, for a local path inside a larger work tree, the path of
	// that folder in the repository (slash-separated); skills are looked
	// for there only. "" means the repository's root.
	Sub string
}

// ownerRepo is GitHub's shorthand: owner and repository names as GitHub
// allows them.
var ownerRepo = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)

// scpLike is git's ssh shorthand user@host:path (no scheme, a colon
// before any slash).
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:[^/]`)

// ParseSource reads SOURCE[@REF]: owner/repo (a GitHub repository), a
// git URL (https://, http://, ssh://, git://, file://, or the ssh-style
// git@host:path), or a local path. A local folder inside a git work tree
// is cloned like a URL, so its commit is recorded; any other folder is
// copied. An existing local path wins over the owner/repo reading, so
// "skills/pdf" in a project means that folder.
func ParseSource(arg string) (Source, error) {
	if arg == "" {
		return Source{}, errors.New("empty source")
	}
	if strings.ContainsAny(arg, "\x00\n\r") {
		return Source{}, fmt.Errorf("source %q: control characters are not allowed", arg)
	}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return localSource(arg, "")
	}
	raw, ref := splitRef(arg)
	if ref != "" {
		if err := checkRef(ref); err != nil {
			return Source{}, fmt.Errorf("source %q: %w", arg, err)
		}
	}
	switch {
	case strings.Contains(raw, "://"):
		scheme := strings.ToLower(raw[:strings.Index(raw, "://")])
		switch scheme {
		case "https", "http", "ssh", "git", "file":
		default:
			return Source{}, fmt.Errorf("source %q: unsupported scheme %q (use https://, ssh://, git://, file:// or a local path)", arg, scheme)
		}
		return Source{Raw: raw, Type: TypeGit, URL: raw, Ref: ref, Git: true}, nil
	case scpLike.MatchString(raw):
		return Source{Raw: raw, Type: TypeGit, URL: raw, Ref: ref, Git: true}, nil
	case isLocalSpelling(raw):
		fi, err := os.Stat(raw)
		if err != nil {
			return Source{}, fmt.Errorf("source %q: %w", arg, err)
		}
		if !fi.IsDir() {
			return Source{}, fmt.Errorf("source %q: not a folder", arg)
		}
		return localSource(raw, ref)
	case ownerRepo.MatchString(raw):
		url := "https://github.com/" + strings.TrimSuffix(raw, ".git") + ".git"
		return Source{Raw: raw, Type: TypeGitHub, URL: url, Ref: ref, Git: true}, nil
	}
	return Source{}, fmt.Errorf("source %q: not owner/repo, a git URL or an existing folder", arg)
}

// splitRef splits SOURCE@REF. Only an @ after the part of a URL that may
// hold a user name counts: after the host of scheme://user@host/ and
// after the colon of user@host:path. The last such @ is the separator,
// since refs rarely hold one and paths even less.
func splitRef(s string) (source, ref string) {
	start := 0
	switch {
	case strings.Contains(s, "://"):
		rest := s[strings.Index(s, "://")+3:]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			start = len(s) - len(rest) + i
		} else {
			start = len(s)
		}
	case scpLike.MatchString(s):
		start = strings.IndexByte(s, ':')
	}
	i := strings.LastIndexByte(s[start:], '@')
	if i < 0 {
		return s, ""
	}
	return s[:start+i], s[start+i+1:]
}

// checkRef refuses refs git would read as an option or that no branch,
// tag or commit can be named.
func checkRef(ref string) error {
	switch {
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("ref %q must not start with '-'", ref)
	case len(ref) > 255:
		return errors.New("ref longer than 255 bytes")
	case strings.ContainsAny(ref, " ~^:?*[\\") || strings.Contains(ref, ".."):
		return fmt.Errorf("ref %q is not a valid branch, tag or commit name", ref)
	}
	return nil
}

// isLocalSpelling says whether s is written as a path rather than
// owner/repo: relative to here or home, absolute, or a Windows drive.
func isLocalSpelling(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~/") || filepath.IsAbs(s) || strings.HasPrefix(s, "/") ||
		len(s) >= 2 && s[1] == ':'
}

// localSource makes the Source of a local folder: cloned from its work
// tree's top when there is one, else copied.
func localSource(p, ref string) (Source, error) {
	if strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return Source{}, err
		}
		p = filepath.Join(home, p[2:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Source{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	top, err := workTreeTop(abs)
	if err != nil {
		return Source{}, err
	}
	if top == "" {
		if ref != "" {
			return Source{}, fmt.Errorf("source %q: @%s needs a git repository, and this folder is not in one", p, ref)
		}
		return Source{Raw: p, Type: TypeLocal, URL: abs}, nil
	}
	sub, err := filepath.Rel(top, abs)
	if err != nil {
		return Source{}, err
	}
	if sub == "." {
		sub = ""
	}
	return Source{Raw: p, Type: TypeLocal, URL: top, Ref: ref, Git: true, Sub: filepath.ToSlash(sub)}, nil
}
