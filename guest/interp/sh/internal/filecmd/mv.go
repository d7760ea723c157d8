package filecmd

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func mv(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "mv", 1, proc.Getopt{Spec: "b ,backup:: f,force i,interactive n,no-clobber ,strip-trailing-slashes S,suffix: t,target-directory: T,no-target-directory u,update v,verbose Z ,context"}, args[1:])
	if !ok {
		return st
	}
	var targetDir string
	var noTarget, noClobber, update, verbose bool
	for _, o := range opts {
		switch o.Key {
		case "f":
			noClobber = false
		case "n":
			noClobber = true
		case "t":
			targetDir = o.Val
		case "T":
			noTarget = true
		case "u":
			update = true
		case "v":
			verbose = true
		}
	}
	moves, st, ok := targets(e, "mv", ops, targetDir, noTarget)
	if !ok {
		return st
	}
	status := 0
	for _, m := range moves {
		if !moveOne(e, m, noClobber, update, verbose) {
			status = 1
		}
	}
	return status
}

func moveOne(e *proc.Env, m move, noClobber, update, verbose bool) bool {
	sp, dp := e.Path(m.src), e.Path(m.dst)
	sfi, err := os.Lstat(sp)
	if err != nil {
		e.Errorf("mv", "cannot stat %s: %s", qa(m.src), proc.ErrorText(err))
		return false
	}
	if dfi, err := os.Lstat(dp); err == nil {
		switch {
		case os.SameFile(sfi, dfi):
			e.Errorf("mv", "%s and %s are the same file", qa(m.src), qa(m.dst))
			return false
		case dfi.IsDir() && !sfi.IsDir():
			e.Errorf("mv", "cannot overwrite directory %s with non-directory", qa(m.dst))
			return false
		case !dfi.IsDir() && sfi.IsDir():
			e.Errorf("mv", "cannot overwrite non-directory %s with directory %s", qa(m.dst), qa(m.src))
			return false
		case noClobber, update && !sfi.ModTime().After(dfi.ModTime()):
			return true
		}
	}
	if sfi.IsDir() && within(dp, sp) {
		e.Errorf("mv", "cannot move %s to a subdirectory of itself, %s", qa(m.src), qa(m.dst))
		return false
	}
	err = os.Rename(sp, dp)
	if crossDevice(err) {
		// Another mount: copy everything, keeping modes and times, then
		// remove the original, as GNU mv does across file systems.
		c := &copier{e: e, name: "mv", recursive: true, preserve: true, force: true}
		if !c.copy(m.src, m.dst, true) {
			return false
		}
		r := &remover{e: e, recursive: true, force: true}
		if !r.remove(m.src) {
			return false
		}
		err = nil
	}
	if err != nil {
		if isNotEmpty(err) {
			err = errNotEmpty
		}
		e.Errorf("mv", "cannot move %s to %s: %s", qa(m.src), qa(m.dst), proc.ErrorText(err))
		return false
	}
	if verbose {
		fmt.Fprintf(e.Stdout, "renamed %s -> %s\n", qa(m.src), qa(m.dst))
	}
	return true
}

// crossDevice reports whether a rename failed because source and
// destination are on different file systems: EXDEV, or ENOSYS, which
// is what WASI hosts (wazero) answer for a rename between two preopened
// directories (/tmp and /workspace are two mounts).
func crossDevice(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ENOSYS)
}
