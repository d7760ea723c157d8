package landlock

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights (include/uapi/linux/landlock.h), by the ABI that
// introduced them.
const (
	llFSExecute    = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llFSWriteFile  = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llFSReadFile   = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llFSReadDir    = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFSRefer      = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	llFSTruncate   = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3
	llFSIoctlDev   = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llFSABI1       = 1<<13 - 1 // execute through make_sym
	llFileRights   = llFSExecute | llFSWriteFile | llFSReadFile | llFSTruncate | llFSIoctlDev
	llNetTCP       = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // ABI 4
	llNetUDP       = 0x4 | 0x8                                                                // ABI 10: bind and connect/send UDP
	llScopeAll     = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL    // ABI 6
	llReadOnly     = llFSExecute | llFSReadFile | llFSReadDir
	llRuleBeneath  = unix.LANDLOCK_RULE_PATH_BENEATH
	llVersionFlag  = unix.LANDLOCK_CREATE_RULESET_VERSION
	llFSResolveABI = 9 // ABI 9 adds a right for pathname UNIX sockets
)

// Version asks the kernel for its Landlock ABI version.
func Version() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, llVersionFlag)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

// handledFS is every file system right the kernel's ABI knows: a right
// not handled would be allowed everywhere.
func handledFS(abi int) uint64 {
	h := uint64(llFSABI1)
	if abi >= 2 {
		h |= llFSRefer
	}
	if abi >= 3 {
		h |= llFSTruncate
	}
	if abi >= 5 {
		h |= llFSIoctlDev
	}
	if abi >= llFSResolveABI {
		h |= 0x10000 // LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return h
}

// Restrict confines the calling thread (and what it executes), for a
// kernel of Landlock ABI abi (from Version):
// ro readable and executable, rw fully accessible, /dev/null readable and
// writable, nothing else of the file system; no TCP (and from ABI 10 no
// UDP) bind or connect; from ABI 6 no signals or abstract UNIX sockets
// to processes outside the domain. Paths that do not exist are skipped.
// The caller must have locked its goroutine to the thread.
//
// connectTCP are TCP ports the thread may still connect to (on any
// address: callers pair it with a network namespace that has nothing but
// their relay); they need ABI 4.
func Restrict(abi int, ro, rw []string, connectTCP ...uint16) error {
	if abi < 1 {
		return fmt.Errorf("landlock: ABI %d confines nothing", abi)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handledFS(abi), Handled_access_net: llNetTCP}
	if abi >= 10 {
		attr.Handled_access_net |= llNetUDP
	}
	if abi >= 6 {
		attr.Scoped = llScopeAll
	}
	// The kernel takes the fields it knows, in order: the handled access
	// rights, and from ABI 6 the scopes (the quiet fields are newer still).
	size := unsafe.Offsetof(attr.Scoped) + unsafe.Sizeof(attr.Scoped)
	if abi < 6 {
		size = unsafe.Offsetof(attr.Scoped) // older kernels know only the first two fields
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer func() { _ = unix.Close(int(fd)) }()
	for _, p := range ro {
		if err := addPathRule(int(fd), p, llReadOnly); err != nil {
			return err
		}
	}
	for _, p := range rw {
		if err := addPathRule(int(fd), p, attr.Handled_access_fs); err != nil {
			return err
		}
	}
	if err := addPathRule(int(fd), os.DevNull, llFSReadFile|llFSWriteFile|llFSTruncate); err != nil {
		return err
	}
	for _, port := range connectTCP {
		if abi < 4 {
			return fmt.Errorf("landlock: a TCP port rule needs ABI 4, the kernel has %d", abi)
		}
		rule := netPortAttr{AllowedAccess: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, Port: uint64(port)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, llRuleNetPort, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule TCP port %d: %w", port, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// netPortAttr is struct landlock_net_port_attr (x/sys/unix has none).
type netPortAttr struct {
	AllowedAccess uint64
	Port          uint64
}

// llRuleNetPort is LANDLOCK_RULE_NET_PORT.
const llRuleNetPort = 2

// addPathRule allows access beneath path (only the file rights, if it is
// not a folder). A path that does not exist is skipped.
func addPathRule(rulesetFD int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	} else if err != nil {
		return fmt.Errorf("opening %s for a Landlock rule: %w", path, err)
	}
	defer func() { _ = unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), llRuleBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}
