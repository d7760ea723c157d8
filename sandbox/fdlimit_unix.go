//go:build unix

package sandbox

import "syscall"

// defaultMaxOpenFiles is half the process's descriptor limit (Go raises
// the soft limit to the hard one at start), so the host keeps the other
// half for itself: clients, logs, caches. Bounded to [256, 65536].
func defaultMaxOpenFiles() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 8192
	}
	return int(min(max(lim.Cur/2, 256), 65536))
}
