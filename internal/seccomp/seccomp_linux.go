package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the AUDIT_ARCH value of the system calls this binary makes
// (seccomp_data.arch); a system call of another ABI (a 32-bit one made
// through int 0x80 on amd64, where socketcall(2) would get around the
// socket rule) is refused.
var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}

// Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6].
// The low 32 bits of an argument are at its offset on little-endian
// machines, which amd64 and arm64 are.
const (
	offNR   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// x32Bit marks amd64's x32 system calls, another way to the same calls.
const x32Bit = 0x40000000

// Filter is the program [DenyUnixSockets] installs, for this machine's
// architecture.
func Filter() ([]unix.SockFilter, error) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("seccomp: no filter for %s", runtime.GOARCH)
	}
	errno := func(e unix.Errno) unix.SockFilter {
		return stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(e)&unix.SECCOMP_RET_DATA)
	}
	allow := stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	return []unix.SockFilter{
		/* 0 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch),
		/* 1 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, arch, 1, 0),
		/* 2 */ errno(unix.EPERM),
		/* 3 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNR),
		/* 4 */ jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32Bit, 0, 1),
		/* 5 */ errno(unix.EPERM),
		/* 6 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_IO_URING_SETUP, 0, 1),
		/* 7 */ errno(unix.ENOSYS),
		/* 8 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_SOCKET, 2, 0),
		/* 9 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_SOCKETPAIR, 5, 0),
		/* 10 */ allow,
		// socket(domain, ...): no AF_UNIX.
		/* 11 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
		/* 12 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 0, 1),
		/* 13 */ errno(unix.EACCES),
		/* 14 */ allow,
		// socketpair(domain, type, ...): no AF_UNIX datagram pair.
		/* 15 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0),
		/* 16 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 0, 4),
		/* 17 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg1),
		/* 18 */ stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, 0xf), // the type without SOCK_NONBLOCK, SOCK_CLOEXEC
		/* 19 */ jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SOCK_DGRAM, 0, 1),
		/* 20 */ errno(unix.EACCES),
		/* 21 */ allow,
	}, nil
}

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
}

// DenyUnixSockets installs [Filter] on the calling thread, which binds it
// and everything it then executes. The thread must have no new
// privileges (PR_SET_NO_NEW_PRIVS, which landlock.Restrict sets), and the
// caller must have locked its goroutine to the thread.
func DenyUnixSockets() error {
	f, err := Filter()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: installing the UNIX socket filter: %w", err)
	}
	runtime.KeepAlive(f)
	return nil
}
