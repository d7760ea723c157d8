// Package landlock confines the calling thread, and everything it then
// executes, with Linux's Landlock security module: the file system
// beneath listed folders only, no TCP (and from ABI 10 no UDP) bind or
// connect, and from ABI 6 no signals to or abstract UNIX sockets of
// processes outside the domain.
//
// Two parts of skillrun confine programs of the host with it: the build
// sandbox (internal/build), which compiles a stranger's sources, and the
// native tier (package native), which runs a trusted skill's scripts as
// host processes. It is pure Go (raw system calls through x/sys/unix), so
// skillrun stays free of cgo.
//
// A Landlock domain binds only the thread that asks for it (until Linux
// 6.16's TSYNC), so callers lock their goroutine to its thread, call
// [Restrict] and then execve from that same thread.
package landlock
