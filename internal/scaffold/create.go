package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Create writes files as a new folder called name in parent, creating
// parent if it does not exist, and returns the new folder's path
// (filepath.Join(parent, name)).
//
// It never overwrites anything: when something is already at that path it
// writes nothing and returns an [*fs.PathError] that matches
// [fs.ErrExist]. The files are written into a temporary folder beside the
// new one and renamed into place at the end, so a failure leaves nothing
// behind but parent.
func Create(parent, name string, files []File) (string, error) {
	if name == "" || name == "." || name == ".." || name != filepath.Base(name) {
		return "", fmt.Errorf("the folder name %q is not a plain name", name)
	}
	dir := filepath.Join(parent, name)
	if _, err := os.Lstat(dir); err == nil {
		return "", exists(dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".new-")
	if err != nil {
		return "", err
	}
	// tmp is empty after the rename, and holds what was written before a
	// failure; either way it goes.
	defer func() { _ = os.RemoveAll(tmp) }()
	// The folder made inside tmp gets the umask's permissions, which
	// MkdirTemp's own 0700 would not.
	stage := filepath.Join(tmp, name)
	if err := os.Mkdir(stage, 0o755); err != nil {
		return "", err
	}
	if err := writeFiles(stage, files); err != nil {
		return "", err
	}
	if err := renameNoReplace(stage, dir); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", exists(dir)
		}
		return "", err
	}
	return dir, nil
}

// exists is the error for a path Create will not overwrite.
func exists(dir string) error {
	return &fs.PathError{Op: "create", Path: dir, Err: existsError{}}
}

// existsError says a folder is already there; it matches [fs.ErrExist].
type existsError struct{}

func (existsError) Error() string        { return "already exists; nothing was written" }
func (existsError) Is(target error) bool { return target == fs.ErrExist }

// writeFiles writes files into dir, an empty folder, never over a file.
func writeFiles(dir string, files []File) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		name := filepath.FromSlash(f.Path)
		if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode)
		if err != nil {
			return err
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}
