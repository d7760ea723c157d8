//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// bash's trap (every signal name and number, listings quoted as bash
// prints them), set and shopt (bash's whole option lists, -p and -q,
// set -C's noclobber, set with no arguments listing the variables) and
// $- with bash's flags. mvdan.cc/sh knows only some of bash's options;
// the others are kept here so that scripts can set, query and list them
// as they do under bash, even where they change nothing.

package interp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skOptState is skillrun's part of a Runner for traps and options.
type skOptState struct {
	// traps are the trap commands by signal number (skTrapDebug and
	// above for DEBUG, ERR and RETURN): what trap lists. EXIT and ERR
	// also set callbackExit and callbackErr, which run them. A subshell
	// lists its parent's traps, as bash does, but runs none.
	traps map[int]string
	// setOpts are the set -o options mvdan.cc/sh lacks, where they
	// differ from bash's default; shopts the same for shopt options.
	setOpts map[string]bool
	shopts  map[string]bool
	// invoked are the letters of $- only the command line sets (c, i,
	// s; builtins2_invocation.go).
	invoked string
}

func (s *skOptState) inherit() skOptState {
	return skOptState{traps: maps.Clone(s.traps), setOpts: maps.Clone(s.setOpts), shopts: maps.Clone(s.shopts), invoked: s.invoked}
}

// The pseudo-signals of trap after the real ones, in bash's listing
// order.
const (
	skTrapDebug  = 65
	skTrapErr    = 66
	skTrapReturn = 67
)

// skSignals are Linux's signal names by number.
var skSignals = [...]string{1: "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU",
	"XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

// skSignalName is the name trap lists for signal n.
func skSignalName(n int) string {
	switch {
	case n == 0:
		return "EXIT"
	case n < len(skSignals):
		return "SIG" + skSignals[n]
	case n == 34:
		return "SIGRTMIN"
	case n > 34 && n < 50:
		return "SIGRTMIN+" + strconv.Itoa(n-34)
	case n >= 50 && n < 64:
		return "SIGRTMAX-" + strconv.Itoa(64-n)
	case n == 64:
		return "SIGRTMAX"
	case n == skTrapDebug:
		return "DEBUG"
	case n == skTrapErr:
		return "ERR"
	case n == skTrapReturn:
		return "RETURN"
	}
	return strconv.Itoa(n)
}

// skSignalNumber reads a signal specification as bash does: a number up
// to 64, or a name with or without SIG in any case.
func skSignalNumber(spec string) (int, bool) {
	if skDigits(spec) {
		n, err := strconv.Atoi(spec)
		return n, err == nil && n <= 64
	}
	up := strings.ToUpper(spec)
	for n := 0; n <= skTrapReturn; n++ {
		name := skSignalName(n)
		if up == name || "SIG"+up == name {
			return n, true
		}
	}
	return 0, false
}

// skQuote is bash's single quoting of a word, as trap lists commands.
func skQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// skTrap is bash's trap builtin.
func (r *Runner) skTrap(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	list, print := false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'l':
				list = true
			case 'p':
				print = true
			default:
				r.errf("%strap: %s: invalid option\ntrap: usage: trap [-lp] [[arg] signal_spec ...]\n", r.skErrPrefix(pos), a)
				exit.code = 2
				return exit
			}
		}
	}
	show := func(n int) {
		if cmd, ok := r.skOpt.traps[n]; ok {
			r.outf("trap -- %s %s\n", skQuote(cmd), skSignalName(n))
		}
	}
	bad := func(spec string) {
		r.errf("%strap: %s: invalid signal specification\n", r.skErrPrefix(pos), spec)
		exit.code = 1
	}
	switch {
	case list:
		j := 0
		for n := 1; n <= 64; n++ {
			if n == 32 || n == 33 {
				continue
			}
			j++
			sep := "\t"
			if j%5 == 0 {
				sep = "\n"
			}
			r.outf("%2d) %s%s", n, skSignalName(n), sep)
		}
		if j%5 != 0 {
			r.out("\n")
		}
		return exit
	case len(args) == 0:
		for _, n := range slices.Sorted(maps.Keys(r.skOpt.traps)) {
			show(n)
		}
		return exit
	case print:
		for _, spec := range args {
			if n, ok := skSignalNumber(spec); ok {
				show(n)
			} else {
				bad(spec)
			}
		}
		return exit
	}
	// One argument, - or a signal number first: reset the signals.
	reset := false
	if n, ok := skSignalNumber(args[0]); len(args) == 1 || (ok && skDigits(args[0]) && n >= 0) {
		reset = true
	} else if args[0] == "-" {
		reset = true
		args = args[1:]
	}
	cmd := ""
	if !reset {
		cmd, args = args[0], args[1:]
	}
	for _, spec := range args {
		n, ok := skSignalNumber(spec)
		if !ok {
			bad(spec)
			continue
		}
		run := cmd
		if reset {
			delete(r.skOpt.traps, n)
		} else {
			if r.skOpt.traps == nil {
				r.skOpt.traps = map[int]string{}
			}
			r.skOpt.traps[n] = cmd
		}
		switch n {
		case 0:
			r.callbackExit = run
		case skTrapErr:
			r.callbackErr = run
		}
	}
	return exit
}

