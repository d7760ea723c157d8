//go:build !unix

package sandbox

import "errors"

// mkfifo reports that this platform has no named pipes; the FIFO tests skip.
func mkfifo(string) error { return errors.ErrUnsupported }
