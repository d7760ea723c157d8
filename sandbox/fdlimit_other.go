//go:build !unix

package sandbox

// defaultMaxOpenFiles is a fixed cap where there is no RLIMIT_NOFILE.
func defaultMaxOpenFiles() int { return 8192 }
