package handoff

import (
	"errors"
	"syscall"
	"unsafe"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// CommandLine returns this process's arguments, from /proc/self/cmdline
// (os.Args is not set before package os is initialised).
func CommandLine() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer func() { _ = syscall.Close(fd) }()
	var data []byte
	buf := make([]byte, 16<<10)
	for len(data) < 1<<20 {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	var args []string
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != 0 {
			i++
		}
		args = append(args, string(data[:i]))
		if i == len(data) {
			break
		}
		data = data[i+1:]
	}
	return args
}

// Socket is the resident's socket for this build and user cache folder.
func Socket() (string, error) { return socketFor(wire.ExeID()) }

func socketFor(exeID string) (string, error) {
	base, err := wire.CacheDir()
	if err != nil {
		return "", err
	}
	return wire.SocketPath(base+"/skillrun/resident", exeID)
}

// Handoff hands args, with the descriptors stdio as the command's stdin,
// stdout and stderr, to the resident of this executable when [Enabled],
// and reports whether it did, with the command's exit code. When no
// resident answers it calls start (if not nil), for the next command,
// and leaves this one to the caller, as it does when the resident is
// busy or refuses.
func Handoff(args []string, stdio [3]int, start func()) (int, bool) {
	return handoff(wire.ExeID(), args, stdio, start)
}

// HandoffTo is [Handoff] to the resident of the skillrun executable at
// the absolute, symlink-free path engine: what the small client
// (cmd/skillrun-client) calls.
func HandoffTo(engine string, args []string, stdio [3]int, start func()) (int, bool) {
	return handoff(wire.ExeIDOf(engine), args, stdio, start)
}

func handoff(exe string, args []string, stdio [3]int, start func()) (int, bool) {
	if !Enabled(args) || !terminalOK(args[0]) && isTerminal(stdio[0]) {
		return 0, false
	}
	path, err := socketFor(exe)
	if exe == "" || err != nil {
		return 0, false
	}
	dir, err := syscall.Getwd()
	if err != nil {
		return 0, false
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	msg, err := wire.AppendRequest(nil, &wire.Request{Exe: exe, Args: args, Dir: dir, Env: syscall.Environ(), Umask: mask})
	if err != nil {
		return 0, false
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer func() { _ = syscall.Close(fd) }()
	if err := connect(fd, path); err != nil {
		if start != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)) {
			start()
		}
		return 0, false
	}
	// The descriptors go with the first bytes; the rest follows.
	first := min(len(msg), 4<<10)
	if err := sendmsg(fd, msg[:first], syscall.UnixRights(stdio[:]...)); err != nil {
		return 0, false // nothing reached the resident: run here
	}
	if err := writeAll(fd, msg[first:]); err != nil {
		return lost(err)
	}
	rep, err := readReply(fd)
	switch {
	case err != nil:
		return lost(err)
	case rep.Busy || rep.Error != "":
		return 0, false
	}
	return rep.Code, true
}

// isTerminal reports whether fd is a terminal (it answers TCGETS).
func isTerminal(fd int) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// lost reports a resident that went away during the command, which may
// have done part of its work: running it again here could do it twice.
func lost(err error) (int, bool) {
	msg := "skillrun: the resident went away: " + err.Error() + " (set " + Env + "=0 to run commands in their own process)\n"
	_, _ = syscall.Write(2, []byte(msg))
	return exitSandbox, true
}

func connect(fd int, path string) error {
	for {
		err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			return err
		}
	}
}

func sendmsg(fd int, b, oob []byte) error {
	for {
		err := syscall.Sendmsg(fd, b, oob, nil, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Read(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.ECONNRESET
		}
		b = b[n:]
	}
	return nil
}

func readReply(fd int) (*wire.Reply, error) {
	var head [4]byte
	if err := readFull(fd, head[:]); err != nil {
		return nil, err
	}
	n, err := wire.Length(head[:])
	if err != nil {
		return nil, err
	}
	body := make([]byte, n)
	if err := readFull(fd, body); err != nil {
		return nil, err
	}
	return wire.DecodeReply(body)
}

// Start starts `skillrun resident` in the background, in a session of its
// own (the terminal's signals and hang-up do not reach it) with its stdio
// on /dev/null, for the next command. It inherits this environment, so
// SKILLRUN_RESIDENT_IDLE reaches it.
func Start() {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil || n == len(buf) {
		return
	}
	exe := string(buf[:n])
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer func() { _ = syscall.Close(null) }()
	fds := []uintptr{uintptr(null), uintptr(null), uintptr(null)}
	_, _ = syscall.ForkExec(exe, []string{exe, "resident"}, &syscall.ProcAttr{
		Dir: "/", Env: syscall.Environ(), Files: fds,
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
}
