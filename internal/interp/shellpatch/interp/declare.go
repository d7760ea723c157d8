//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp (see
// internal/interp/shell.go): the listings of declare, typeset, local,
// export and readonly as bash prints them. declare -p prints what bash
// reads back (scripts save variables with eval "$(declare -p a b)"):
// declare -- s="v", declare -a a=([0]="1" [3]="x"), declare -A
// m=([k]="v" ), declare -- x for a variable with no value, where
// mvdan.cc/sh printed Go's quoting; with no names it lists every
// variable (or those with the attributes -r, -x, -n, -a, -A asked
// for), as do export and readonly with no names or -p; declare with no
// names lists name=value; declare -F lists the functions (and the
// names of those it is given).

package interp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// skDecl runs a declaration that only lists, and reports whether it was
// one; other declarations are left to mvdan.cc/sh.
func (r *Runner) skDecl(cm *syntax.DeclClause) bool {
	var flags, names []string
	for _, as := range cm.Args {
		var s string
		switch {
		case as.Name != nil && as.Naked && as.Index == nil:
			s = as.Name.Value
		case as.Name == nil && as.Value != nil && as.Value.Lit() != "":
			s = as.Value.Lit()
		default:
			return false // an assignment, or a word to expand
		}
		switch {
		case strings.HasPrefix(s, "-") && len(names) == 0 && len(s) > 1:
			flags = append(flags, s)
		case syntax.ValidName(s), skFuncNames(flags) && !strings.Contains(s, "="):
			names = append(names, s) // function names may have a "/"
		default:
			return false // a word to expand
		}
	}
	opt := map[byte]bool{}
	for _, f := range flags {
		for i := 1; i < len(f); i++ {
			switch c := f[i]; c {
			case 'p', 'F', 'f', 'r', 'x', 'n', 'a', 'A', 'g':
				opt[c] = true
			default:
				return false
			}
		}
	}
	variant := cm.Variant.Value
	switch {
	case opt['F']:
		return r.skDeclFuncs(names)
	case opt['f']:
		return false
	case opt['p']:
	case len(names) > 0:
		return false
	}
	switch variant {
	case "export":
		opt['x'] = true
	case "readonly":
		opt['r'] = true
	}
	if len(names) > 0 {
		for _, name := range names {
			r.skDeclPrint(variant, name)
		}
		return true
	}
	all := map[string]expand.Variable{}
	for name, vr := range r.writeEnv.Each {
		all[name] = vr
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		vr := all[name]
		if !vr.Declared() || !syntax.ValidName(name) {
			continue
		}
		if opt['r'] && !vr.ReadOnly || opt['x'] && !vr.Exported || opt['n'] && vr.Kind != expand.NameRef ||
			opt['a'] && vr.Kind != expand.Indexed || opt['A'] && vr.Kind != expand.Associative {
			continue
		}
		if variant == "local" && !vr.Local {
			continue
		}
		if opt['p'] && variant != "local" || variant == "export" || variant == "readonly" || opt['r'] || opt['x'] ||
			opt['n'] || opt['a'] || opt['A'] {
			r.out(skDeclLine(name, vr))
		} else if vr.IsSet() {
			r.outf("%s=%s\n", name, skDeclValue(vr, false))
		}
	}
	return true
}

// skDeclPrint is declare -p name. bash's export, readonly and local
// print nothing for -p with names.
func (r *Runner) skDeclPrint(variant, name string) {
	switch variant {
	case "export", "readonly", "local":
		return
	}
	vr := r.lookupVar(name)
	if !vr.Declared() {
		r.errf("%s: %s: not found\n", variant, name)
		r.exit.code = 1
		return
	}
	r.out(skDeclLine(name, vr))
}

// skFuncNames reports whether flags ask for functions (-f, -F), whose
// names, unlike variables', may be any word (ble/foo).
func skFuncNames(flags []string) bool {
	for _, f := range flags {
		if strings.ContainsAny(f, "fF") {
			return true
		}
	}
	return false
}

// skDeclFuncs is declare -F: the names of the functions.
func (r *Runner) skDeclFuncs(names []string) bool {
	if len(names) == 0 {
		for _, name := range slices.Sorted(maps.Keys(r.Funcs)) {
			r.outf("declare -f %s\n", name)
		}
		return true
	}
	for _, name := range names {
		if r.Funcs[name] != nil {
			r.outf("%s\n", name)
		} else {
			r.exit.code = 1
		}
	}
	return true
}

// skDeclLine is the declare command that recreates vr as name.
func skDeclLine(name string, vr expand.Variable) string {
	flags := vr.Flags()
	if flags == "" {
		flags = "-"
	}
	if !vr.IsSet() && len(vr.List) == 0 && len(vr.Map) == 0 {
		return fmt.Sprintf("declare -%s %s\n", flags, name) // declared, no value
	}
	return fmt.Sprintf("declare -%s %s=%s\n", flags, name, skDeclValue(vr, true))
}

// skDeclValue is vr's value as declare prints it: double quotes for
// declare -p (quoted), only quotes that are needed for declare's list.
func skDeclValue(vr expand.Variable, quoted bool) string {
	q := skDeclQuote
	if !quoted {
		q = skListQuote
	}
	var b strings.Builder
	switch vr.Kind {
	case expand.Indexed:
		b.WriteString("(")
		for i, v := range vr.List {
			if i > 0 {
				b.WriteString(" ")
			}
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			fmt.Fprintf(&b, "[%d]=%s", idx, skDeclQuote(v))
		}
		b.WriteString(")")
	case expand.Associative:
		b.WriteString("(")
		for _, k := range expand.SkillrunAssocKeys(vr.Map) {
			key := k
			if skDeclNeedsQuote(k) {
				key = skDeclQuote(k)
			}
			fmt.Fprintf(&b, "[%s]=%s ", key, skDeclQuote(vr.Map[k]))
		}
		b.WriteString(")")
	case expand.NameRef:
		return q(vr.Str)
	default:
		return q(vr.String())
	}
	return b.String()
}

// skDeclNeedsQuote reports whether s is not one word of itself.
func skDeclNeedsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-+./:,@%^", c)) {
			return true
		}
	}
	return false
}

// skListQuote quotes s as bash's declare list does: bare if it can be,
// else in single quotes, or $'...' with control characters.
func skListQuote(s string) string {
	if !skDeclNeedsQuote(s) {
		return s
	}
	if skHasControl(s) {
		return skANSIQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// skDeclQuote quotes s as declare -p does: in double quotes, or $'...'
// with control characters.
func skDeclQuote(s string) string {
	if skHasControl(s) {
		return skANSIQuote(s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

func skHasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// skANSIQuote is s in $'...' (expand.SkANSIQuote, shared with ${x@Q}).
func skANSIQuote(s string) string {
	return expand.SkANSIQuote(s)
}
