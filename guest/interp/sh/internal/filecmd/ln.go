package filecmd

import (
	"fmt"
	"os"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func ln(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "ln", 1, proc.Getopt{Spec: "b ,backup:: d,directory F f,force i,interactive L,logical n,no-dereference P,physical r,relative s,symbolic S,suffix: t,target-directory: T,no-target-directory v,verbose"}, args[1:])
	if !ok {
		return st
	}
	var targetDir string
	var symbolic, force, noTarget, verbose bool
	for _, o := range opts {
		switch o.Key {
		case "s":
			symbolic = true
		case "f":
			force = true
		case "t":
			targetDir = o.Val
		case "T":
			noTarget = true
		case "v":
			verbose = true
		}
	}
	moves, st, ok := targets(e, "ln", ops, targetDir, noTarget)
	if !ok {
		return st
	}
	status := 0
	for _, m := range moves {
		if !linkOne(e, m, symbolic, force, verbose) {
			status = 1
		}
	}
	return status
}

// linkOne makes one link. The sandbox's file system may not support
// links at all; the error is then reported as GNU would report it.
func linkOne(e *proc.Env, m move, symbolic, force, verbose bool) bool {
	dp := e.Path(m.dst)
	kind, arrow := "hard link", "=>"
	if symbolic {
		kind, arrow = "symbolic link", "->"
	} else {
		fi, err := os.Stat(e.Path(m.src))
		if err != nil {
			e.Errorf("ln", "failed to access %s: %s", qa(m.src), proc.ErrorText(err))
			return false
		}
		if fi.IsDir() {
			e.Errorf("ln", "%s: hard link not allowed for directory", qa(m.src))
			return false
		}
	}
	if force {
		if fi, err := os.Lstat(dp); err == nil {
			if fi.IsDir() {
				e.Errorf("ln", "%s: cannot overwrite directory", qa(m.dst))
				return false
			}
			_ = os.Remove(dp)
		}
	}
	var err error
	if symbolic {
		err = os.Symlink(m.src, dp)
	} else {
		err = os.Link(e.Path(m.src), dp)
	}
	if err != nil {
		if isNotExist(err) && !symbolic {
			e.Errorf("ln", "failed to create %s %s => %s: %s", kind, qa(m.dst), qa(m.src), proc.ErrorText(err))
		} else {
			e.Errorf("ln", "failed to create %s %s: %s", kind, qa(m.dst), proc.ErrorText(err))
		}
		return false
	}
	if verbose {
		fmt.Fprintf(e.Stdout, "%s %s %s\n", qa(m.dst), arrow, qa(m.src))
	}
	return true
}
