package filecmd

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// How much of a path must exist for canonicalize, as GNU's
// canonicalize_filename_mode: all of it (-e), all but the last
// component (the default of realpath and readlink -f), or none (-m).
type canonMode int

const (
	canonAllButLast canonMode = iota
	canonExisting
	canonMissing
)

// canonicalize makes p absolute, removes "." and ".." and resolves
// symbolic links with os.Readlink, component by component, so ".." after
// a link goes up from the link's target as the kernel would.
func canonicalize(e *proc.Env, p string, mode canonMode) (string, error) {
	if p == "" {
		return "", fs.ErrNotExist
	}
	rest := strings.Split(e.Path(p), "/")
	resolved := "/"
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			last := len(strings.Join(rest, "")) == 0
			if mode == canonMissing || (mode == canonAllButLast && last && isNotExist(err)) {
				resolved = next
				continue
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > 40 {
				return "", errLoop
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if path.IsAbs(target) {
				resolved = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		if !fi.IsDir() && len(strings.Join(rest, "")) > 0 {
			if mode == canonMissing {
				resolved = next
				continue
			}
			return "", errNotDir
		}
		resolved = next
	}
	return resolved, nil
}

func realpathCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "realpath", 1, proc.Getopt{Spec: "e,canonicalize-existing m,canonicalize-missing L,logical P,physical q,quiet ,relative-to: ,relative-base: s,strip,no-symlinks z,zero"}, args[1:])
	if !ok {
		return st
	}
	mode, quiet, strip, end := canonAllButLast, false, false, "\n"
	var relTo, relBase string
	for _, o := range opts {
		switch o.Key {
		case "e":
			mode = canonExisting
		case "m":
			mode = canonMissing
		case "q":
			quiet = true
		case "s":
			strip = true
		case "z":
			end = "\x00"
		case "relative-to":
			relTo = o.Val
		case "relative-base":
			relBase = o.Val
		}
	}
	if len(ops) == 0 {
		return e.Usage("realpath", 1, "missing operand")
	}
	resolve := func(p string) (string, error) {
		if strip {
			if p == "" {
				return "", fs.ErrNotExist
			}
			return path.Clean(e.Path(p)), nil
		}
		return canonicalize(e, p, mode)
	}
	if relTo != "" {
		r, err := resolve(relTo)
		if err != nil {
			e.Errorf("realpath", "%s: %s", qf(relTo), proc.ErrorText(err))
			return 1
		}
		relTo = r
	}
	if relBase != "" {
		r, err := resolve(relBase)
		if err != nil {
			e.Errorf("realpath", "%s: %s", qf(relBase), proc.ErrorText(err))
			return 1
		}
		relBase = r
	}
	status := 0
	for _, p := range ops {
		r, err := resolve(p)
		if err != nil {
			if !quiet {
				e.Errorf("realpath", "%s: %s", qf(p), proc.ErrorText(err))
			}
			status = 1
			continue
		}
		switch {
		case relBase != "" && !under(r, relBase):
		case relTo != "" && (relBase == "" || under(relTo, relBase)):
			r = relPath(relTo, r)
		case relBase != "":
			r = relPath(relBase, r)
		}
		fmt.Fprint(e.Stdout, r+end)
	}
	return status
}

func under(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

// relPath is target relative to the directory base (both clean and
// absolute).
func relPath(base, target string) string {
	split := func(p string) []string {
		if p == "/" {
			return nil
		}
		return strings.Split(p[1:], "/")
	}
	b, t := split(base), split(target)
	i := 0
	for i < len(b) && i < len(t) && b[i] == t[i] {
		i++
	}
	var parts []string
	for range b[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func readlinkCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "readlink", 1, proc.Getopt{Spec: "f,canonicalize e,canonicalize-existing m,canonicalize-missing n,no-newline q,quiet s,silent v,verbose z,zero"}, args[1:])
	if !ok {
		return st
	}
	canon, mode, verbose, end := false, canonAllButLast, false, "\n"
	noNewline := false
	for _, o := range opts {
		switch o.Key {
		case "f":
			canon, mode = true, canonAllButLast
		case "e":
			canon, mode = true, canonExisting
		case "m":
			canon, mode = true, canonMissing
		case "n":
			noNewline = true
		case "q", "s":
			verbose = false
		case "v":
			verbose = true
		case "z":
			end = "\x00"
		}
	}
	if len(ops) == 0 {
		return e.Usage("readlink", 1, "missing operand")
	}
	if noNewline && len(ops) == 1 {
		end = ""
	}
	status := 0
	for _, p := range ops {
		var r string
		var err error
		if canon {
			r, err = canonicalize(e, p, mode)
		} else {
			r, err = os.Readlink(e.Path(p))
		}
		if err != nil {
			if verbose {
				e.Errorf("readlink", "%s: %s", qf(p), proc.ErrorText(err))
			}
			status = 1
			continue
		}
		fmt.Fprint(e.Stdout, r+end)
	}
	return status
}
