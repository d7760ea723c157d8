package filecmd

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func mktemp(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "mktemp", 1, proc.Getopt{Spec: "d,directory u,dry-run q,quiet ,suffix: p: ,tmpdir:: t"}, args[1:])
	if !ok {
		return st
	}
	var dir, dryRun, quiet, useT, useP bool
	var suffix, pdir string
	hasSuffix := false
	for _, o := range opts {
		switch o.Key {
		case "d":
			dir = true
		case "u":
			dryRun = true
		case "q":
			quiet = true
		case "suffix":
			suffix, hasSuffix = o.Val, true
		case "p", "tmpdir":
			useP, pdir = true, o.Val
		case "t":
			useT = true
		}
	}
	fail := func(format string, a ...any) int {
		if !quiet {
			e.Errorf("mktemp", format, a...)
		}
		return 1
	}
	template := "tmp.XXXXXXXXXX"
	switch len(ops) {
	case 0:
		useP = true
	case 1:
		template = ops[0]
	default:
		return e.Usage("mktemp", 1, "too many templates")
	}
	if !hasSuffix {
		// The X's are the last run of them; what follows is the suffix.
		if i := strings.LastIndexByte(template, 'X'); i >= 0 {
			suffix = template[i+1:]
			template = template[:i+1]
		} else {
			suffix, template = template, ""
		}
		if template == "" {
			return fail("too few X's in template %s", q(template+suffix))
		}
	} else if strings.Contains(suffix, "/") {
		return fail("invalid suffix %s, contains directory separator", q(suffix))
	} else if !strings.HasSuffix(template, "X") {
		return fail("with --suffix, template %s must end in X", q(template))
	}
	xs := len(template) - len(strings.TrimRight(template, "X"))
	if xs < 3 {
		return fail("too few X's in template %s", q(template+suffix))
	}
	if useP || useT {
		if useT || pdir == "" {
			if t := e.Getenv("TMPDIR"); t != "" {
				pdir = t
			} else if pdir == "" {
				pdir = "/tmp"
			}
		}
		if useT && strings.Contains(template, "/") {
			return fail("invalid template, %s, contains directory separator", q(template))
		}
		template = joinPath(pdir, template)
	}
	prefix := template[:len(template)-xs]
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for range 100 {
		b := make([]byte, xs)
		rand.Read(b)
		for i := range b {
			b[i] = chars[int(b[i])%len(chars)]
		}
		name := prefix + string(b) + suffix
		p := e.Path(name)
		var err error
		switch {
		case dryRun:
			_, err = os.Lstat(p)
			if err == nil {
				continue
			}
			err = nil
		case dir:
			err = os.Mkdir(p, 0o700)
		default:
			var f *os.File
			f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
			if err == nil {
				f.Close()
			}
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			kind := "file"
			if dir {
				kind = "directory"
			}
			return fail("failed to create %s via template %s: %s", kind, q(template+suffix), proc.ErrorText(err))
		}
		fmt.Fprintln(e.Stdout, name)
		return 0
	}
	return fail("failed to create file via template %s: File exists", q(template+suffix))
}
