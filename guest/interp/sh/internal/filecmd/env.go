package filecmd

import (
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// env prints the environment, changed by -i, -u and NAME=VALUE. It can
// run a command, but only with the unchanged environment: proc.Env.Exec
// takes no environment, so "env VAR=x cmd" fails with a message saying
// to use the shell's "VAR=x cmd" instead of silently dropping VAR.
func env(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "env", 125, proc.Getopt{Spec: "i,ignore-environment 0,null u,unset: C,chdir: S,split-string: v,debug", Posix: true}, args[1:])
	if !ok {
		return st
	}
	vars := append([]string(nil), e.Environ...)
	changed, end := false, "\n"
	for _, o := range opts {
		switch o.Key {
		case "i":
			vars, changed = nil, true
		case "0":
			end = "\x00"
		case "u":
			vars, changed = unsetVar(vars, o.Val), true
		case "C", "S":
			e.Errorf("env", "option -%s is not supported in the sandbox", o.Key)
			return 125
		}
	}
	if len(ops) > 0 && ops[0] == "-" {
		vars, changed, ops = nil, true, ops[1:]
	}
	for len(ops) > 0 && strings.Contains(ops[0], "=") && !strings.HasPrefix(ops[0], "=") {
		name, _, _ := strings.Cut(ops[0], "=")
		vars = append(unsetVar(vars, name), ops[0])
		changed, ops = true, ops[1:]
	}
	if len(ops) == 0 {
		var b strings.Builder
		for _, kv := range vars {
			b.WriteString(kv + end)
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	}
	if changed {
		e.Errorf("env", "running a command with a changed environment is not supported; use VAR=x cmd")
		return 125
	}
	if e.Exec == nil {
		e.Errorf("env", "%s: No such file or directory", q(ops[0]))
		return 127
	}
	return e.Exec(ops, e.Stdin, e.Stdout, e.Stderr)
}

func unsetVar(vars []string, name string) []string {
	out := vars[:0:0]
	for _, kv := range vars {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func printenv(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "printenv", 2, proc.Getopt{Spec: "0,null"}, args[1:])
	if !ok {
		return st
	}
	end := "\n"
	if len(opts) > 0 {
		end = "\x00"
	}
	var b strings.Builder
	status := 0
	if len(ops) == 0 {
		for _, kv := range e.Environ {
			b.WriteString(kv + end)
		}
	}
	for _, name := range ops {
		v, ok := e.LookupEnv(name)
		if !ok || strings.Contains(name, "=") {
			status = 1
			continue
		}
		b.WriteString(v + end)
	}
	fmt.Fprint(e.Stdout, b.String())
	return status
}
