package filecmd

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// A move is one source and the destination cp, mv or ln gives it.
type move struct{ src, dst string }

// targets works out the destinations of cp, mv and ln the way GNU does:
// with -t DIR, or when the last operand is a directory, every source goes
// into it under its base name; otherwise there must be exactly one source
// and one destination. ok is false after a reported usage error.
func targets(e *proc.Env, name string, ops []string, targetDir string, noTarget bool) (moves []move, status int, ok bool) {
	if targetDir != "" {
		fi, err := os.Stat(e.Path(targetDir))
		switch {
		case err != nil:
			e.Errorf(name, "target directory %s: %s", qa(targetDir), proc.ErrorText(err))
			return nil, 1, false
		case !fi.IsDir():
			e.Errorf(name, "target %s is not a directory", qa(targetDir))
			return nil, 1, false
		}
		if len(ops) == 0 {
			return nil, e.Usage(name, 1, "missing file operand"), false
		}
		for _, s := range ops {
			moves = append(moves, move{s, joinPath(targetDir, baseName(s))})
		}
		return moves, 0, true
	}
	switch len(ops) {
	case 0:
		return nil, e.Usage(name, 1, "missing file operand"), false
	case 1:
		if name == "ln" {
			return []move{{ops[0], joinPath(".", baseName(ops[0]))}}, 0, true
		}
		return nil, e.Usage(name, 1, "missing destination file operand after %s", qa(ops[0])), false
	}
	last := ops[len(ops)-1]
	if noTarget {
		if len(ops) > 2 {
			return nil, e.Usage(name, 1, "extra operand %s", qa(ops[2])), false
		}
		return []move{{ops[0], last}}, 0, true
	}
	fi, err := os.Stat(e.Path(last))
	if err == nil && fi.IsDir() {
		for _, s := range ops[:len(ops)-1] {
			moves = append(moves, move{s, joinPath(last, baseName(s))})
		}
		return moves, 0, true
	}
	if len(ops) > 2 {
		if err == nil {
			err = errNotDir
		}
		e.Errorf(name, "target %s: %s", qa(last), proc.ErrorText(err))
		return nil, 1, false
	}
	return []move{{ops[0], last}}, 0, true
}

// baseName is the last component of a path, ignoring trailing slashes.
func baseName(p string) string {
	return path.Base(trimSlashes(p))
}

// within reports whether dst is src or lies under it, comparing the paths
// with symbolic links resolved as far as they exist, so that "cp -r a
// a/b" and "mv d link-to-d/x" are both caught.
func within(dst, src string) bool {
	rs := resolveExisting(src)
	rd := resolveExisting(dst)
	return rd == rs || strings.HasPrefix(rd, strings.TrimSuffix(rs, "/")+"/")
}

// resolveExisting resolves symbolic links in the longest existing prefix
// of p and appends the rest.
func resolveExisting(p string) string {
	p = path.Clean(p)
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return path.Join(append([]string{r}, rest...)...)
		}
		dir, file := path.Split(p)
		if dir == "" || p == "/" {
			return path.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{file}, rest...)
		p = path.Clean(dir)
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
