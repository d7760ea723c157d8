package filecmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

type remover struct {
	e                              *proc.Env
	force, recursive, dir, verbose bool
}

func rm(e *proc.Env, args []string) int {
	opts, files, st, ok := parseArgs(e, "rm", 1, proc.Getopt{Spec: "f,force i I ,interactive:: r,recursive R d,dir v,verbose ,one-file-system ,no-preserve-root ,preserve-root::"}, args[1:])
	if !ok {
		return st
	}
	r := &remover{e: e}
	preserveRoot := true
	for _, o := range opts {
		switch o.Key {
		case "f":
			r.force = true
		case "r", "R":
			r.recursive = true
		case "d":
			r.dir = true
		case "v":
			r.verbose = true
		case "no-preserve-root":
			preserveRoot = false
		}
	}
	if len(files) == 0 {
		if r.force {
			return 0
		}
		return e.Usage("rm", 1, "missing operand")
	}
	status := 0
	for _, name := range files {
		if base := path.Base(trimSlashes(name)); r.recursive && (base == "." || base == "..") {
			e.Errorf("rm", "refusing to remove '.' or '..' directory: skipping %s", qa(name))
			status = 1
			continue
		}
		if r.recursive && preserveRoot && path.Clean(e.Path(name)) == "/" {
			e.Errorf("rm", "it is dangerous to operate recursively on %s", qa(name))
			e.Errorf("rm", "use --no-preserve-root to override this failsafe")
			status = 1
			continue
		}
		if !r.remove(name) {
			status = 1
		}
	}
	return status
}

// remove removes name (a path as the user wrote it, used in messages)
// and reports whether it succeeded. Symbolic links are removed, never
// followed: rm -r of a link to a directory leaves the directory alone.
func (r *remover) remove(name string) bool {
	if r.e.Cancelled() {
		return false
	}
	p := r.e.Path(name)
	fi, err := os.Lstat(p)
	if err != nil {
		if r.force && errors.Is(err, fs.ErrNotExist) {
			return true
		}
		r.fail(name, err)
		return false
	}
	if !fi.IsDir() {
		if err := os.Remove(p); err != nil {
			if r.force && errors.Is(err, fs.ErrNotExist) {
				return true
			}
			r.fail(name, err)
			return false
		}
		if r.verbose {
			fmt.Fprintf(r.e.Stdout, "removed %s\n", qa(name))
		}
		return true
	}
	if !r.recursive {
		if !r.dir {
			r.fail(name, errIsDir)
			return false
		}
		return r.rmdir(name, p)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		r.fail(name, err)
		return false
	}
	ok := true
	for _, ent := range entries {
		if !r.remove(joinPath(name, ent.Name())) {
			ok = false
		}
	}
	if !ok {
		// GNU rm reports the entries it could not remove, not the
		// directory they keep non-empty.
		return false
	}
	return r.rmdir(name, p)
}

func (r *remover) rmdir(name, p string) bool {
	if err := os.Remove(p); err != nil {
		if isNotEmpty(err) {
			err = errNotEmpty
		}
		r.fail(name, err)
		return false
	}
	if r.verbose {
		fmt.Fprintf(r.e.Stdout, "removed directory %s\n", qa(name))
	}
	return true
}

func (r *remover) fail(name string, err error) {
	r.e.Errorf("rm", "cannot remove %s: %s", qa(name), proc.ErrorText(err))
}
