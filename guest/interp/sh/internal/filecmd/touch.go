package filecmd

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func touch(e *proc.Env, args []string) int {
	opts, files, st, ok := parseArgs(e, "touch", 1, proc.Getopt{Spec: "a c,no-create d,date: f h,no-dereference m r,reference: t: ,time:"}, args[1:])
	if !ok {
		return st
	}
	noCreate := false
	when := time.Now()
	for _, o := range opts {
		switch o.Key {
		case "c":
			noCreate = true
		case "d":
			t, ok := parseDate(o.Val, time.Now(), time.UTC)
			if !ok {
				e.Errorf("touch", "invalid date format %s", q(o.Val))
				return 1
			}
			when = t
		case "t":
			t, ok := parseStamp(o.Val)
			if !ok {
				e.Errorf("touch", "invalid date format %s", q(o.Val))
				return 1
			}
			when = t
		case "r":
			fi, err := os.Stat(e.Path(o.Val))
			if err != nil {
				e.Errorf("touch", "failed to get attributes of %s: %s", q(o.Val), proc.ErrorText(err))
				return 1
			}
			when = fi.ModTime()
		}
	}
	if len(files) == 0 {
		return e.Usage("touch", 1, "missing file operand")
	}
	status := 0
	for _, name := range files {
		if name == "-" {
			continue // touch - touches standard output: nothing to do here
		}
		p := e.Path(name)
		err := os.Chtimes(p, when, when)
		if errors.Is(err, fs.ErrNotExist) {
			if noCreate {
				continue
			}
			var f *os.File
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o666)
			if err == nil {
				f.Close()
				err = os.Chtimes(p, when, when)
			}
		}
		if err != nil {
			e.Errorf("touch", "cannot touch %s: %s", qa(name), proc.ErrorText(err))
			status = 1
		}
	}
	return status
}

// parseStamp parses touch -t's [[CC]YY]MMDDhhmm[.ss].
func parseStamp(s string) (time.Time, bool) {
	sec := "00"
	if i := len(s) - 3; i > 0 && s[i] == '.' {
		s, sec = s[:i], s[i+1:]
	}
	now := time.Now().UTC()
	switch len(s) {
	case 8:
		s = itoa(now.Year()) + s
	case 10:
		yy := s[:2]
		century := "20"
		if yy >= "69" {
			century = "19"
		}
		s = century + s
	case 12:
	default:
		return time.Time{}, false
	}
	t, err := time.Parse("200601021504.05", s+"."+sec)
	return t, err == nil
}
