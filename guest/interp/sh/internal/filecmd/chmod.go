package filecmd

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// umask is the file creation mask the sandbox behaves as if it had: the
// usual 022. chmod and mkdir -m use it for modes with no "who" (+x).
const umask = 0o022

// A modeChange is one clause of a mode ("u+x", "go-w", "755").
type modeChange struct {
	who  uint32 // affected bits; 0 means all, filtered by the umask
	op   byte   // '+', '-' or '='
	perm uint32 // bits from r, w, x, s, t or an octal number
	x    bool   // X: execute if a directory or already executable
	copy uint32 // u, g or o: copy that class's bits (0o700, 0o070, 0o007)
}

// parseMode compiles an octal or symbolic mode, as GNU's mode_compile.
func parseMode(s string) ([]modeChange, bool) {
	if s != "" && strings.Trim(s, "01234567") == "" {
		n, err := strconv.ParseUint(s, 8, 32)
		if err != nil || n > 0o7777 {
			return nil, false
		}
		return []modeChange{{who: 0o7777, op: '=', perm: uint32(n)}}, true
	}
	var changes []modeChange
	for _, clause := range strings.Split(s, ",") {
		var who uint32
		i := 0
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			who |= map[byte]uint32{'u': 0o4700, 'g': 0o2070, 'o': 0o1007, 'a': 0o7777}[clause[i]]
		}
		if i == len(clause) {
			return nil, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return nil, false
			}
			i++
			c := modeChange{who: who, op: op}
			if i < len(clause) && clause[i] >= '0' && clause[i] <= '7' {
				j := i
				for j < len(clause) && clause[j] >= '0' && clause[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(clause[i:j], 8, 32)
				c.perm, i = uint32(n), j
				changes = append(changes, c)
				continue
			}
			if i < len(clause) && strings.IndexByte("ugo", clause[i]) >= 0 {
				c.copy = map[byte]uint32{'u': 0o700, 'g': 0o070, 'o': 0o007}[clause[i]]
				i++
			} else {
				for ; i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0; i++ {
					switch clause[i] {
					case 'r':
						c.perm |= 0o444
					case 'w':
						c.perm |= 0o222
					case 'x':
						c.perm |= 0o111
					case 'X':
						c.x = true
					case 's':
						c.perm |= 0o6000
					case 't':
						c.perm |= 0o1000
					}
				}
			}
			changes = append(changes, c)
		}
	}
	return changes, true
}

// applyMode applies changes to the Unix mode bits m of a file.
func applyMode(changes []modeChange, m uint32, dir bool) uint32 {
	for _, c := range changes {
		v := c.perm
		if c.copy != 0 {
			bits := m & c.copy
			switch c.copy {
			case 0o700:
				bits >>= 6
			case 0o070:
				bits >>= 3
			}
			v = bits<<6 | bits<<3 | bits
		}
		if c.x && (dir || m&0o111 != 0) {
			v |= 0o111
		}
		if c.who != 0 {
			v &= c.who
		} else {
			v &^= umask
		}
		switch c.op {
		case '+':
			m |= v
		case '-':
			m &^= v
		case '=':
			keep := ^c.who
			if c.who == 0 {
				keep = 0
			}
			m = m&keep | v
		}
	}
	return m & 0o7777
}

func chmodCmd(e *proc.Env, args []string) int {
	// "chmod -w file" is a mode, not an option: take such arguments out
	// before the option parser sees them, as GNU chmod does.
	var mode string
	var rest []string
	for i, a := range args[1:] {
		if a == "--" {
			rest = append(rest, args[1+i:]...)
			break
		}
		if mode == "" && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugoa,+=-01234567") == "" {
			mode = a
			continue
		}
		rest = append(rest, a)
	}
	opts, ops, st, ok := parseArgs(e, "chmod", 1, proc.Getopt{Spec: "c,changes f,silent ,quiet v,verbose R,recursive ,reference: ,preserve-root ,no-preserve-root"}, rest)
	if !ok {
		return st
	}
	var verbose, changesOnly, quiet, recursive bool
	var ref string
	for _, o := range opts {
		switch o.Key {
		case "c":
			changesOnly = true
		case "v":
			verbose = true
		case "f", "quiet":
			quiet = true
		case "R":
			recursive = true
		case "reference":
			ref = o.Val
		}
	}
	if mode == "" && ref == "" {
		if len(ops) == 0 {
			return e.Usage("chmod", 1, "missing operand")
		}
		mode, ops = ops[0], ops[1:]
	}
	if len(ops) == 0 {
		if mode == "" {
			return e.Usage("chmod", 1, "missing operand")
		}
		return e.Usage("chmod", 1, "missing operand after %s", q(mode))
	}
	var changes []modeChange
	if ref != "" {
		fi, err := os.Stat(e.Path(ref))
		if err != nil {
			e.Errorf("chmod", "failed to get attributes of %s: %s", q(ref), proc.ErrorText(err))
			return 1
		}
		changes = []modeChange{{who: 0o7777, op: '=', perm: unixMode(fi.Mode())}}
	} else if changes, ok = parseMode(mode); !ok {
		return e.Usage("chmod", 1, "invalid mode: %s", q(mode))
	}
	status := 0
	var walk func(name string, top bool)
	walk = func(name string, top bool) {
		p := e.Path(name)
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if !top {
				return // chmod -R does not follow links it meets
			}
			fi, err = os.Stat(p)
		}
		if err != nil {
			if !quiet {
				e.Errorf("chmod", "cannot access %s: %s", qa(name), proc.ErrorText(err))
			}
			status = 1
			return
		}
		old := unixMode(fi.Mode())
		nm := applyMode(changes, old, fi.IsDir())
		if nm != old {
			if err := os.Chmod(p, goMode(nm)); err != nil {
				if !quiet {
					e.Errorf("chmod", "changing permissions of %s: %s", qa(name), proc.ErrorText(err))
				}
				status = 1
				return
			}
		}
		switch {
		case nm != old && (verbose || changesOnly):
			fmt.Fprintf(e.Stdout, "mode of %s changed from %04o (%s) to %04o (%s)\n", qa(name), old, modeString(goMode(old))[1:], nm, modeString(goMode(nm))[1:])
		case nm == old && verbose:
			fmt.Fprintf(e.Stdout, "mode of %s retained as %04o (%s)\n", qa(name), old, modeString(goMode(old))[1:])
		}
		if recursive && fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				e.Errorf("chmod", "cannot read directory %s: %s", qa(name), proc.ErrorText(err))
				status = 1
				return
			}
			for _, ent := range entries {
				walk(joinPath(name, ent.Name()), false)
			}
		}
	}
	for _, name := range ops {
		walk(name, true)
	}
	return status
}
