// Package seccomp installs the one system-call filter skillrun puts on
// host programs it confines (the native tier, the build sandbox), beside
// Landlock: no new UNIX socket that could reach another process.
//
// Landlock governs connect(2) to a pathname UNIX socket only from ABI 9
// (Linux 6.17+), and the programs keep the user's uid, so without this a
// confined program could connect to any socket of the same user whose
// path it can guess: skillrun's own resident process, the D-Bus session
// bus, ssh-agent, docker.sock. The filter refuses socket(AF_UNIX) and a
// datagram socketpair (an unconnected datagram socket can send to any
// path), on every kernel, whatever Landlock ABI it has; abstract sockets
// are covered too. A connected socketpair(AF_UNIX, SOCK_STREAM), which
// Python's asyncio and multiprocessing use, reaches nothing outside the
// pair and stays allowed. io_uring, whose operations seccomp does not
// see, is refused as not implemented so that libraries fall back to
// plain system calls.
//
// It is pure Go (a classic BPF program through x/sys/unix), so skillrun
// stays free of cgo.
package seccomp
