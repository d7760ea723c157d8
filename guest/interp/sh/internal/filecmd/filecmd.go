// Package filecmd holds the file and system commands of skillrun's
// sandboxed shell (cat, cp, find, ls, tar, date, ...), written in Go so
// that the shell and all of its commands are one WebAssembly module.
//
// The goal is output identical to GNU coreutils 9.1 (and findutils 4.9,
// diffutils 3.8, tar 1.34, gzip 1.12) on Debian 12 with LANG=C.UTF-8 and
// TZ=UTC, because the scripts the sandbox runs were written and tested
// against those tools. Where the sandbox cannot do what the real tool
// does (no processes, no users, no file system statistics) the command
// says so in GNU's words or reports a fixed, documented identity.
//
// A few choices apply across the package:
//   - Directories are read with os.ReadDir, which sorts names byte-wise;
//     GNU tools walk in readdir order, which on a real disk is arbitrary,
//     so sorted order is the only reproducible choice.
//   - fs.FileInfo is the only file metadata used: syscall.Stat_t differs
//     between linux and wasip1. Link counts, inodes and block counts are
//     therefore derived (see blocks in du.go and nlink in ls.go).
//   - The sandbox has one user, "user" with uid and gid 1000 (see id.go);
//     every file is reported as owned by it.
package filecmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// Commands are the file and system commands by name.
var Commands = map[string]proc.Command{
	"base64":    base64Cmd,
	"basename":  basenameCmd,
	"cat":       cat,
	"chgrp":     chown,
	"chmod":     chmodCmd,
	"chown":     chown,
	"cksum":     cksum,
	"cmp":       cmp,
	"cp":        cp,
	"date":      date,
	"df":        df,
	"diff":      diffCmd,
	"dirname":   dirnameCmd,
	"du":        du,
	"env":       env,
	"expr":      expr,
	"find":      find,
	"gunzip":    gzipCmd,
	"gzip":      gzipCmd,
	"hostname":  hostname,
	"id":        id,
	"kill":      kill,
	"ln":        ln,
	"ls":        ls,
	"md5sum":    sumCmd,
	"mkdir":     mkdir,
	"mkfifo":    mkfifo,
	"mktemp":    mktemp,
	"mv":        mv,
	"nproc":     nproc,
	"printenv":  printenv,
	"ps":        ps,
	"readlink":  readlinkCmd,
	"realpath":  realpathCmd,
	"rm":        rm,
	"rmdir":     rmdir,
	"seq":       seq,
	"sha1sum":   sumCmd,
	"sha224sum": sumCmd,
	"sha256sum": sumCmd,
	"sha384sum": sumCmd,
	"sha512sum": sumCmd,
	"sleep":     sleep,
	"split":     splitCmd,
	"stat":      stat,
	"sync":      syncCmd,
	"tar":       tarCmd,
	"tee":       tee,
	"timeout":   timeout,
	"touch":     touch,
	"truncate":  truncateCmd,
	"uname":     uname,
	"whoami":    whoami,
	"xargs":     xargs,
	"yes":       yes,
	"zcat":      gzipCmd,
}

// packages names the package each command's --version reports.
var packages = map[string]string{
	"find": "GNU findutils) 4.9.0", "xargs": "GNU findutils) 4.9.0",
	"diff": "GNU diffutils) 3.8", "cmp": "GNU diffutils) 3.8",
	"tar": "GNU tar) 1.34", "gzip": "gzip 1.12", "gunzip": "gzip 1.12", "zcat": "gzip 1.12",
}

// parseArgs parses args (without the command name) with g and reports
// what GNU tools report outside the options themselves: a usage error
// (exit status fail), --help and --version. When ok is false the
// command has printed what it had to and must return status.
func parseArgs(e *proc.Env, name string, fail int, g proc.Getopt, args []string) (opts []proc.Opt, operands []string, status int, ok bool) {
	opts, operands, err := g.Parse(args)
	var oe *proc.OptError
	if !errors.As(err, &oe) {
		return opts, operands, 0, true
	}
	switch oe.Unrecognized {
	case "help":
		fmt.Fprintf(e.Stdout, "Usage: %s [OPTION]... [FILE]...\nThis is skillrun's sandboxed %s; see the GNU manual for its options.\n", name, name)
		return nil, nil, 0, false
	case "version":
		pkg, ok := packages[name]
		if !ok {
			pkg = "GNU coreutils) 9.1"
		}
		fmt.Fprintf(e.Stdout, "%s (%s\nCopyright (C) 2022 Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n", name, pkg)
		return nil, nil, 0, false
	}
	e.Errorf(name, "%v", err)
	if strings.Contains(packages[name], "diffutils") {
		// diffutils names itself in the hint too.
		e.Errorf(name, "Try '%s --help' for more information.", name)
	} else {
		e.TryHelp(name)
	}
	return nil, nil, fail, false
}
