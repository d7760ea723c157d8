//go:build unix

package mcp

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a token file that group or others may read or
// write, or that another user owns.
func checkPrivate(path string, fi os.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("token file %s has mode %04o: group or others may read or write it; run `chmod 600 %s`, or remove it to have a new token made", path, perm, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("token file %s belongs to user %d, not to you: whoever owns it chose the token; remove it to have a new token made", path, st.Uid)
	}
	return nil
}
