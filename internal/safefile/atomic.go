package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic writes a file with mode perm through a temporary file in
// the same folder and a rename, creating the folder (0700) if needed, so
// that a reader sees the old file or the whole new one, never half of it.
// write fills the temporary file; on any error it is removed.
func WriteAtomic(name string, perm os.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*"+filepath.Ext(name))
	if err != nil {
		return err
	}
	err = write(tmp)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
