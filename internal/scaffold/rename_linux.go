package scaffold

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames the folder from to to, failing with an error
// that matches fs.ErrExist when something is at to, even if it appears
// after a check: os.Rename would replace an empty folder there.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		// A file system without RENAME_NOREPLACE.
		return renameChecked(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
