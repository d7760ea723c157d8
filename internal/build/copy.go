package build

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Limits on the skill folder copied for a build: a skill is a few
// sources, not a data set, and an unbounded copy would let a hostile
// skill fill the disk or keep the build busy.
const (
	maxCopyBytes   = 256 << 20
	maxCopyEntries = 20000
	maxCopyDepth   = 64
)

// copyLimits are the bounds copyTree enforces; tests lower them.
type copyLimits struct {
	bytes   int64
	entries int
	depth   int
}

var defaultCopyLimits = copyLimits{bytes: maxCopyBytes, entries: maxCopyEntries, depth: maxCopyDepth}

// copyTree copies the tree under root into dst (a folder that does not
// exist yet), so the toolchain compiles a private copy and never the
// skill folder itself. Every read goes through root, so nothing outside
// it is read: a symlink that leads outside the skill folder (absolute, or
// through "..") makes the copy fail, naming it. A symlink inside is copied
// as a symlink with the same target, which resolves inside the copy; one
// to nothing is left out. Special files (FIFOs, devices, sockets) are
// refused: opening a FIFO would block the build. With dst empty the tree
// is only checked.
func copyTree(root *os.Root, dst string, lim copyLimits) error {
	var total int64
	entries := 0
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading the skill folder at %s: %w", p, describePathErr(err))
		}
		entries++
		if entries > lim.entries {
			return fmt.Errorf("the skill folder has more than %d files and folders; a build copies the skill folder, so keep data out of it", lim.entries)
		}
		if p != "." && pathDepth(p) > lim.depth {
			return fmt.Errorf("%s: nested more than %d folders deep in the skill folder", p, lim.depth)
		}
		to := ""
		if dst != "" {
			to = filepath.Join(dst, filepath.FromSlash(p))
		}
		switch typ := d.Type(); {
		case typ.IsDir():
			if d.Name() == ".git" && p != "." {
				return fs.SkipDir // history is not source; -buildvcs=false
			}
			if to != "" {
				return os.Mkdir(to, 0o755)
			}
			return nil
		case typ&fs.ModeSymlink != 0:
			return copyLink(root, p, to)
		case typ.IsRegular():
			n, err := copyFile(root, p, to, lim.bytes, lim.bytes-total)
			total += n
			return err
		default:
			return fmt.Errorf("%s in the skill folder is a special file (%s); a build reads only regular files, folders and symlinks inside the skill", p, typ.Type())
		}
	})
}

// pathDepth is the number of elements of a slash-separated path.
func pathDepth(p string) int {
	n := 1
	for i := range len(p) {
		if p[i] == '/' {
			n++
		}
	}
	return n
}

// copyLink checks that the symlink p resolves inside root and recreates
// it at to.
func copyLink(root *os.Root, p, to string) error {
	target, err := root.Readlink(filepath.FromSlash(p))
	if err != nil {
		return fmt.Errorf("reading the symlink %s: %w", p, err)
	}
	// os.Root refuses absolute targets and ".." past the root, whatever
	// lies behind them, so this is the check and not only a lookup.
	_, err = root.Stat(filepath.FromSlash(p))
	switch {
	case errors.Is(err, fs.ErrNotExist) && filepath.IsLocal(path.Join(path.Dir(p), filepath.ToSlash(target))):
		return nil // dangles inside the skill; nothing to copy
	case err != nil:
		return fmt.Errorf("the symlink %s -> %s leads outside the skill folder; a build reads only the skill's own files, so copy what it needs into the skill folder", p, target)
	}
	if to == "" {
		return nil
	}
	return os.Symlink(target, to)
}

// copyFile copies the regular file p to to, failing once more than budget
// bytes (of limit for the whole copy) would be copied.
func copyFile(root *os.Root, p, to string, limit, budget int64) (int64, error) {
	in, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return 0, fmt.Errorf("reading %s in the skill folder: %w", p, describePathErr(err))
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	// The entry may have been replaced between the walk and the open.
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s in the skill folder changed while being copied; build again", p)
	}
	tooBig := fmt.Errorf("the skill folder holds more than %d MiB; a build copies the skill folder, so keep data out of it", limit>>20)
	if fi.Size() > budget {
		return 0, tooBig
	}
	if to == "" {
		return fi.Size(), nil
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = tooBig
	}
	return n, err
}
