package filecmd

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func sleep(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "sleep", 1, proc.Getopt{}, args[1:])
	if !ok {
		return st
	}
	if len(ops) == 0 {
		return e.Usage("sleep", 1, "missing operand")
	}
	var total float64
	for _, a := range ops {
		s, ok := parseDuration(a)
		if !ok {
			return e.Usage("sleep", 1, "invalid time interval %s", q(a))
		}
		total += s
	}
	if !wait(e, total) {
		return 1
	}
	return 0
}

// parseDuration parses sleep's and timeout's NUMBER[smhd] in seconds.
func parseDuration(s string) (float64, bool) {
	mult := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			s = s[:n-1]
		case 'm':
			s, mult = s[:n-1], 60
		case 'h':
			s, mult = s[:n-1], 3600
		case 'd':
			s, mult = s[:n-1], 86400
		}
	}
	if s == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, "_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !(strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity")) {
		return 0, false
	}
	if math.IsNaN(v) || v < 0 {
		return 0, false
	}
	return v * mult, true
}

// wait sleeps for secs seconds or until the command is cancelled, and
// reports whether the whole time passed.
func wait(e *proc.Env, secs float64) bool {
	d := time.Duration(math.MaxInt64)
	if secs < d.Seconds() {
		d = time.Duration(secs * float64(time.Second))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	if e.Ctx == nil {
		<-t.C
		return true
	}
	select {
	case <-t.C:
		return true
	case <-e.Ctx.Done():
		return false
	}
}
