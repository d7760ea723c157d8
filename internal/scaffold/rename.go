package scaffold

import (
	"io/fs"
	"os"
)

// renameChecked renames from to to after checking that nothing is at to.
func renameChecked(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}
