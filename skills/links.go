package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// maxLinkScanEntries bounds the files and folders [checkLinks] visits in
// one skill. A skill with more is refused rather than half checked.
const maxLinkScanEntries = 100_000

// checkLinks finds the symbolic links in a skill that lead out of its
// folder, through an absolute target, a ".." that climbs above the folder,
// or a chain of links that does (the os.Root under a folder skill refuses
// to follow it). Such a link makes the skill invalid for validation and
// loading alike: mounted at /skill or under a sub-path grant, it would
// hand a script whatever it points at (issue 11, finding 1). Links that
// stay inside the folder, and dangling ones inside it, are fine.
func checkLinks(fsys fs.FS, display string) Problems {
	var ps Problems
	n := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an unreadable folder has nothing to follow
		}
		if n++; n > maxLinkScanEntries {
			ps = append(ps, Problem{File: display, Code: codeTooManyFiles,
				Message: fmt.Sprintf("the skill has more than %d files and folders; skillrun checks every one for links leading out, and refuses larger skills", maxLinkScanEntries)})
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if pr, bad := linkProblem(fsys, p); bad {
			pr.File = joinDisplay(display, p)
			ps = append(ps, pr)
		}
		return nil
	})
	if err != nil {
		ps = append(ps, Problem{File: display, Code: codeSymlinkOutside, Message: fmt.Sprintf("checking the skill's links: %v", err)})
	}
	return ps
}

// linkProblem says whether the link at p (a slash path in fsys) leads out.
func linkProblem(fsys fs.FS, p string) (Problem, bool) {
	bad := func(format string, args ...any) (Problem, bool) {
		return Problem{Code: codeSymlinkOutside, Message: fmt.Sprintf(format, args...) +
			"; a skill may only link to its own files: replace the link with the files it needs"}, true
	}
	target, err := fs.ReadLink(fsys, p)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return bad("symlink %q cannot be read: %v", p, err)
	}
	if err == nil {
		if path.IsAbs(target) || strings.HasPrefix(target, `\`) || (len(target) >= 2 && target[1] == ':') {
			return bad("symlink %q points to %q, an absolute path outside the skill folder", p, target)
		}
		rel := path.Join(path.Dir(p), target)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return bad("symlink %q points to %q, which is %q relative to the skill folder: outside it", p, target, rel)
		}
	}
	// Lexically inside; a chain of links may still climb out, which the
	// confined file system refuses to follow.
	if _, err := fs.Stat(fsys, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return bad("symlink %q (to %q) cannot be followed inside the skill folder: %v", p, target, describeFSError(err))
	}
	return Problem{}, false
}