// skSetOption is one of bash's set -o options.
type skSetOption struct {
	name string
	flag byte // its letter in set and $-, or 0
	on   bool // bash's default (non-interactive)
}

// skSetOptions are bash's set -o options in its listing order.
var skSetOptions = []skSetOption{
	{"allexport", 'a', false}, {"braceexpand", 'B', true}, {"emacs", 0, false}, {"errexit", 'e', false},
	{"errtrace", 'E', false}, {"functrace", 'T', false}, {"hashall", 'h', true}, {"histexpand", 'H', false},
	{"history", 0, false}, {"ignoreeof", 0, false}, {"interactive-comments", 0, true}, {"keyword", 'k', false},
	{"monitor", 'm', false}, {"noclobber", 'C', false}, {"noexec", 'n', false}, {"noglob", 'f', false},
	{"nolog", 0, false}, {"notify", 'b', false}, {"nounset", 'u', false}, {"onecmd", 't', false},
	{"physical", 'P', false}, {"pipefail", 0, false}, {"posix", 0, false}, {"privileged", 'p', false},
	{"verbose", 'v', false}, {"vi", 0, false}, {"xtrace", 'x', false},
}

// skFlagOrder is the order of bash's $- letters.
const skFlagOrder = "abefhikmnptuvxBCEHPT"

// skSetOpt reports whether set -o option name is on.
func (r *Runner) skSetOpt(name string) (on, ok bool) {
	if opt := r.posixOptByName(name); opt != nil {
		return *opt, true
	}
	for _, o := range skSetOptions {
		if o.name == name {
			if v, ok := r.skOpt.setOpts[name]; ok {
				return v, true
			}
			return o.on, true
		}
	}
	return false, false
}

// skSetOptTo sets set -o option name; false if there is none.
func (r *Runner) skSetOptTo(name string, on bool) bool {
	if opt := r.posixOptByName(name); opt != nil {
		*opt = on
		return true
	}
	if _, ok := r.skSetOpt(name); !ok {
		return false
	}
	if r.skOpt.setOpts == nil {
		r.skOpt.setOpts = map[string]bool{}
	}
	r.skOpt.setOpts[name] = on
	if on && (name == "vi" || name == "emacs") {
		// The two editing modes exclude each other.
		other := map[string]string{"vi": "emacs", "emacs": "vi"}[name]
		r.skOpt.setOpts[other] = false
	}
	return true
}

// skFlags is $-: the letters of the options that are on, in bash's order.
func (r *Runner) skFlags() string {
	var b strings.Builder
	for _, c := range []byte(skFlagOrder) {
		for _, o := range skSetOptions {
			if o.flag == c {
				if on, _ := r.skSetOpt(o.name); on {
					b.WriteByte(c)
				}
			}
		}
	}
	return b.String()
}

// skNoClobber reports whether set -C is on.
func (r *Runner) skNoClobber() bool {
	on, _ := r.skSetOpt("noclobber")
	return on
}

// skListSetOpts prints set -o's listing (plus false) or set +o's.
func (r *Runner) skListSetOpts(asCommands bool, only func(on bool) bool) {
	for _, o := range skSetOptions {
		on, _ := r.skSetOpt(o.name)
		if only != nil && !only(on) {
			continue
		}
		r.skPrintOpt(o.name, on, asCommands, true)
	}
}

