package textcmd

import (
	"fmt"
	"strings"
)

// argKind says whether an option takes an argument.
type argKind int

const (
	noArg  argKind = iota
	reqArg         // -n 5, -n5, --lines=5, --lines 5
	optArg         // -i.bak, --in-place=.bak; never the next word
)

// optDef defines one option: a short letter, a long name, or both.
// Long names that spell one option (--color and --colour) share a short
// rune; one above 0xff (see longOnly) cannot be typed as a letter.
type optDef struct {
	short rune
	long  string
	arg   argKind
}

// option is one option found on the command line. name is the short
// letter when the option has one, else its long name, so a command
// switches on one string per option whichever way it was spelled.
type option struct {
	name   string
	arg    string
	hasArg bool
}

// getopt splits args (without args[0]) into options and operands as GNU
// getopt_long does: combined short flags (-rn), attached or separate
// arguments (-n5, -n 5, --lines=5, --lines 5), unambiguous prefixes of
// long names, "--" ending the options and operands mixed with options
// (unless POSIXLY_CORRECT is set, when the first operand ends them). The
// error is the message GNU prints after "NAME: ".
func getopt(args []string, defs []optDef, posix bool) (opts []option, operands []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			d, err := findLong(defs, name)
			if err != nil {
				return nil, nil, err
			}
			o := option{name: d.key()}
			switch {
			case d.arg == noArg && hasVal:
				return nil, nil, fmt.Errorf("option '--%s' doesn't allow an argument", d.long)
			case hasVal:
				o.arg, o.hasArg = val, true
			case d.arg == reqArg:
				if i+1 >= len(args) {
					return nil, nil, fmt.Errorf("option '--%s' requires an argument", d.long)
				}
				i++
				o.arg, o.hasArg = args[i], true
			}
			opts = append(opts, o)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); {
				c := rune(a[j])
				d := findShort(defs, c)
				if d == nil {
					return nil, nil, fmt.Errorf("invalid option -- '%c'", c)
				}
				j++
				o := option{name: d.key()}
				if d.arg != noArg {
					if j < len(a) {
						o.arg, o.hasArg = a[j:], true
					} else if d.arg == reqArg {
						if i+1 >= len(args) {
							return nil, nil, fmt.Errorf("option requires an argument -- '%c'", c)
						}
						i++
						o.arg, o.hasArg = args[i], true
					}
					j = len(a)
				}
				opts = append(opts, o)
			}
		default:
			if posix {
				return opts, append(operands, args[i:]...), nil
			}
			operands = append(operands, a)
		}
	}
	return opts, operands, nil
}

// longOnly is the first of the short runes that stand for a long-only
// option with several spellings.
const longOnly rune = 0x100

func (d *optDef) key() string {
	if d.short >= longOnly {
		return d.long
	}
	if d.short != 0 {
		return string(d.short)
	}
	return d.long
}

func findShort(defs []optDef, c rune) *optDef {
	for i := range defs {
		if defs[i].short == c && c != 0 {
			return &defs[i]
		}
	}
	return nil
}

// findLong finds a long option by its name or an unambiguous prefix.
func findLong(defs []optDef, name string) (*optDef, error) {
	var found []*optDef
	for i := range defs {
		d := &defs[i]
		if d.long == "" {
			continue
		}
		if d.long == name {
			return d, nil
		}
		if strings.HasPrefix(d.long, name) && name != "" {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("unrecognized option '--%s'", name)
	}
	// Prefixes of several spellings of one option are not ambiguous.
	same := true
	for _, d := range found[1:] {
		if d.short != found[0].short || d.short == 0 || d.arg != found[0].arg {
			same = false
		}
	}
	if same {
		return found[0], nil
	}
	var names []string
	for _, d := range found {
		names = append(names, "'--"+d.long+"'")
	}
	return nil, fmt.Errorf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(names, " "))
}
