package safefile

import (
	"errors"
	"io/fs"
)

// Cause is err without the path an *fs.PathError repeats: for a message
// that names the file in its own words already (or must not show a host
// path), such as "token file F: permission denied".
func Cause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
