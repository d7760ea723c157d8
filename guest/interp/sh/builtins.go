package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/builtin"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// statusCommand is the internal command that only sets $? (its argument):
// what printf, echo and read leave behind once the call handler has done
// their work.
const statusCommand = "__skillrun_status"

// ownBuiltin does the work of printf, echo and read for the call handler:
// mvdan.cc/sh's own differ from bash 5.2 (no printf -v, precision or
// floats, read without -d/-n/-a and bash's IFS rules), and scripts'
// output depends on them. Output goes to the command's streams here; a
// builtin that sets variables becomes an eval of assignments, so they
// land in the caller's scope (a function's locals included). ok is false
// for every other command.
func (sh *shell) ownBuiltin(ctx context.Context, args []string) (replaced []string, ok bool) {
	if len(args) == 0 {
		return nil, false
	}
	hc := interp.HandlerCtx(ctx)
	stdout, stderr := hc.Stdout, hc.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	where := func(errs string) string {
		if errs == "" {
			return ""
		}
		var b strings.Builder
		for _, line := range strings.SplitAfter(errs, "\n") {
			if line != "" {
				fmt.Fprintf(&b, "%s: line %d: %s", sh.name, hc.Pos.Line(), line)
			}
		}
		return b.String()
	}
	status := func(code int) []string { return []string{statusCommand, strconv.Itoa(code)} }
	switch args[0] {
	case "printf":
		name, out, errs, code := builtin.PrintfArgs(args[1:])
		_, _ = io.WriteString(stderr, where(errs))
		if name != "" && code != 2 {
			return []string{"eval", builtin.Assign(name, out) + "\n" + statusCommand + " " + strconv.Itoa(code)}, true
		}
		_, _ = io.WriteString(stdout, out)
		return status(code), true
	case "echo":
		_, _ = io.WriteString(stdout, builtin.Echo(args[1:]))
		return status(0), true
	case "read":
		stdin := hc.Stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		ifs := hc.Env.Get("IFS")
		res := builtin.Read(stdin, args[1:], ifs.String(), ifs.IsSet())
		_, _ = io.WriteString(stderr, where(res.Errs))
		var code strings.Builder
		for _, v := range res.Vars {
			code.WriteString(builtin.Assign(v[0], v[1]) + "\n")
		}
		if res.ArrayName != "" {
			code.WriteString(builtin.AssignArray(res.ArrayName, res.Array) + "\n")
		}
		code.WriteString(statusCommand + " " + strconv.Itoa(res.Status))
		return []string{"eval", code.String()}, true
	}
	return nil, false
}

// statusCmd is the command behind statusCommand.
func statusCmd(_ *proc.Env, args []string) int {
	if len(args) < 2 {
		return 0
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > 255 {
		return 2
	}
	return n
}
