package filecmd

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func date(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "date", 1, proc.Getopt{Spec: "d,date: ,debug f,file: I,iso-8601:: R,rfc-email ,rfc-3339: r,reference: ,resolution s,set: u,utc,universal"}, args[1:])
	if !ok {
		return st
	}
	loc := location(e.Getenv("TZ"), e.LookupEnv)
	var dateStr, refFile, batch string
	hasDate := false
	format := ""
	for _, o := range opts {
		switch o.Key {
		case "u":
			loc = time.UTC
		case "d":
			dateStr, hasDate = o.Val, true
		case "f":
			batch = o.Val
		case "r":
			refFile = o.Val
		case "s":
			e.Errorf("date", "cannot set date: Operation not permitted")
			return 1
		case "R":
			format = "%a, %d %b %Y %H:%M:%S %z"
		case "I":
			f, ok := isoFormat(o.Val)
			if !ok {
				e.Errorf("date", "invalid argument %s for '--iso-8601'", q(o.Val))
				fmt.Fprintf(e.Stderr, "Valid arguments are:\n  - 'hours'\n  - 'minutes'\n  - 'date'\n  - 'seconds'\n  - 'ns'\n")
				e.TryHelp("date")
				return 1
			}
			format = f
		case "rfc-3339":
			switch o.Val {
			case "date":
				format = "%Y-%m-%d"
			case "seconds":
				format = "%Y-%m-%d %H:%M:%S%:z"
			case "ns":
				format = "%Y-%m-%d %H:%M:%S.%N%:z"
			default:
				e.Errorf("date", "invalid argument %s for '--rfc-3339'", q(o.Val))
				fmt.Fprintf(e.Stderr, "Valid arguments are:\n  - 'date'\n  - 'seconds'\n  - 'ns'\n")
				e.TryHelp("date")
				return 1
			}
		}
	}
	for _, op := range ops {
		if strings.HasPrefix(op, "+") {
			if format != "" {
				e.Errorf("date", "multiple output formats specified")
				return 1
			}
			format = op[1:]
			continue
		}
		if len(ops) > 1 {
			return e.Usage("date", 1, "extra operand %s", q(ops[1]))
		}
		e.Errorf("date", "cannot set date: Operation not permitted")
		return 1
	}
	if format == "" {
		format = "%a %b %e %H:%M:%S %Z %Y"
	}
	now := time.Now().In(loc)
	print := func(t time.Time) {
		fmt.Fprintln(e.Stdout, strftime(t.In(loc), format))
	}
	switch {
	case batch != "":
		f, err := e.Open(batch)
		if err != nil {
			e.Errorf("date", "%s: %s", qf(batch), proc.ErrorText(err))
			return 1
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		status := 0
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			t, ok := parseDate(line, now, loc)
			if !ok {
				e.Errorf("date", "invalid date %s", q(line))
				status = 1
				continue
			}
			print(t)
		}
		return status
	case refFile != "":
		fi, err := os.Stat(e.Path(refFile))
		if err != nil {
			e.Errorf("date", "%s: %s", qf(refFile), proc.ErrorText(err))
			return 1
		}
		print(fi.ModTime())
	case hasDate:
		t, ok := parseDate(dateStr, now, loc)
		if !ok {
			e.Errorf("date", "invalid date %s", q(dateStr))
			return 1
		}
		print(t)
	default:
		print(now)
	}
	return 0
}

func isoFormat(v string) (string, bool) {
	switch {
	case v == "" || strings.HasPrefix("date", v):
		return "%Y-%m-%d", true
	case strings.HasPrefix("hours", v):
		return "%Y-%m-%dT%H%:z", true
	case strings.HasPrefix("minutes", v):
		return "%Y-%m-%dT%H:%M%:z", true
	case strings.HasPrefix("seconds", v):
		return "%Y-%m-%dT%H:%M:%S%:z", true
	case strings.HasPrefix("ns", v):
		return "%Y-%m-%dT%H:%M:%S,%N%:z", true
	}
	return "", false
}

// location interprets TZ. The sandbox has no time zone database, so
// besides "UTC" only POSIX fixed-offset zones ("EST5", "UTC-3",
// "<+0530>-5:30") are understood; anything else is UTC, which is also
// what an unset TZ means in the sandbox.
func location(tz string, lookup func(string) (string, bool)) *time.Location {
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" || tz == "UTC" || tz == "UTC0" || tz == "GMT" || tz == "Etc/UTC" {
		return time.UTC
	}
	if l, err := time.LoadLocation(tz); err == nil {
		return l
	}
	name, rest := "", tz
	if strings.HasPrefix(rest, "<") {
		i := strings.IndexByte(rest, '>')
		if i < 0 {
			return time.UTC
		}
		name, rest = rest[1:i], rest[i+1:]
	} else {
		i := 0
		for i < len(rest) && (rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= 'a' && rest[i] <= 'z') {
			i++
		}
		name, rest = rest[:i], rest[i:]
	}
	if len(name) < 3 {
		return time.UTC
	}
	sign := 1
	switch {
	case strings.HasPrefix(rest, "-"):
		sign, rest = -1, rest[1:]
	case strings.HasPrefix(rest, "+"):
		rest = rest[1:]
	}
	end := 0
	for end < len(rest) && (rest[end] >= '0' && rest[end] <= '9' || rest[end] == ':') {
		end++
	}
	parts := strings.Split(rest[:end], ":")
	off := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || i > 2 {
			return time.UTC
		}
		off += n * []int{3600, 60, 1}[i]
	}
	// POSIX offsets count west of Greenwich: EST5 is UTC-5.
	return time.FixedZone(name, -sign*off)
}
