package filecmd

import (
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// The sandbox has no users, hosts or processors to ask about. These
// commands report one fixed identity so that scripts that print or test
// it behave the same on every run: user "user" (uid and gid 1000, not
// root, so scripts that refuse to run as root still run), host
// "skillrun", one processor, and a WASI system on wasm32.

func whoami(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "whoami", 1, proc.Getopt{}, args[1:])
	if !ok {
		return st
	}
	if len(ops) > 0 {
		return e.Usage("whoami", 1, "extra operand %s", q(ops[0]))
	}
	fmt.Fprintln(e.Stdout, sandboxUser)
	return 0
}

func id(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "id", 1, proc.Getopt{Spec: "a Z,context g,group G,groups n,name r,real u,user z,zero"}, args[1:])
	if !ok {
		return st
	}
	var which string
	name := false
	for _, o := range opts {
		switch o.Key {
		case "g", "G", "u":
			if which != "" && which != o.Key {
				e.Errorf("id", "cannot print \"only\" of more than one choice")
				return 1
			}
			which = o.Key
		case "n":
			name = true
		case "Z":
			e.Errorf("id", "--context (-Z) works only on an SELinux-enabled kernel")
			return 1
		}
	}
	for _, u := range ops {
		if u != sandboxUser && u != itoa(sandboxUID) {
			e.Errorf("id", "%s: no such user", q(u))
			return 1
		}
	}
	switch {
	case which != "" && name:
		fmt.Fprintln(e.Stdout, sandboxUser)
	case which != "":
		fmt.Fprintln(e.Stdout, sandboxUID)
	case name:
		e.Errorf("id", "cannot print only names or real IDs in default format")
		return 1
	default:
		fmt.Fprintf(e.Stdout, "uid=%d(%s) gid=%d(%s) groups=%d(%s)\n", sandboxUID, sandboxUser, sandboxUID, sandboxUser, sandboxUID, sandboxUser)
	}
	return 0
}

func hostname(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "hostname", 1, proc.Getopt{Spec: "a,alias A,all-fqdns d,domain f,fqdn,long s,short i,ip-address I,all-ip-addresses y,yp,nis b,boot F,file:"}, args[1:])
	if !ok {
		return st
	}
	if len(ops) > 0 {
		e.Errorf("hostname", "you must be root to change the host name")
		return 1
	}
	fmt.Fprintln(e.Stdout, "skillrun")
	return 0
}

func nproc(e *proc.Env, args []string) int {
	_, ops, st, ok := parseArgs(e, "nproc", 1, proc.Getopt{Spec: ",all ,ignore:"}, args[1:])
	if !ok {
		return st
	}
	if len(ops) > 0 {
		return e.Usage("nproc", 1, "extra operand %s", q(ops[0]))
	}
	fmt.Fprintln(e.Stdout, 1)
	return 0
}

func uname(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "uname", 1, proc.Getopt{Spec: "a,all s,kernel-name n,nodename r,kernel-release v,kernel-version m,machine p,processor i,hardware-platform o,operating-system"}, args[1:])
	if !ok {
		return st
	}
	if len(ops) > 0 {
		return e.Usage("uname", 1, "extra operand %s", q(ops[0]))
	}
	want := map[string]bool{}
	all := false
	for _, o := range opts {
		if o.Key == "a" {
			all = true
		}
		want[o.Key] = true
	}
	if len(opts) == 0 {
		want["s"] = true
	}
	var parts []string
	for _, f := range []struct{ key, val string }{
		{"s", "WASI"}, {"n", "skillrun"}, {"r", "1.0"}, {"v", "#1"}, {"m", "wasm32"},
		{"p", "unknown"}, {"i", "unknown"}, {"o", "WASI"},
	} {
		// -a leaves out the processor and platform when they are unknown.
		if want[f.key] || (all && f.val != "unknown") {
			parts = append(parts, f.val)
		}
	}
	fmt.Fprintln(e.Stdout, strings.Join(parts, " "))
	return 0
}
