// Package safefile opens the files skillrun writes for itself (audit logs,
// transcripts) without following a symlink planted where the file is
// expected.
//
// A project folder comes from strangers: a cloned repository can hold
// transcript.jsonl -> ../../.bashrc, and appending a record that carries
// skill names to it gives the repository's author code execution the next
// time the user opens a shell. So the final element of the path is never
// followed when it is a symlink, and what is opened must be a regular file
// of one link or a character device (/dev/null, /dev/tty, /dev/full), never
// a directory, FIFO or socket. The standard streams by name (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N) are the exception: they are
// symlinks the kernel keeps, not something a project can plant, and a user
// who names one means the stream already open.
//
// Only the final element is checked: the folders on the way are the ones
// the user named.
package safefile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Mode is the permission of a file OpenAppend creates: the user's only,
// since audit logs and transcripts may hold what a script read.
const Mode = 0o600

// ErrNotOwnFile matches a path OpenAppend refuses for what is there: a
// symlink, a hard link to another file, or a file that is neither regular
// nor a character device.
var ErrNotOwnFile = errors.New("not a file skillrun may write to")

// OpenAppend opens name for appending, creating it (mode [Mode]) when it
// does not exist, as the package doc describes. The error names the path
// and, for a refusal, matches [ErrNotOwnFile] and says what to do.
func OpenAppend(name string) (*os.File, error) {
	if fd, ok := streamFD(name); ok {
		return openStream(fd, name)
	}
	f, err := openNoFollow(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := check(name, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// streamFD returns the descriptor that a standard stream's path names.
func streamFD(name string) (int, bool) {
	switch name {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(name, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && strconv.Itoa(n) == rest {
				return n, true
			}
		}
	}
	return 0, false
}

// check refuses what OpenAppend must not write to.
func check(name string, fi os.FileInfo) error {
	refuse := func(what string) error {
		return &os.PathError{Op: "open", Path: name,
			Err: fmt.Errorf("%w: it is %s; name a new or regular file (or remove what is there)", ErrNotOwnFile, what)}
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		if links(fi) > 1 {
			return refuse("a hard link to another file")
		}
		return nil
	case m&os.ModeCharDevice != 0:
		return nil
	case m.IsDir():
		return refuse("a directory")
	case m&os.ModeSymlink != 0:
		return refuse("a symlink")
	case m&os.ModeNamedPipe != 0:
		return refuse("a named pipe")
	case m&os.ModeSocket != 0:
		return refuse("a socket")
	}
	return refuse("not a regular file")
}
