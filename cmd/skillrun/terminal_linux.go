package main

import "golang.org/x/sys/unix"

// termiosOf reports whether fd is a terminal: TCGETS succeeds only on a
// tty (what isatty(3) asks).
func termiosOf(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
