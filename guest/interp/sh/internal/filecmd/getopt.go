package filecmd

import (
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// getopt parses a command line the way glibc's getopt_long does for the
// GNU tools: combined short flags (-rf), attached or separate values
// (-n5, -n 5), long options with unique-prefix abbreviation and
// --long=value, "--" to end the options, and, unless posix is set,
// options after operands (GNU permutes them).
type getopt struct {
	// name is the command name used in messages.
	name string
	// spec lists the options, separated by spaces. Each item is
	// "s,long" with either part optional; a ':' after the item means the
	// option takes a value, "::" an optional value (long form only as
	// --long=value, short form only attached).
	spec string
	// posix stops option parsing at the first operand, as commands that
	// run another command (env, xargs, timeout) must.
	posix bool
	// ordered returns operands among the options, with key "", for
	// commands where their position matters (tar -C).
	ordered bool
	// stop, if set, ends option parsing at an argument it accepts (seq
	// treats "-1" as a number, not an option).
	stop func(arg string) bool
	// fail is the exit status for a usage error (default 1).
	fail int
	// diffutils prints its hint as "diff: Try 'diff --help' ...".
	namedHint bool
}

// An opt is one parsed option: key is its short letter if it has one,
// else its long name.
type opt struct {
	key    string
	val    string
	hasVal bool
}

type argKind int

const (
	noArg argKind = iota
	reqArg
	optArg
)

type optDef struct {
	short byte
	long  string
	arg   argKind
}

func (d optDef) key() string {
	if d.short != 0 {
		return string(d.short)
	}
	return d.long
}

func parseSpec(spec string) []optDef {
	var defs []optDef
	for _, item := range strings.Fields(spec) {
		var d optDef
		switch {
		case strings.HasSuffix(item, "::"):
			d.arg, item = optArg, item[:len(item)-2]
		case strings.HasSuffix(item, ":"):
			d.arg, item = reqArg, item[:len(item)-1]
		}
		short, long, _ := strings.Cut(item, ",")
		if len(short) == 1 {
			d.short = short[0]
		} else if short != "" {
			long = short
		}
		d.long = long
		defs = append(defs, d)
	}
	return defs
}

// packages names the package each command's --version reports.
var packages = map[string]string{
	"find": "GNU findutils) 4.9.0", "xargs": "GNU findutils) 4.9.0",
	"diff": "GNU diffutils) 3.8", "cmp": "GNU diffutils) 3.8",
	"tar": "GNU tar) 1.34", "gzip": "gzip 1.12", "gunzip": "gzip 1.12", "zcat": "gzip 1.12",
}

// parse parses args (without the command name). When ok is false the
// command has printed what it had to (a usage error, --help, --version)
// and must return status.
func (g getopt) parse(e *proc.Env, args []string) (opts []opt, operands []string, status int, ok bool) {
	defs := parseSpec(g.spec)
	fail := g.fail
	if fail == 0 {
		fail = 1
	}
	bad := func(format string, a ...any) ([]opt, []string, int, bool) {
		e.Errorf(g.name, format, a...)
		if g.namedHint {
			e.Errorf(g.name, "Try '%s --help' for more information.", g.name)
		} else {
			tryHelp(e, g.name)
		}
		return nil, nil, fail, false
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			operands = append(operands, args[i+1:]...)
			return opts, operands, 0, true
		case len(arg) < 2 || arg[0] != '-' || (g.stop != nil && g.stop(arg)):
			if g.posix || (g.stop != nil && g.stop(arg)) {
				operands = append(operands, args[i:]...)
				return opts, operands, 0, true
			}
			if g.ordered {
				opts = append(opts, opt{val: arg, hasVal: true})
			}
			operands = append(operands, arg)
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			d, amb := matchLong(defs, name)
			if d == nil && amb == nil {
				switch name {
				case "help":
					fmt.Fprintf(e.Stdout, "Usage: %s [OPTION]... [FILE]...\nThis is skillrun's sandboxed %s; see the GNU manual for its options.\n", g.name, g.name)
					return nil, nil, 0, false
				case "version":
					pkg, ok := packages[g.name]
					if !ok {
						pkg = "GNU coreutils) 9.1"
					}
					fmt.Fprintf(e.Stdout, "%s (%s\nCopyright (C) 2022 Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n", g.name, pkg)
					return nil, nil, 0, false
				}
			}
			if amb != nil {
				var b strings.Builder
				for _, a := range amb {
					fmt.Fprintf(&b, " '--%s'", a)
				}
				return bad("option '--%s' is ambiguous; possibilities:%s", name, b.String())
			}
			if d == nil {
				return bad("unrecognized option '%s'", arg)
			}
			switch d.arg {
			case noArg:
				if hasVal {
					return bad("option '--%s' doesn't allow an argument", d.long)
				}
			case reqArg:
				if !hasVal {
					if i+1 >= len(args) {
						return bad("option '--%s' requires an argument", d.long)
					}
					i++
					val, hasVal = args[i], true
				}
			}
			opts = append(opts, opt{key: d.key(), val: val, hasVal: hasVal})
		default:
			for j := 1; j < len(arg); j++ {
				d := matchShort(defs, arg[j])
				if d == nil {
					return bad("invalid option -- '%c'", arg[j])
				}
				if d.arg == noArg {
					opts = append(opts, opt{key: d.key()})
					continue
				}
				val, hasVal := arg[j+1:], j+1 < len(arg)
				if !hasVal && d.arg == reqArg {
					if i+1 >= len(args) {
						return bad("option requires an argument -- '%c'", arg[j])
					}
					i++
					val, hasVal = args[i], true
				}
				opts = append(opts, opt{key: d.key(), val: val, hasVal: hasVal})
				break
			}
		}
	}
	return opts, operands, 0, true
}

func matchShort(defs []optDef, c byte) *optDef {
	for i := range defs {
		if defs[i].short == c {
			return &defs[i]
		}
	}
	return nil
}

// matchLong finds the long option name stands for: an exact match or
// the only one it abbreviates. amb lists the candidates when there are
// several.
func matchLong(defs []optDef, name string) (d *optDef, amb []string) {
	if name == "" {
		return nil, nil
	}
	var found []*optDef
	for i := range defs {
		if defs[i].long == "" {
			continue
		}
		if defs[i].long == name {
			return &defs[i], nil
		}
		if strings.HasPrefix(defs[i].long, name) {
			found = append(found, &defs[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	for _, f := range found {
		amb = append(amb, f.long)
	}
	return nil, amb
}

// tryHelp prints the line GNU tools end a usage error with.
func tryHelp(e *proc.Env, name string) {
	fmt.Fprintf(e.Stderr, "Try '%s --help' for more information.\n", name)
}

// usage reports a usage error ("missing operand" and the like) and
// returns status.
func usage(e *proc.Env, name string, status int, format string, a ...any) int {
	e.Errorf(name, format, a...)
	tryHelp(e, name)
	return status
}
