//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// getopts as bash's sh_getopt and dogetopts have it. OPTIND is set on
// every call (also at the end, and past a "--"), an OPTIND beyond the
// arguments ends the parse and is brought back to them, a missing
// option argument is '?' (':' in silent mode), and OPTARG and OPTIND
// are set before the name is checked.

package interp

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (r *Runner) skGetopts(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	if len(args) < 2 {
		r.errf("%sgetopts: usage: getopts optstring name [arg ...]\n", r.skErrPrefix(pos))
		exit.code = 2
		return exit
	}
	optstr, name, argv := args[0], args[1], args[2:]
	if len(args) == 2 {
		argv = r.Params
	}
	silent := strings.HasPrefix(optstr, ":")
	optstr = strings.TrimPrefix(optstr, ":")

	// The state is bash's sh_optind and the position in the argument
	// being read. It is kept while OPTIND holds what getopts last set; a
	// new OPTIND starts over there (0 before the first argument, as
	// OPTIND=1 makes it).
	optind, _ := strconv.Atoi(strings.TrimSpace(r.envGet("OPTIND")))
	if optind != r.optState.argidx {
		if optind < 0 || optind == 1 {
			optind = 0
		}
		r.optState = getopts{argidx: optind}
	}
	opt, optarg, status := r.optState.skNext(optstr, argv)
	r.setVarString("OPTIND", strconv.Itoa(r.optState.argidx))

	value := string(opt)
	switch status {
	case skOptEnd:
		r.delVar("OPTARG")
		value = "?"
		exit.code = 1
	case skOptInvalid, skOptMissing:
		if status == skOptInvalid && !silent {
			r.errf("%s: illegal option -- %c\n", r.skArgv0(), opt)
		}
		if status == skOptMissing && !silent {
			r.errf("%s: option requires an argument -- %c\n", r.skArgv0(), opt)
		}
		value = "?"
		if silent {
			r.setVarString("OPTARG", string(opt))
			if status == skOptMissing {
				value = ":"
			}
		} else {
			r.delVar("OPTARG")
		}
	case skOptArg:
		r.setVarString("OPTARG", optarg)
	default:
		r.delVar("OPTARG") // bash binds it to no value: unset for set -u
	}
	if !syntax.ValidName(name) {
		r.errf("%sgetopts: `%s': not a valid identifier\n", r.skErrPrefix(pos), name)
		exit.code = 1
		return exit
	}
	r.setVarString(name, value)
	return exit
}

// skArgv0 is $0, which bash's getopts names in its diagnostics.
func (r *Runner) skArgv0() string {
	if r.filename != "" {
		return r.filename
	}
	return "bash"
}

// The outcomes of skNext besides an option.
const (
	skOptFound = iota
	skOptArg   // an option with its argument
	skOptEnd
	skOptInvalid
	skOptMissing
)

// skNext is bash's sh_getopt over argv (without $0): argidx is the
// 1-based index of the next argument (0 before the first call) and
// runeidx the byte offset of the next option in it (0: none started).
func (g *getopts) skNext(optstr string, argv []string) (opt byte, optarg string, status int) {
	argc := len(argv) + 1
	if g.argidx >= argc || g.argidx < 0 {
		g.argidx, g.runeidx = argc, 0
		return 0, "", skOptEnd
	}
	if g.argidx == 0 {
		g.argidx, g.runeidx = 1, 0
	}
	if g.runeidx == 0 {
		if g.argidx >= argc {
			return 0, "", skOptEnd
		}
		arg := argv[g.argidx-1]
		if len(arg) < 2 || arg[0] != '-' {
			return 0, "", skOptEnd
		}
		if arg == "--" {
			g.argidx++
			return 0, "", skOptEnd
		}
		g.runeidx = 1
	}
	arg := argv[g.argidx-1]
	if g.runeidx >= len(arg) { // the arguments changed under a started word
		g.argidx, g.runeidx = g.argidx+1, 0
		return 0, "", skOptEnd
	}
	opt = arg[g.runeidx]
	g.runeidx++
	rest := arg[g.runeidx:]
	if rest == "" {
		g.argidx, g.runeidx = g.argidx+1, 0
	}
	i := strings.IndexByte(optstr, opt)
	if i < 0 || opt == ':' {
		return opt, "", skOptInvalid
	}
	if i+1 < len(optstr) && optstr[i+1] == ':' {
		switch {
		case rest != "":
			optarg = rest
			g.argidx++
		case g.argidx == argc:
			g.runeidx = 0
			return opt, "", skOptMissing
		default:
			optarg = argv[g.argidx-1]
			g.argidx++
		}
		g.runeidx = 0
		return opt, optarg, skOptArg
	}
	return opt, "", skOptFound
}
