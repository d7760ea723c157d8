package resident

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// A Handler runs one request with the client's stdin, stdout and stderr
// and returns its exit code. ctx ends when the client goes away.
type Handler func(ctx context.Context, req *Request, stdio [3]*os.File) int

// A Listener is a resident's socket, held under a lock so that one
// resident serves it.
type Listener struct {
	ln   *net.UnixListener
	lock *os.File
	path string
	exe  string // the build whose requests it takes (wire.ExeID)
	ino  uint64 // the socket's inode, to see it removed or replaced
}

// ErrRunning is Listen's error when another resident holds the socket.
var ErrRunning = errors.New("a resident is already running")

// Listen takes the lock beside path (path + ".lock") and listens on path,
// replacing a socket left by a resident that died, for the requests of
// the build exe (wire.ExeID; others are refused). It returns ErrRunning
// when another resident holds the lock.
func Listen(path, exe string) (*Listener, error) {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, err
	}
	_ = os.Remove(path) // a dead resident's
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		lock.Close()
		return nil, err
	}
	ln.SetUnlinkOnClose(true)
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		_ = ln.Close()
		lock.Close()
		return nil, err
	}
	return &Listener{ln: ln, lock: lock, path: path, exe: exe, ino: st.Ino}, nil
}

// orphaned reports whether l's socket was removed or replaced (its
// folder deleted, as a test's temporary home is): no client can reach
// this resident any more.
func (l *Listener) orphaned() bool {
	var st syscall.Stat_t
	return syscall.Lstat(l.path, &st) != nil || st.Ino != l.ino
}

// orphanCheck is how often Serve looks for its socket.
var orphanCheck = time.Second

// Close stops listening, removes the socket and releases the lock.
func (l *Listener) Close() error {
	err := l.ln.Close()
	return errors.Join(err, l.lock.Close())
}

// Serve answers requests with h, one at a time (a request that comes
// while another runs is answered Busy at once), until ctx ends, no
// request came for idle, or the socket was removed or replaced (checked
// every second, between commands). It closes l when it returns.
func Serve(ctx context.Context, l *Listener, idle time.Duration, h Handler) error {
	defer func() { _ = l.Close() }()
	var running sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	last := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTimer(idle)
		defer t.Stop()
		orphan := time.NewTicker(orphanCheck)
		defer orphan.Stop()
		stop := func() bool {
			if !running.TryLock() { // only when nothing runs
				return false
			}
			cancel()
			_ = l.ln.Close()
			running.Unlock()
			return true
		}
		for {
			select {
			case <-ctx.Done():
				_ = l.ln.Close()
				return
			case <-last:
				t.Reset(idle)
			case <-orphan.C:
				if l.orphaned() {
					// What is at the path now is not this resident's.
					l.ln.SetUnlinkOnClose(false)
					if stop() {
						return
					}
				}
			case <-t.C:
				if stop() {
					return
				}
				t.Reset(idle)
			}
		}
	}()
	for {
		conn, err := l.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case last <- struct{}{}:
		default:
		}
		wg.Go(func() { serveConn(ctx, conn, l.exe, &running, h) })
	}
}

