//go:build unix

package main

import "syscall"

// detached starts a process in a session of its own, so that the
// terminal's signals and hang-up do not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
