// Package shellcmd names the commands of skillrun's sandboxed shell
// (guest/interp/sh) for the host: the exec host function starts one of
// them, when a Python script runs it by name, as a run of the shell. The
// guest's own table is the truth; a test in guest/interp/sh keeps this
// list equal to it.
package shellcmd

import "slices"

// names are the shell's commands besides the shell itself (sh, bash)
// and the interpreters (python3, node), sorted.
var names = []string{
	"awk", "base64", "basename", "cat", "chgrp", "chmod", "chown", "cksum",
	"cmp", "column", "comm", "cp", "cut", "date", "df", "diff", "dirname",
	"du", "egrep", "env", "envsubst", "expand", "expr", "fgrep", "find", "fold", "grep",
	"gunzip", "gzip", "head", "hexdump", "hostname", "id", "join", "jq",
	"kill", "ln", "ls", "md5sum", "mkdir", "mkfifo", "mktemp", "mv", "nl",
	"nproc", "od", "paste", "printenv", "ps", "readlink", "realpath", "rev",
	"rm", "rmdir", "sed", "seq", "sha1sum", "sha224sum", "sha256sum",
	"sha384sum", "sha512sum", "sleep", "sort", "split", "stat", "sync", "tac",
	"tail", "tar", "tee", "timeout", "touch", "tr", "truncate", "uname",
	"uniq", "wc", "which", "whoami", "xargs", "yes", "zcat",
}

// builtins are bash builtins that are programs too (/usr/bin/echo): the
// shell runs them as its builtins.
var builtins = []string{"[", "echo", "false", "printf", "pwd", "test", "true"}

// Is reports whether name is a command of the shell (or a bash builtin
// that is also a program).
func Is(name string) bool {
	if _, ok := slices.BinarySearch(names, name); ok {
		return true
	}
	return slices.Contains(builtins, name)
}

// Names returns the shell's commands, sorted.
func Names() []string { return slices.Clone(names) }

// interpreters are the programs the exec host function starts as
// interpreter runs of their own (package scripts maps them to languages).
var interpreters = []string{"bash", "node", "nodejs", "python", "python3", "python3.11", "sh"}

// Programs returns every program name a script in the sandbox can start
// (exec), sorted: the interpreters, the shell's commands and the bash
// builtins that are programs too. Python's shutil.which finds these.
func Programs() []string {
	all := slices.Concat(interpreters, names, builtins)
	slices.Sort(all)
	return slices.Compact(all)
}

// IsInterpreter reports whether name is one of the interpreters exec
// starts as a run of its own.
func IsInterpreter(name string) bool { return slices.Contains(interpreters, name) }
