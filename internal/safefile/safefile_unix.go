//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens name for appending without following a symlink in
// its final element and without blocking on a FIFO (O_NONBLOCK, cleared
// once the descriptor is known to be something else).
func openNoFollow(name string) (*os.File, error) {
	fd, err := syscall.Open(name, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, Mode)
	for err == syscall.EINTR {
		fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, Mode)
	}
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) { // EMLINK: FreeBSD's answer to O_NOFOLLOW
			if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				return nil, &os.PathError{Op: "open", Path: name,
					Err: fmt.Errorf("%w: it is a symlink, which skillrun never follows for its own files; name the file itself or remove the link", ErrNotOwnFile)}
			}
		}
		if errors.Is(err, syscall.EISDIR) {
			return nil, &os.PathError{Op: "open", Path: name,
				Err: fmt.Errorf("%w: it is a directory; name a file in it", ErrNotOwnFile)}
		}
		if errors.Is(err, syscall.ENXIO) { // a FIFO with no reader
			return nil, &os.PathError{Op: "open", Path: name,
				Err: fmt.Errorf("%w: it is a named pipe; name a new or regular file", ErrNotOwnFile)}
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = syscall.Close(fd) // the SetNonblock error is the one to report
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// links returns the number of hard links of the file fi describes.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // Nlink is uint32 on some platforms
	}
	return 1
}

// openStream returns a new descriptor for the open descriptor fd, which
// the standard stream path name names.
func openStream(fd int, name string) (*os.File, error) {
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	syscall.CloseOnExec(nfd)
	return os.NewFile(uintptr(nfd), name), nil
}
