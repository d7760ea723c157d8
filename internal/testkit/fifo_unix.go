//go:build unix

package testkit

import "syscall"

// Mkfifo makes a named pipe at path, for the tests that check that opens
// never block on one. (Where there are no named pipes it returns
// errors.ErrUnsupported, and those tests skip.)
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
