//go:build unix

package sandbox

import "syscall"

// mkfifo makes a named pipe for the tests that check opens never block.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
