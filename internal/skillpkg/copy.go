package skillpkg

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// limits bound what one skill may bring: a skill is instructions and a
// few scripts, so anything far larger is a mistake or an attack. A
// variable so that tests can use small bounds.
var limits = struct {
	fileBytes  int64
	skillBytes int64
	files      int
}{fileBytes: 64 << 20, skillBytes: 512 << 20, files: 20_000}

// copyTree copies the skill folder src into dst (which must exist and be
// empty), leaving out .git. Folders and regular files are copied (a file keeps its
// executable bit, nothing else of its mode); a symbolic link is copied as
// a link when its target stays inside the skill, and refused when it
// leads out; any other kind of file (a FIFO, a device, a socket) is
// refused. Reads go through an [os.Root] on src.
func copyTree(src, dst string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	fsys := root.FS()
	var files int
	var total int64
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.Name() == ".git" {
			// The repository's own data (a skill at a repository's root
			// sits beside it); git never commits a .git entry, so it is
			// never part of a skill.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if files++; files > limits.files {
			return fmt.Errorf("more than %d files and folders in the skill", limits.files)
		}
		out := filepath.Join(dst, filepath.FromSlash(p))
		switch t := d.Type(); {
		case d.IsDir():
			return os.Mkdir(out, 0o755)
		case t&fs.ModeSymlink != 0:
			target, err := root.Readlink(filepath.FromSlash(p))
			if err != nil {
				return err
			}
			if !linkInside(p, target) {
				return fmt.Errorf("%s: symbolic link to %q leads outside the skill folder; a skill may link only to its own files", p, target)
			}
			return os.Symlink(target, out)
		case t.IsRegular():
			n, err := copyFile(root, p, out, limits.skillBytes-total)
			total += n
			return err
		default:
			return fmt.Errorf("%s: a special file (%s) cannot be part of a skill", p, t)
		}
	})
}

// linkInside says whether a link at p (slash path in the skill) with
// target stays inside the skill, judged by the text of the target alone:
// a chain of links is judged link by link, as each is copied.
func linkInside(p, target string) bool {
	t := filepath.ToSlash(target)
	if path.IsAbs(t) || strings.HasPrefix(target, `\`) || len(t) >= 2 && t[1] == ':' {
		return false
	}
	j := path.Join(path.Dir(p), t)
	return j != ".." && !strings.HasPrefix(j, "../")
}

// copyFile copies one regular file, refusing one over the per-file bound
// or over room (what the skill's total bound leaves).
func copyFile(root *os.Root, p, out string, room int64) (int64, error) {
	in, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file", p)
	}
	limit := min(limits.fileBytes, room)
	if fi.Size() > limits.fileBytes {
		return 0, fmt.Errorf("%s: %d bytes, over the %d-byte bound on one file of a skill", p, fi.Size(), limits.fileBytes)
	}
	if fi.Size() > room {
		return 0, fmt.Errorf("%s: the skill's files total more than %d bytes", p, limits.skillBytes)
	}
	mode := os.FileMode(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(in, limit+1))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("%s: grew past the bound while being copied", p)
	}
	return n, err
}
