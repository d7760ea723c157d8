package filecmd

import (
	"fmt"
	"os"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// This file holds the commands the sandbox cannot really perform. Each
// fails (or does nothing) the way the real command does for an
// unprivileged user on a system without the feature, so that scripts
// see a normal error rather than "command not found".

// syncCmd has nothing to flush: the host owns the files.
func syncCmd(e *proc.Env, args []string) int {
	_, _, st, ok := parseArgs(e, "sync", 1, proc.Getopt{Spec: "d,data f,file-system"}, args[1:])
	if !ok {
		return st
	}
	return 0
}

// df cannot report file system usage: WASI has no statfs.
func df(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "df", 1, proc.Getopt{Spec: "a,all B,block-size: h,human-readable H,si i,inodes k l,local ,output:: P,portability ,sync t,type: T,print-type x,exclude-type: ,total"}, args[1:])
	if !ok {
		return st
	}
	for _, name := range ops {
		if _, err := os.Stat(e.Path(name)); err != nil {
			e.Errorf("df", "%s: %s", name, proc.ErrorText(err))
			return 1
		}
	}
	e.Errorf("df", "file system information is not available in the sandbox")
	return 1
}

// mkfifo fails: the sandbox's file system has no named pipes.
func mkfifo(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "mkfifo", 1, proc.Getopt{Spec: "m,mode: Z ,context::"}, args[1:])
	if !ok {
		return st
	}
	if len(ops) == 0 {
		return e.Usage("mkfifo", 1, "missing operand")
	}
	for _, name := range ops {
		e.Errorf("mkfifo", "cannot create fifo %s: Operation not supported", q(name))
	}
	return 1
}

// chown (and chgrp) fail as for an unprivileged user: there is one user
// in the sandbox and ownership cannot change.
func chown(e *proc.Env, args []string) int {
	name := args[0]
	opts, ops, st, ok := parseArgs(e, name, 1, proc.Getopt{Spec: "c,changes f,silent,quiet v,verbose R,recursive h,no-dereference H L P ,dereference ,from: ,reference: ,preserve-root ,no-preserve-root"}, args[1:])
	if !ok {
		return st
	}
	quiet, ref := false, false
	for _, o := range opts {
		switch o.Key {
		case "f":
			quiet = true
		case "reference":
			ref = true
		}
	}
	if !ref {
		if len(ops) == 0 {
			return e.Usage(name, 1, "missing operand")
		}
		if len(ops) == 1 {
			return e.Usage(name, 1, "missing operand after %s", q(ops[0]))
		}
		ops = ops[1:]
	} else if len(ops) == 0 {
		return e.Usage(name, 1, "missing operand")
	}
	verb := "ownership"
	if name == "chgrp" {
		verb = "group"
	}
	for _, f := range ops {
		if quiet {
			continue
		}
		if _, err := os.Lstat(e.Path(f)); err != nil {
			e.Errorf(name, "cannot access %s: %s", qa(f), proc.ErrorText(err))
			continue
		}
		e.Errorf(name, "changing %s of %s: Operation not permitted", verb, qa(f))
	}
	return 1
}

// kill has no processes to signal.
func kill(e *proc.Env, args []string) int {
	ops := args[1:]
	for len(ops) > 0 && len(ops[0]) > 1 && ops[0][0] == '-' {
		if ops[0] == "-l" || ops[0] == "-L" {
			fmt.Fprintln(e.Stdout, " 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 4) SIGILL\t 5) SIGTRAP\n 6) SIGABRT\t 7) SIGBUS\t 8) SIGFPE\t 9) SIGKILL\t10) SIGUSR1\n11) SIGSEGV\t12) SIGUSR2\t13) SIGPIPE\t14) SIGALRM\t15) SIGTERM")
			return 0
		}
		if ops[0] == "-s" || ops[0] == "-n" {
			ops = ops[1:]
		}
		if ops[0] == "--" {
			ops = ops[1:]
			break
		}
		if len(ops) > 0 {
			ops = ops[1:]
		}
	}
	if len(ops) == 0 {
		fmt.Fprintln(e.Stderr, "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]")
		return 2
	}
	for _, p := range ops {
		fmt.Fprintf(e.Stderr, "kill: (%s) - No such process\n", p)
	}
	return 1
}

// ps shows no processes: commands run inside the shell, not as processes.
func ps(e *proc.Env, args []string) int {
	fmt.Fprintln(e.Stdout, "    PID TTY          TIME CMD")
	return 0
}
