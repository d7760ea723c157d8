package filecmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func mkdir(e *proc.Env, args []string) int {
	opts, dirs, st, ok := parseArgs(e, "mkdir", 1, proc.Getopt{Spec: "m,mode: p,parents v,verbose Z ,context::"}, args[1:])
	if !ok {
		return st
	}
	var parents, verbose bool
	var changes []modeChange
	for _, o := range opts {
		switch o.Key {
		case "p":
			parents = true
		case "v":
			verbose = true
		case "m":
			if changes, ok = parseMode(o.Val); !ok {
				e.Errorf("mkdir", "invalid mode %s", q(o.Val))
				return 1
			}
		}
	}
	if len(dirs) == 0 {
		return e.Usage("mkdir", 1, "missing operand")
	}
	status := 0
	for _, name := range dirs {
		if err := makeDir(e, name, parents, verbose, changes); err != nil {
			status = 1
		}
	}
	return status
}

// makeDir creates one mkdir operand, reporting its own errors.
func makeDir(e *proc.Env, name string, parents, verbose bool, changes []modeChange) error {
	created := func(n string) {
		if verbose {
			fmt.Fprintf(e.Stdout, "mkdir: created directory %s\n", qa(n))
		}
	}
	fail := func(n string, err error) error {
		e.Errorf("mkdir", "cannot create directory %s: %s", q(n), proc.ErrorText(err))
		return err
	}
	if parents {
		// Create each missing ancestor in turn so that -v can name them
		// and an error names the component that failed, as GNU does.
		trimmed := trimSlashes(name)
		for i := 0; i <= len(trimmed); i++ {
			if i < len(trimmed) && trimmed[i] != '/' || i == 0 {
				continue
			}
			prefix := trimmed[:i]
			if strings.HasSuffix(prefix, "/") {
				continue
			}
			p := e.Path(prefix)
			fi, err := os.Stat(p)
			if err == nil {
				switch {
				case fi.IsDir():
					continue
				case i == len(trimmed):
					return fail(name, fs.ErrExist)
				}
				return fail(prefix, errNotDir)
			}
			if err := os.Mkdir(p, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return fail(prefix, err)
			}
			created(prefix)
		}
		if changes != nil {
			return chmodNew(e, name, changes)
		}
		return nil
	}
	if err := os.Mkdir(e.Path(name), 0o777); err != nil {
		return fail(name, err)
	}
	created(name)
	if changes != nil {
		return chmodNew(e, name, changes)
	}
	return nil
}

// chmodNew applies mkdir -m to a directory it created: the mode is set
// after creation so that the umask does not mask it.
func chmodNew(e *proc.Env, name string, changes []modeChange) error {
	m := applyMode(changes, 0o777&^umask, true)
	if err := os.Chmod(e.Path(name), goMode(m)); err != nil {
		e.Errorf("mkdir", "cannot set permissions of %s: %s", q(name), proc.ErrorText(err))
		return err
	}
	return nil
}

func rmdir(e *proc.Env, args []string) int {
	opts, dirs, st, ok := parseArgs(e, "rmdir", 1, proc.Getopt{Spec: "p,parents v,verbose ,ignore-fail-on-non-empty"}, args[1:])
	if !ok {
		return st
	}
	var parents, verbose, ignore bool
	for _, o := range opts {
		switch o.Key {
		case "p":
			parents = true
		case "v":
			verbose = true
		case "ignore-fail-on-non-empty":
			ignore = true
		}
	}
	if len(dirs) == 0 {
		return e.Usage("rmdir", 1, "missing operand")
	}
	status := 0
	remove := func(name string, parent bool) bool {
		if verbose {
			fmt.Fprintf(e.Stdout, "rmdir: removing directory, %s\n", qa(name))
		}
		err := removeDir(e.Path(name))
		if err == nil {
			return true
		}
		if ignore && errors.Is(err, errNotEmpty) {
			return false
		}
		if parent {
			e.Errorf("rmdir", "failed to remove directory %s: %s", qa(name), proc.ErrorText(err))
		} else {
			e.Errorf("rmdir", "failed to remove %s: %s", qa(name), proc.ErrorText(err))
		}
		status = 1
		return false
	}
	for _, name := range dirs {
		if !remove(name, false) || !parents {
			continue
		}
		for p := trimSlashes(name); ; {
			i := strings.LastIndexByte(p, '/')
			if i <= 0 {
				break
			}
			p = trimSlashes(p[:i])
			if !remove(p, true) {
				break
			}
		}
	}
	return status
}

// removeDir removes an empty directory and only that: os.Remove would
// also unlink a file, which rmdir must refuse with ENOTDIR.
func removeDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errNotDir
	}
	err = os.Remove(p)
	if err != nil && isNotEmpty(err) {
		return errNotEmpty
	}
	return err
}
