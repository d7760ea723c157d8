//go:build !unix

package safefile

import (
	"fmt"
	"os"
)

// openNoFollow opens name for appending after checking that it is not a
// symlink. Without O_NOFOLLOW there is a window between the check and the
// open; the check after the open (of the file opened) still refuses
// anything but a regular file or a device.
func openNoFollow(name string) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: name,
			Err: fmt.Errorf("%w: it is a symlink, which skillrun never follows for its own files; name the file itself or remove the link", ErrNotOwnFile)}
	}
	return os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, Mode)
}

// links returns 1: the number of links is not portable.
func links(os.FileInfo) uint64 { return 1 }

// openStream opens name, a standard stream's path, as it is.
func openStream(_ int, name string) (*os.File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
}
