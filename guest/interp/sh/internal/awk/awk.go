// Package awk is the awk command of skillrun's sandboxed shell: a POSIX
// awk (with the common gawk and mawk behaviour scripts rely on) written
// in Go, so that it runs inside the shell's WebAssembly module. Commands
// run by system(), "cmd" | getline and print | "cmd" go through the
// shell's Exec.
package awk

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const usage = "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]"

// Main runs awk with args (args[0] is "awk") and returns the exit status.
func Main(e *proc.Env, args []string) (status int) {
	var (
		fs       *string
		assigns  []string
		progSrc  []string
		haveFile bool
	)
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		opt, val := a[:2], a[2:]
		takeVal := func() bool {
			if val != "" {
				return true
			}
			if i+1 >= len(args) {
				e.Errorf("awk", "option requires an argument -- %c", opt[1])
				return false
			}
			i++
			val = args[i]
			return true
		}
		switch opt {
		case "-F":
			if !takeVal() {
				return usageError(e)
			}
			v := val
			fs = &v
		case "-v":
			if !takeVal() {
				return usageError(e)
			}
			if _, _, ok := cmdAssign(val); !ok {
				e.Errorf("awk", "invalid -v argument `%s'", val)
				return 2
			}
			assigns = append(assigns, val)
		case "-f":
			if !takeVal() {
				return usageError(e)
			}
			src, err := readProgFile(e, val)
			if err != nil {
				e.Errorf("awk", "fatal: can't open source file `%s' for reading: %s", val, proc.ErrorText(err))
				return 2
			}
			progSrc = append(progSrc, src)
			haveFile = true
		default:
			if a == "--version" || a == "-W" {
				fmt.Fprintln(e.Stdout, "awk (skillrun) 1.0")
				return 0
			}
			e.Errorf("awk", "unknown option %s", a)
			return usageError(e)
		}
	}
	if !haveFile {
		if i >= len(args) {
			return usageError(e)
		}
		progSrc = append(progSrc, args[i])
		i++
	}
	src := strings.Join(progSrc, "\n")
	prog, err := parse(src)
	if err != nil {
		reportSyntax(e, src, err)
		return 2
	}

	in := newInterp(e, prog)
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		// Keep what the program printed before it failed.
		in.flushAll()
		switch r := r.(type) {
		case *runtimeError:
			e.Errorf("awk", "%s", r.msg)
			status = 2
		case cancelled:
			status = 130
		default:
			e.Errorf("awk", "internal error: %v", r)
			status = 2
		}
	}()
	in.setArgs(args[i:])
	if fs != nil {
		in.setGlobal(gFS, "FS", str(fieldSep(*fs)))
	}
	for _, a := range assigns {
		name, val, _ := cmdAssign(a)
		in.setGlobal(in.globalIdx(name), name, strnum(unescapeString(val)))
	}
	in.run()
	in.closeAll()
	return in.exitStatus
}

func usageError(e *proc.Env) int {
	fmt.Fprintln(e.Stderr, usage)
	return 2
}

func readProgFile(e *proc.Env, name string) (string, error) {
	f, err := e.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// fieldSep interprets -F: escapes are processed and "t" means tab.
func fieldSep(s string) string {
	if s == "t" {
		return "\t"
	}
	return unescapeString(s)
}

// reportSyntax prints a syntax error with the offending source line and
// a caret under the column.
func reportSyntax(e *proc.Env, src string, err error) {
	e.Errorf("awk", "%v", err)
	se, ok := errors.AsType[*syntaxError](err)
	if !ok {
		return
	}
	lines := strings.Split(src, "\n")
	if se.line < 1 || se.line > len(lines) {
		return
	}
	line := lines[se.line-1]
	fmt.Fprintf(e.Stderr, "awk: %s\n", line)
	var caret strings.Builder
	for i := 0; i < se.col-1 && i < len(line); i++ {
		if line[i] == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	fmt.Fprintf(e.Stderr, "awk: %s^\n", caret.String())
}

func newInterp(e *proc.Env, prog *Program) *interp {
	in := &interp{
		e:       e,
		prog:    prog,
		globals: make([]cell, len(prog.Globals)),
		outputs: map[string]*output{},
		inputs:  map[string]*input{},
		regexes: regexCache{},
		rng:     rand.New(rand.NewSource(0)),
		stdout:  bufio.NewWriterSize(e.Stdout, 32<<10),
	}
	in.stdoutOut = &output{w: in.stdout}
	set := func(idx int, s string) { in.setGlobal(idx, specialNames[idx], str(s)) }
	set(gFS, " ")
	set(gOFS, " ")
	set(gORS, "\n")
	set(gRS, "\n")
	set(gSUBSEP, "\x1c")
	set(gCONVFMT, "%.6g")
	set(gOFMT, "%.6g")
	set(gFILENAME, "")
	for _, idx := range []int{gNR, gFNR, gRSTART} {
		in.globals[idx].v = num(0)
	}
	in.globals[gRLENGTH].v = num(-1)
	env := map[string]value{}
	for _, kv := range e.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = strnum(v)
		}
	}
	in.globals[gENVIRON].arr = env
	in.globals[gARGV].arr = map[string]value{}
	return in
}

// setArgs fills ARGV and ARGC from the operands after the program.
func (in *interp) setArgs(operands []string) {
	argv := in.globals[gARGV].arr
	argv["0"] = str("awk")
	for i, a := range operands {
		argv[strconv.Itoa(i+1)] = strnum(a)
	}
	in.globals[gARGC].v = num(float64(len(operands) + 1))
}
