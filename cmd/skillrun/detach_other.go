//go:build !unix

package main

import "syscall"

// detached: no sessions here (and no resident: see internal/resident).
func detached() *syscall.SysProcAttr { return nil }
