package filecmd

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// A copier copies files and trees for cp (and for mv across mounts).
type copier struct {
	e                                  *proc.Env
	name                               string
	recursive, deref, derefTop         bool
	preserve, noClobber, force, update bool
	verbose, removeFirst               bool
}

func cp(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "cp", 1, proc.Getopt{Spec: "a,archive b ,backup:: ,copy-contents d f,force i,interactive H l,link L,dereference n,no-clobber P,no-dereference p ,preserve:: ,no-preserve: ,parents R,recursive r ,reflink:: ,remove-destination ,sparse: ,strip-trailing-slashes s,symbolic-link S,suffix: t,target-directory: T,no-target-directory u,update v,verbose x,one-file-system Z ,context::"}, args[1:])
	if !ok {
		return st
	}
	c := &copier{e: e, name: "cp"}
	var targetDir string
	var noTarget, noDeref, deref bool
	for _, o := range opts {
		switch o.Key {
		case "a":
			c.recursive, c.preserve, noDeref = true, true, true
		case "d", "P":
			noDeref = true
		case "L":
			deref = true
		case "H":
			c.derefTop = true
		case "f":
			c.force = true
		case "n":
			c.noClobber = true
		case "p":
			c.preserve = true
		case "preserve":
			c.preserve = true
		case "r", "R":
			c.recursive = true
		case "remove-destination":
			c.removeFirst = true
		case "t":
			targetDir = o.Val
		case "T":
			noTarget = true
		case "u":
			c.update = true
		case "v":
			c.verbose = true
		}
	}
	// Without -r, cp copies what links point to; with -r (or -a, -P) it
	// copies the links themselves, unless -L says otherwise.
	c.deref = deref || (!c.recursive && !noDeref)
	moves, st, ok := targets(e, "cp", ops, targetDir, noTarget)
	if !ok {
		return st
	}
	status := 0
	for _, m := range moves {
		if !c.copy(m.src, m.dst, true) {
			status = 1
		}
	}
	return status
}

func (c *copier) fail(format string, a ...any) bool {
	c.e.Errorf(c.name, format, a...)
	return false
}

// copy copies src to dst and reports whether everything was copied.
func (c *copier) copy(src, dst string, top bool) bool {
	if c.e.Cancelled() {
		return false
	}
	sp, dp := c.e.Path(src), c.e.Path(dst)
	var sfi fs.FileInfo
	var err error
	if c.deref || (top && c.derefTop) {
		sfi, err = os.Stat(sp)
	} else {
		sfi, err = os.Lstat(sp)
	}
	if err != nil {
		return c.fail("cannot stat %s: %s", qa(src), proc.ErrorText(err))
	}
	dfi, derr := os.Stat(dp)
	if derr == nil && os.SameFile(sfi, dfi) {
		return c.fail("%s and %s are the same file", qa(src), qa(dst))
	}
	switch {
	case sfi.IsDir():
		return c.copyDir(src, dst, sfi, dfi)
	case sfi.Mode()&fs.ModeSymlink != 0:
		return c.copyLink(src, dst, sfi)
	}
	if dfi != nil && dfi.IsDir() {
		return c.fail("cannot overwrite directory %s with non-directory", qa(dst))
	}
	if dfi != nil && (c.noClobber || (c.update && !sfi.ModTime().After(dfi.ModTime()))) {
		return true
	}
	if err := c.copyFile(sp, dp, src, dst, sfi, dfi != nil); err != nil {
		return false
	}
	if c.verbose {
		fmt.Fprintf(c.e.Stdout, "%s -> %s\n", qa(src), qa(dst))
	}
	return true
}

func (c *copier) copyDir(src, dst string, sfi, dfi fs.FileInfo) bool {
	sp, dp := c.e.Path(src), c.e.Path(dst)
	if !c.recursive {
		return c.fail("-r not specified; omitting directory %s", qa(src))
	}
	if dfi != nil && !dfi.IsDir() {
		return c.fail("cannot overwrite non-directory %s with directory %s", qa(dst), qa(src))
	}
	if within(dp, sp) {
		return c.fail("cannot copy a directory, %s, into itself, %s", qa(src), qa(dst))
	}
	created := false
	if dfi == nil {
		// Owner rwx until the contents are in, then the real mode.
		if err := os.Mkdir(dp, sfi.Mode().Perm()|0o700); err != nil {
			return c.fail("cannot create directory %s: %s", qa(dst), proc.ErrorText(err))
		}
		created = true
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "%s -> %s\n", qa(src), qa(dst))
		}
	}
	entries, err := os.ReadDir(sp)
	if err != nil {
		return c.fail("cannot access %s: %s", qa(src), proc.ErrorText(err))
	}
	ok := true
	for _, ent := range entries {
		if !c.copy(joinPath(src, ent.Name()), joinPath(dst, ent.Name()), false) {
			ok = false
		}
	}
	if c.preserve {
		_ = os.Chmod(dp, sfi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
		_ = os.Chtimes(dp, sfi.ModTime(), sfi.ModTime())
	} else if created {
		_ = os.Chmod(dp, sfi.Mode().Perm()&^umask)
	}
	return ok
}

func (c *copier) copyLink(src, dst string, sfi fs.FileInfo) bool {
	sp, dp := c.e.Path(src), c.e.Path(dst)
	target, err := os.Readlink(sp)
	if err != nil {
		return c.fail("cannot read symbolic link %s: %s", qa(src), proc.ErrorText(err))
	}
	if lfi, err := os.Lstat(dp); err == nil {
		if c.noClobber {
			return true
		}
		if lfi.IsDir() {
			return c.fail("cannot overwrite directory %s with non-directory", qa(dst))
		}
		_ = os.Remove(dp)
	}
	if err := os.Symlink(target, dp); err != nil {
		return c.fail("cannot create symbolic link %s: %s", qa(dst), proc.ErrorText(err))
	}
	if c.verbose {
		fmt.Fprintf(c.e.Stdout, "%s -> %s\n", qa(src), qa(dst))
	}
	return true
}

// copyFile copies a regular file's bytes (and, with -p, mode and time).
func (c *copier) copyFile(sp, dp, src, dst string, sfi fs.FileInfo, exists bool) error {
	in, err := os.Open(sp)
	if err != nil {
		c.fail("cannot open %s for reading: %s", qa(src), proc.ErrorText(err))
		return err
	}
	defer in.Close()
	if exists && c.removeFirst {
		_ = os.Remove(dp)
	}
	out, err := os.OpenFile(dp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, sfi.Mode().Perm())
	if err != nil && exists && c.force {
		_ = os.Remove(dp)
		out, err = os.OpenFile(dp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, sfi.Mode().Perm())
	}
	if err != nil {
		c.fail("cannot create regular file %s: %s", qa(dst), proc.ErrorText(err))
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		c.fail("error writing %s: %s", qa(dst), proc.ErrorText(err))
		return err
	}
	if c.preserve {
		_ = os.Chmod(dp, sfi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
		_ = os.Chtimes(dp, sfi.ModTime(), sfi.ModTime())
	}
	return nil
}
