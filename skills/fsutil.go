package skills

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
)

// ErrOutsideSkill is the error for a path that would leave the skill
// folder: absolute, with "..", or through a symlink pointing outside. It
// matches fs.ErrPermission with errors.Is.
var ErrOutsideSkill error = outsideError{}

type outsideError struct{}

func (outsideError) Error() string        { return "path leads outside the skill folder" }
func (outsideError) Is(target error) bool { return target == fs.ErrPermission }

// isEscape reports whether err is os.Root refusing a path that escapes the
// root (a symlink pointing outside). os exposes no sentinel for it, so the
// message is matched; a test pins it.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// describeFSError turns an os.Root escape into ErrOutsideSkill.
func describeFSError(err error) error {
	if isEscape(err) {
		return ErrOutsideSkill
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