// skPrintOpt prints one option as set -o, set +o, shopt or shopt -p do.
func (r *Runner) skPrintOpt(name string, on, asCommands, setOpt bool) {
	switch {
	case asCommands && setOpt:
		r.outf("set %so %s\n", map[bool]string{true: "-", false: "+"}[on], name)
	case asCommands:
		r.outf("shopt %s %s\n", map[bool]string{true: "-s", false: "-u"}[on], name)
	default:
		r.outf("%-15s\t%s\n", name, map[bool]string{true: "on", false: "off"}[on])
	}
}

// skSetBuiltin is bash's set builtin: the options mvdan.cc/sh lacks and
// the listings are done here, the rest by Params.
func (r *Runner) skSetBuiltin(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	if len(args) == 0 {
		r.skListVars()
		return exit
	}
	fail := func(format string, a ...any) exitStatus {
		r.errf("%sset: "+format, append([]any{r.skErrPrefix(pos)}, a...)...)
		exit.code = 2
		return exit
	}
	// As bash's set_builtin: "--" ends the options and sets the
	// parameters even to none, "-" ends them turning off -x and -v, a
	// lone "+" is an empty option word, and the parameters change only
	// if arguments are left or after "--".
	setParams := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-" || a == "--" {
			i++
			setParams = a == "--"
			if a == "-" {
				r.skSetOptTo("xtrace", false)
				r.skSetOptTo("verbose", false)
			}
			break
		}
		if a == "" || (a[0] != '-' && a[0] != '+') {
			break
		}
		on := a[0] == '-'
		for _, c := range a[1:] {
			if c == 'o' {
				if i+1 >= len(args) || (len(args[i+1]) > 0 && (args[i+1][0] == '-' || args[i+1][0] == '+')) {
					r.skListSetOpts(!on, nil)
					continue
				}
				i++
				if !r.skSetOptTo(args[i], on) {
					return fail("%s: invalid option name\n", args[i])
				}
				continue
			}
			found := false
			for _, o := range skSetOptions {
				if o.flag == byte(c) {
					found = r.skSetOptTo(o.name, on)
					break
				}
			}
			if !found {
				return fail("%c%c: invalid option\nset: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [arg ...]\n", a[0], c)
			}
		}
	}
	if i < len(args) || setParams {
		r.Params = slices.Clone(args[i:])
	}
	r.updateExpandOpts()
	return exit
}

// skShoptOptions are bash's shopt options and their defaults, in its
// listing order.
var skShoptOptions = []struct {
	name string
	on   bool
}{
	{"autocd", false}, {"assoc_expand_once", false}, {"cdable_vars", false}, {"cdspell", false},
	{"checkhash", false}, {"checkjobs", false}, {"checkwinsize", true}, {"cmdhist", true},
	{"compat31", false}, {"compat32", false}, {"compat40", false}, {"compat41", false},
	{"compat42", false}, {"compat43", false}, {"compat44", false}, {"complete_fullquote", true},
	{"direxpand", false}, {"dirspell", false}, {"dotglob", false}, {"execfail", false},
	{"expand_aliases", false}, {"extdebug", false}, {"extglob", false}, {"extquote", true},
	{"failglob", false}, {"force_fignore", true}, {"globasciiranges", true}, {"globskipdots", true},
	{"globstar", false}, {"gnu_errfmt", false}, {"histappend", false}, {"histreedit", false},
	{"histverify", false}, {"hostcomplete", true}, {"huponexit", false}, {"inherit_errexit", false},
	{"interactive_comments", true}, {"lastpipe", false}, {"lithist", false}, {"localvar_inherit", false},
	{"localvar_unset", false}, {"login_shell", false}, {"mailwarn", false}, {"no_empty_cmd_completion", false},
	{"nocaseglob", false}, {"nocasematch", false}, {"noexpand_translation", false}, {"nullglob", false},
	{"patsub_replacement", true}, {"progcomp", true}, {"progcomp_alias", false}, {"promptvars", true},
	{"restricted_shell", false}, {"shift_verbose", false}, {"sourcepath", true}, {"varredir_close", false},
	{"xpg_echo", false},
}

