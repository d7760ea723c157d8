package proc

import (
	"fmt"
	"strings"
)

// Getopt parses a command line the way glibc's getopt_long does for the
// GNU tools: combined short flags (-rn), attached or separate values
// (-n5, -n 5, --lines=5, --lines 5), long names abbreviated to any
// unambiguous prefix, "--" ending the options and, unless Posix is set,
// options after operands (GNU permutes them).
type Getopt struct {
	// Spec lists the options, separated by spaces. Each item is a short
	// letter, long names after commas, or both: "n,lines", ",debug", "v".
	// Several long names spell one option ("q,quiet,silent",
	// ",color,colour"). A ':' after the item means the option takes a
	// value, "::" an optional one (--long=value or -svalue only, never
	// the next argument).
	Spec string
	// Posix ends the options at the first operand, as POSIXLY_CORRECT
	// asks and as commands that run another command (env, xargs) need.
	Posix bool
	// Ordered also returns each operand among the options, with Key "",
	// for commands where its place matters (tar -C).
	Ordered bool
	// Stop, if set, ends the options at an argument it accepts, which
	// becomes the first operand: seq reads "-1" as a number.
	Stop func(arg string) bool
}

// An Opt is one option found on the command line. Key is the option's
// short letter if it has one, else its first long name, so a command
// switches on one string however the option was spelled.
type Opt struct {
	Key    string
	Val    string
	HasVal bool
}

// An OptError is a usage error; Error is the message GNU tools print
// after "NAME: ".
type OptError struct {
	msg string
	// Unrecognized is the name of an unknown long option (without "--"
	// and "=value"); "" for other errors.
	Unrecognized string
}

func (e *OptError) Error() string { return e.msg }

func optErr(format string, a ...any) *OptError {
	return &OptError{msg: fmt.Sprintf(format, a...)}
}

type argKind int

const (
	noArg argKind = iota
	reqArg
	optArg
)

type optDef struct {
	key   string
	short byte
	long  string
	arg   argKind
}

// defs expands Spec into one definition per spelling.
func (g *Getopt) defs() []optDef {
	var defs []optDef
	for _, item := range strings.Fields(g.Spec) {
		arg := noArg
		switch {
		case strings.HasSuffix(item, "::"):
			arg, item = optArg, item[:len(item)-2]
		case strings.HasSuffix(item, ":"):
			arg, item = reqArg, item[:len(item)-1]
		}
		names := strings.Split(item, ",")
		short, longs := names[0], names[1:]
		if len(short) > 1 { // a long name without the comma
			short, longs = "", names
		}
		d := optDef{key: short, arg: arg}
		if short != "" {
			d.short = short[0]
		} else if len(longs) > 0 {
			d.key = longs[0]
		}
		if len(longs) == 0 {
			defs = append(defs, d)
		}
		for _, d.long = range longs {
			defs = append(defs, d)
			d.short = 0 // the first spelling holds the letter
		}
	}
	return defs
}

// Parse splits args (without the command name) into options and
// operands. On a usage error it returns an *OptError.
func (g Getopt) Parse(args []string) (opts []Opt, operands []string, err error) {
	defs := g.defs()
	operand := func(args ...string) {
		operands = append(operands, args...)
		if g.Ordered {
			for _, a := range args {
				opts = append(opts, Opt{Val: a, HasVal: true})
			}
		}
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			operand(args[i+1:]...)
			return opts, operands, nil
		case g.Stop != nil && g.Stop(arg):
			operand(args[i:]...)
			return opts, operands, nil
		case len(arg) < 2 || arg[0] != '-':
			if g.Posix {
				operand(args[i:]...)
				return opts, operands, nil
			}
			operand(arg)
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			d, err := matchLong(defs, name)
			if err != nil {
				if err.Unrecognized != "" {
					err.msg = fmt.Sprintf("unrecognized option '%s'", arg)
				}
				return nil, nil, err
			}
			switch {
			case d.arg == noArg && hasVal:
				return nil, nil, optErr("option '--%s' doesn't allow an argument", d.long)
			case d.arg == reqArg && !hasVal:
				if i+1 >= len(args) {
					return nil, nil, optErr("option '--%s' requires an argument", d.long)
				}
				i++
				val, hasVal = args[i], true
			}
			opts = append(opts, Opt{Key: d.key, Val: val, HasVal: hasVal})
		default:
			for j := 1; j < len(arg); j++ {
				d := matchShort(defs, arg[j])
				if d == nil {
					return nil, nil, optErr("invalid option -- '%c'", rune(arg[j]))
				}
				if d.arg == noArg {
					opts = append(opts, Opt{Key: d.key})
					continue
				}
				val, hasVal := arg[j+1:], j+1 < len(arg)
				if !hasVal && d.arg == reqArg {
					if i+1 >= len(args) {
						return nil, nil, optErr("option requires an argument -- '%c'", rune(arg[j]))
					}
					i++
					val, hasVal = args[i], true
				}
				opts = append(opts, Opt{Key: d.key, Val: val, HasVal: hasVal})
				break
			}
		}
	}
	return opts, operands, nil
}

func matchShort(defs []optDef, c byte) *optDef {
	for i := range defs {
		if defs[i].short == c {
			return &defs[i]
		}
	}
	return nil
}

// matchLong finds the option name spells: an exact match or the only
// option it abbreviates. Abbreviating several spellings of one option is
// not ambiguous.
func matchLong(defs []optDef, name string) (*optDef, *OptError) {
	var found []*optDef
	for i := range defs {
		d := &defs[i]
		if d.long == "" || name == "" {
			continue
		}
		if d.long == name {
			return d, nil
		}
		if strings.HasPrefix(d.long, name) {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return nil, &OptError{Unrecognized: name}
	}
	for _, d := range found[1:] {
		if d.key != found[0].key || d.arg != found[0].arg {
			var b strings.Builder
			for _, d := range found {
				fmt.Fprintf(&b, " '--%s'", d.long)
			}
			return nil, optErr("option '--%s' is ambiguous; possibilities:%s", name, b.String())
		}
	}
	return found[0], nil
}

// TryHelp prints the line GNU tools end a usage error with.
func (e *Env) TryHelp(name string) {
	fmt.Fprintf(e.Stderr, "Try '%s --help' for more information.\n", name)
}

// Usage reports a usage error ("missing operand" and the like) as GNU
// tools do, the message and then the TryHelp line, and returns status.
func (e *Env) Usage(name string, status int, format string, a ...any) int {
	e.Errorf(name, format, a...)
	e.TryHelp(name)
	return status
}
