//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import "golang.org/x/sys/unix"

// termiosOf reports whether fd is a terminal: TIOCGETA succeeds only on
// a tty (what isatty(3) asks).
func termiosOf(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TIOCGETA)
	return err == nil
}
