//go:build !unix

package testkit

import "errors"

// Mkfifo reports that this platform has no named pipes; the FIFO tests
// skip.
func Mkfifo(string) error { return errors.ErrUnsupported }
