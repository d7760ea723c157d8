package filecmd

import (
	"io"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func basenameCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "basename", 1, proc.Getopt{Spec: "a,multiple s,suffix: z,zero"}, args[1:])
	if !ok {
		return st
	}
	multiple, suffix, end := false, "", "\n"
	for _, o := range opts {
		switch o.Key {
		case "a":
			multiple = true
		case "s":
			multiple, suffix = true, o.Val
		case "z":
			end = "\x00"
		}
	}
	if len(ops) == 0 {
		return e.Usage("basename", 1, "missing operand")
	}
	if !multiple {
		switch len(ops) {
		case 1:
		case 2:
			suffix, ops = ops[1], ops[:1]
		default:
			return e.Usage("basename", 1, "extra operand %s", q(ops[2]))
		}
	}
	var b strings.Builder
	for _, name := range ops {
		base := posixBase(name)
		if suffix != "" && base != suffix && strings.HasSuffix(base, suffix) && base != "/" {
			base = strings.TrimSuffix(base, suffix)
		}
		b.WriteString(base + end)
	}
	if _, err := io.WriteString(e.Stdout, b.String()); err != nil {
		return writeFailed(e, "basename", err)
	}
	return 0
}

// posixBase is basename(1)'s last component: "" stays "", "/" and "//"
// are "/", trailing slashes are ignored.
func posixBase(name string) string {
	if name == "" {
		return ""
	}
	t := strings.TrimRight(name, "/")
	if t == "" {
		return "/"
	}
	return t[strings.LastIndexByte(t, '/')+1:]
}

// posixDir is dirname(1)'s result: "." for a name with no slash, "/" for
// names directly under the root.
func posixDir(name string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		if name == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

func dirnameCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "dirname", 1, proc.Getopt{Spec: "z,zero"}, args[1:])
	if !ok {
		return st
	}
	end := "\n"
	if len(opts) > 0 {
		end = "\x00"
	}
	if len(ops) == 0 {
		return e.Usage("dirname", 1, "missing operand")
	}
	var b strings.Builder
	for _, name := range ops {
		b.WriteString(posixDir(name) + end)
	}
	if _, err := io.WriteString(e.Stdout, b.String()); err != nil {
		return writeFailed(e, "dirname", err)
	}
	return 0
}
