package filecmd

import (
	"errors"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

// modeString is the ls -l form of a mode: "-rw-r--r--", "drwxr-xr-x",
// with s/S, t/T for the set-id and sticky bits.
func modeString(m fs.FileMode) string {
	var b [10]byte
	switch {
	case m&fs.ModeDir != 0:
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	default:
		b[0] = '-'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		} else {
			b[i+1] = '-'
		}
	}
	special := func(i int, set bool, lower byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = lower
		} else {
			b[i] = lower - 'a' + 'A'
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's')
	special(6, m&fs.ModeSetgid != 0, 's')
	special(9, m&fs.ModeSticky != 0, 't')
	return string(b[:])
}

// unixMode is the st_mode permission word of m: the permission bits plus
// set-id and sticky bits in their Unix positions.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// goMode is the inverse of unixMode.
func goMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// fileType is stat's %F: GNU's name for the kind of file.
func fileType(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	case fi.Size() == 0:
		return "regular empty file"
	}
	return "regular file"
}

// blocks1K approximates the disk usage of a file in 1024-byte units
// without st_blocks (unavailable through fs.FileInfo on wasip1): the size
// rounded up to ext4's 4 KiB blocks. Sparse files and inline data are
// not modelled; symbolic links short enough to live in the inode take
// no blocks.
func blocks1K(fi fs.FileInfo) int64 {
	size := fi.Size()
	if fi.Mode()&fs.ModeSymlink != 0 && size < 60 {
		return 0
	}
	if fi.IsDir() && size < 4096 {
		// Some file systems report small or zero sizes for
		// directories; on ext4 a directory is at least one block.
		return 4
	}
	return (size + 4095) / 4096 * 4
}

// stampNano formats t as GNU diff -u and stat %y do:
// "2026-11-26 09:00:00.000000000 +0000".
func stampNano(t time.Time) string {
	return t.Format("2006-01-02 15:04:05.000000000 -0700")
}

// sandboxUser is the one user of the sandbox (see id.go).
const (
	sandboxUser = "user"
	sandboxUID  = 1000
)

// trimSlashes removes trailing slashes but keeps a lone "/".
func trimSlashes(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" && s != "" {
		return "/"
	}
	return t
}

// joinPath appends name to dir as GNU tools build the names they print
// while walking a tree: "d" + "x" is "d/x", "d/" + "x" is "d/x", and
// "." + "x" is "./x" (no cleaning).
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

var (
	errNotDir   error = syscall.ENOTDIR
	errNotEmpty error = syscall.ENOTEMPTY
	errIsDir    error = syscall.EISDIR
	errLoop     error = syscall.ELOOP
)

// isNotEmpty reports whether err is rmdir's "Directory not empty" (some
// systems say EEXIST).
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

func sortStrings(s []string) { sort.Strings(s) }

// writeFailed reports a failed write to standard output as GNU tools do,
// "CMD: write error: ...", and returns exit status 1. A closed pipe goes
// unreported: there GNU tools die of SIGPIPE without a word.
func writeFailed(e *proc.Env, cmd string, err error) int {
	if !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, syscall.EPIPE) {
		e.Errorf(cmd, "write error: %s", proc.ErrorText(err))
	}
	return 1
}
