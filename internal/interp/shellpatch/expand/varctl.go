//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shellhooks_varctl.go): the @ operators as bash applies
// them. On a list (${a[@]@U}, "${a[*]@a}", ${@@E}) each operator
// transforms every element, where mvdan.cc/sh transformed the joined
// string or only quoted; ${x@K} and ${x@k} quote a string as @Q does,
// ${x@A} single-quotes the value, and an unset x gives nothing.

package expand

import (
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// skAtElems is ${name[@]@op} (or $@ and $*): op applied to each
// element. ${a[@]@a} is the array's attributes once per element; the
// positional parameters have none.
func (cfg *Config) skAtElems(op string, pe *syntax.ParamExp, elems []string) []string {
	var flags string
	if op == "a" {
		switch name := pe.Param.Value; name {
		case "@", "*":
		default:
			flags = cfg.Env.Get(name).Flags()
		}
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		switch op {
		case "Q", "K", "k":
			e = skQuote(e)
		case "E":
			e = skEscapes(cfg, e)
		case "U":
			e = strings.ToUpper(e)
		case "u":
			e = skUpperFirst(e)
		case "L":
			e = strings.ToLower(e)
		case "a":
			e = flags
		}
		out[i] = e
	}
	return out
}

// skAtOp is ${x@op} as bash expands it, for the operators mvdan.cc/sh
// gets wrong; ok is false for the others (@A of a list). all tells that
// elems are a list's (joined by join), set that a string x is set.
func (cfg *Config) skAtOp(op string, pe *syntax.ParamExp, name string, orig Variable, str string, elems []string, all, set bool, join func([]string) string) (_ string, ok bool) {
	if all {
		if op == "A" {
			return "", len(elems) == 0
		}
		return join(cfg.skAtElems(op, pe, elems)), true
	}
	switch op {
	case "Q", "K", "k":
		return skAtQ(str, nil, false, set, join), true
	case "A":
		if !set {
			return "", true
		}
		decl := name + "=" + skQuote(str)
		if flags := orig.Flags(); flags != "" {
			decl = "declare -" + flags + " " + decl
		}
		return decl, true
	case "E", "U", "u", "L":
		return cfg.skAtElems(op, pe, []string{str})[0], true
	}
	return "", false
}

// skEscapes is s with its backslash escapes expanded as in $'...'
// (${x@E}), up to a NUL character.
func skEscapes(cfg *Config, s string) string {
	out, _, _ := Format(cfg, skCtrlEscapes(s), nil)
	out, _, _ = strings.Cut(out, "\x00")
	return out
}

// skUpperFirst is s with its first character in upper case (${x@u}).
func skUpperFirst(s string) string {
	rs := []rune(s)
	if len(rs) > 0 {
		rs[0] = unicode.ToUpper(rs[0])
	}
	return string(rs)
}