// serveConn answers one connection.
func serveConn(ctx context.Context, conn *net.UnixConn, exe string, running *sync.Mutex, h Handler) {
	defer func() { _ = conn.Close() }()
	reply := func(r Reply) { _ = writeReply(conn, &r) }
	if err := checkPeer(conn); err != nil {
		reply(Reply{Error: err.Error()})
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	req, stdio, err := readRequest(conn)
	if err != nil {
		reply(Reply{Error: err.Error()})
		return
	}
	closeStdio := func() {
		for _, f := range stdio {
			_ = f.Close()
		}
	}
	if req.Exe != exe {
		closeStdio()
		reply(Reply{Error: "the request comes from another skillrun build"})
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	if !running.TryLock() {
		closeStdio()
		reply(Reply{Busy: true})
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the client closing the connection cancels the command
		var b [1]byte
		_, _ = conn.Read(b[:])
		cancel()
	}()
	code := h(ctx, req, stdio)
	// Done before the reply: a client that sends its next command as soon
	// as it has the reply must not find the resident still busy.
	closeStdio()
	running.Unlock()
	reply(Reply{Code: code})
}

// readRequest reads a request and the three descriptors passed with it.
func readRequest(conn *net.UnixConn) (*Request, [3]*os.File, error) {
	var stdio [3]*os.File
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*4)) // room for one more than we take
	n, oobn, flags, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, stdio, err
	}
	var fds []int
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := syscall.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}
	if flags&syscall.MSG_CTRUNC != 0 || len(fds) != 3 {
		closeAll()
		return nil, stdio, fmt.Errorf("a request passes 3 descriptors (stdin, stdout, stderr); got %d", len(fds))
	}
	for i, name := range []string{"stdin", "stdout", "stderr"} {
		syscall.CloseOnExec(fds[i])
		stdio[i] = os.NewFile(uintptr(fds[i]), name)
	}
	body, err := readBody(conn, buf[:n])
	var req *Request
	if err == nil {
		req, err = wire.DecodeRequest(body)
	}
	if err != nil {
		for _, f := range stdio {
			f.Close()
		}
		return nil, [3]*os.File{}, fmt.Errorf("malformed request: %w", err)
	}
	return req, stdio, nil
}