// skShoptOpt reports whether shopt option name is on; mvdan.cc/sh's
// supported options are its own, the others are kept here.
func (r *Runner) skShoptOpt(name string) (on, ok bool) {
	if opt, supported := r.bashOptByName(name); opt != nil && supported {
		return *opt, true
	}
	for _, o := range skShoptOptions {
		if o.name == name {
			if v, ok := r.skOpt.shopts[name]; ok {
				return v, true
			}
			return o.on, true
		}
	}
	return false, false
}

// skShopt is bash's shopt builtin.
func (r *Runner) skShopt(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	mode, setOpts, asCommands, quiet := byte(0), false, false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 's', 'u':
				if mode != 0 && mode != byte(c) {
					r.errf("%sshopt: cannot set and unset shell options simultaneously\n", r.skErrPrefix(pos))
					exit.code = 1
					return exit
				}
				mode = byte(c)
			case 'o':
				setOpts = true
			case 'p':
				asCommands = true
			case 'q':
				quiet = true
			default:
				r.errf("%sshopt: -%c: invalid option\nshopt: usage: shopt [-pqsu] [-o] [optname ...]\n", r.skErrPrefix(pos), c)
				exit.code = 2
				return exit
			}
		}
	}
	get := r.skShoptOpt
	if setOpts {
		get = r.skSetOpt
	}
	if len(args) == 0 {
		if quiet {
			return exit
		}
		var names []string
		if setOpts {
			for _, o := range skSetOptions {
				names = append(names, o.name)
			}
		} else {
			for _, o := range skShoptOptions {
				names = append(names, o.name)
			}
		}
		for _, name := range names {
			on, _ := get(name)
			if mode == 0 || (mode == 's') == on {
				r.skPrintOpt(name, on, asCommands, setOpts)
			}
		}
		return exit
	}
	for _, name := range args {
		on, ok := get(name)
		if !ok {
			r.errf("%sshopt: %s: invalid shell option name\n", r.skErrPrefix(pos), name)
			exit.code = 1
			continue
		}
		switch {
		case mode != 0 && setOpts:
			r.skSetOptTo(name, mode == 's')
		case mode != 0:
			if opt, supported := r.bashOptByName(name); opt != nil && supported {
				*opt = mode == 's'
			} else {
				if r.skOpt.shopts == nil {
					r.skOpt.shopts = map[string]bool{}
				}
				r.skOpt.shopts[name] = mode == 's'
			}
		default:
			if !quiet {
				r.skPrintOpt(name, on, asCommands, setOpts)
			}
			if !on {
				exit.code = 1
			}
		}
	}
	r.updateExpandOpts()
	return exit
}

// skListVars is set's listing of the variables: every one in scope,
// sorted, quoted as bash quotes them.
func (r *Runner) skListVars() {
	vars := map[string]expand.Variable{}
	r.writeEnv.Each(func(name string, vr expand.Variable) bool {
		vars[name] = vr
		return true
	})
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		vr := vars[name]
		if !vr.IsSet() && len(vr.Map) == 0 && len(vr.List) == 0 {
			continue
		}
		switch vr.Kind {
		case expand.Indexed:
			var b strings.Builder
			for i, v := range vr.List {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString("[" + strconv.Itoa(i) + "]=" + skDoubleQuote(v))
			}
			r.outf("%s=(%s)\n", name, b.String())
		case expand.Associative:
			var b strings.Builder
			for _, k := range expand.SkillrunAssocKeys(vr.Map) {
				key := k
				if skNeedsQuote(k) {
					key = skDoubleQuote(k)
				}
				b.WriteString("[" + key + "]=" + skDoubleQuote(vr.Map[k]) + " ")
			}
			r.outf("%s=(%s)\n", name, b.String())
		default:
			r.outf("%s=%s\n", name, skVarQuote(vr.String()))
		}
	}
}

// skNeedsQuote reports whether s is not a plain word of the shell.
func skNeedsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_-./:,+@%^", c):
		default:
			return true
		}
	}
	return false
}

// skDoubleQuote quotes s in double quotes, as bash lists array values.
func skDoubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if strings.ContainsRune("\"\\$`", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

// skVarQuote quotes a scalar's value as set lists it: bare when it needs
// no quotes, in single quotes, or as $'...' with control characters.
func skVarQuote(s string) string {
	if !skNeedsQuote(s) {
		return s
	}
	if s == "" {
		return "''"
	}
	if skHasControl(s) {
		return skANSIQuote(s) // octal escapes, as bash's ansic_quote
	}
	return skQuote(s)
}
