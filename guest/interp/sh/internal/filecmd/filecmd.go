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