// peerCred is the credentials of the process at the other end of conn,
// as the kernel recorded them when it connected.
func peerCred(conn *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// peerNamespaces are the namespaces a client must share with the
// resident. A confined process (the native tier, the build sandbox) keeps
// the user's uid but lives in new user, PID and network namespaces: the
// uid alone would let it hand the resident a command to run outside its
// own grant.
var peerNamespaces = []struct{ file, name string }{
	{"user", "user"}, {"pid", "PID"}, {"net", "network"}, {"mnt", "mount"}, {"cgroup", "cgroup"},
}

// checkPeer accepts only a client of this user in this process's user,
// PID and network namespaces. It fails closed: a peer whose namespaces
// cannot be read (it is not visible in this PID namespace, so the kernel
// reports pid 0, or it is gone) is refused.
func checkPeer(conn *net.UnixConn) error {
	cred, err := peerCred(conn)
	if err != nil {
		return fmt.Errorf("cannot identify the peer: %w", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer is user %d, not this one (%d)", cred.Uid, os.Getuid())
	}
	if cred.Pid <= 0 {
		return errors.New("peer is in another PID namespace (no pid here); only processes of this namespace may use the resident")
	}
	for _, ns := range peerNamespaces {
		same, err := sameNamespace(int(cred.Pid), ns.file)
		if err != nil {
			return fmt.Errorf("cannot read the peer's %s namespace: %w", ns.name, err)
		}
		if !same {
			return fmt.Errorf("peer (pid %d) is in another %s namespace; only processes of the resident's user, PID, network, mount and cgroup namespaces may use it", cred.Pid, ns.name)
		}
	}
	return checkPeerLimits(int(cred.Pid))
}

// checkPeerLimits accepts only a client that lives under what the
// resident lives under: the same confinement (no_new_privs and seccomp,
// which a Landlock or seccomp sandbox sets: a sandboxed agent's command
// must not run outside its sandbox), the same control groups (whose
// memory and CPU limits an operator set for it) and the same resource
// limits (ulimit -v, -t, -f, ...). A command of any other client runs in
// the client's own process, under its own limits. The resident inherits
// all of these from the command that started it.
func checkPeerLimits(pid int) error {
	for _, c := range []struct {
		file, what string
		norm       func(string) string
	}{
		{"status", "confinement (no_new_privs or seccomp)", confinement},
		{"cgroup", "control group", func(s string) string { return s }},
		{"limits", "resource limits", limits},
	} {
		self, err := readProc("/proc/self/" + c.file)
		if err != nil {
			return fmt.Errorf("cannot read the resident's %s: %w", c.what, err)
		}
		peer, err := readProc(fmt.Sprintf("/proc/%d/%s", pid, c.file))
		if err != nil {
			return fmt.Errorf("cannot read the peer's %s: %w", c.what, err)
		}
		if c.norm(string(self)) != c.norm(string(peer)) {
			return fmt.Errorf("peer (pid %d) runs under another %s than the resident; it runs its command in its own process", pid, c.what)
		}
	}
	return nil
}

// readProc reads a small /proc file with plain system calls: os.ReadFile
// would also try to register it with the poller (five more system calls
// each, a tenth of a command's overhead in the resident).
func readProc(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }()
	buf := make([]byte, 0, 4096)
	for len(buf) < 1<<20 {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
	return nil, &os.PathError{Op: "read", Path: path, Err: errors.New("larger than 1 MiB")}
}

// confinement is what /proc/PID/status says of a process's sandbox.
func confinement(status string) string {
	var b strings.Builder
	for line := range strings.Lines(status) {
		if strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "Seccomp:") || strings.HasPrefix(line, "Seccomp_filters:") {
			b.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
		}
	}
	return b.String()
}

// limits is /proc/PID/limits without the soft limit of open files, which
// Go's runtime raises to the hard one as it starts (the client hands its
// command over before it does).
func limits(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) >= 2 {
				line = "Max open files hard " + f[1] + "\n"
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// sameNamespace reports whether process pid is in this process's
// namespace ns: the same device and inode of /proc/PID/ns/NS.
func sameNamespace(pid int, ns string) (bool, error) {
	var self, peer syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/"+ns, &self); err != nil {
		return false, err
	}
	if err := syscall.Stat(fmt.Sprintf("/proc/%d/ns/%s", pid, ns), &peer); err != nil {
		return false, err
	}
	return self.Dev == peer.Dev && self.Ino == peer.Ino, nil
}

// Call hands req to the resident at path with stdio, and waits for its
// reply. ctx ending closes the connection, which cancels the command;
// Call then returns ctx's error. A resident that is not there is an
// error wrapping syscall.ECONNREFUSED or fs.ErrNotExist.
func Call(ctx context.Context, path string, req *Request, stdio [3]*os.File) (*Reply, error) {
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	msg, err := wire.AppendRequest(nil, req)
	if err != nil {
		return nil, err
	}
	fds := make([]int, 3)
	for i, f := range stdio {
		fds[i] = int(f.Fd())
	}
	// The descriptors go with the first bytes; the rest follows.
	first := min(len(msg), 4<<10)
	if _, _, err := conn.WriteMsgUnix(msg[:first], syscall.UnixRights(fds...), nil); err != nil {
		return nil, errors.Join(ctx.Err(), err)
	}
	if first < len(msg) {
		if _, err := conn.Write(msg[first:]); err != nil {
			return nil, errors.Join(ctx.Err(), err)
		}
	}
	body, err := readBody(conn, nil)
	var rep *Reply
	if err == nil {
		rep, err = wire.DecodeReply(body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the resident went away: %w", err)
	}
	return rep, nil
}

// SocketPath returns the resident's socket for the executable identified
// by exeID in dir (package wire).
func SocketPath(dir, exeID string) (string, error) { return wire.SocketPath(dir, exeID) }

// Umask sets the process's file mode creation mask and returns the old
// one.
func Umask(mask int) int { return syscall.Umask(mask) }

// BindStdio makes stdio this process's descriptors 0, 1 and 2 until the
// returned function puts the old ones back: a command that opens
// /dev/stdout, /dev/stderr or /proc/self/fd/N by name (an audit log
// written to /dev/stderr), or a library that writes to os.Stderr, then
// reaches the client's streams, as in the client's own process. The
// resident runs one command at a time, so the process's streams are the
// command's. A descriptor that cannot be moved is left as it was.
func BindStdio(stdio [3]*os.File) (restore func()) {
	var saved [3]int
	for i, f := range stdio {
		saved[i] = -1
		old, err := dupCloexec(i)
		if err != nil {
			continue
		}
		if err := syscall.Dup3(int(f.Fd()), i, 0); err != nil {
			_ = syscall.Close(old)
			continue
		}
		saved[i] = old
	}
	return func() {
		for i, old := range saved {
			if old >= 0 {
				_ = syscall.Dup3(old, i, 0)
				_ = syscall.Close(old)
			}
		}
	}
}

// dupCloexec duplicates fd, close-on-exec.
func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}
