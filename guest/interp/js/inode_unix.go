//go:build !windows

package main

import (
	"io/fs"
	"syscall"
)

// inode is a file's inode number and link count (stat's ino and nlink).
func inode(fi fs.FileInfo) (ino, nlink uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, uint64(st.Nlink) //nolint:unconvert // Nlink is uint16 on darwin
	}
	return 0, 1
}
