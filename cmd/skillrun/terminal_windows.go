package main

import "golang.org/x/sys/windows"

// termiosOf reports whether fd is a console: GetConsoleMode fails on
// NUL, files and pipes.
func termiosOf(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}
