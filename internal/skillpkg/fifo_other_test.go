//go:build !unix

package skillpkg

import "errors"

func mkfifo(string) error { return errors.New("unsupported") }
