package resident

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// maxSocketPath is the longest path a Unix socket address holds (Linux's
// sun_path is 108 bytes, with its terminating NUL).
const maxSocketPath = 107

// A Handler runs one request with the client's stdin, stdout and stderr
// and returns its exit code. ctx ends when the client goes away.
type Handler func(ctx context.Context, req *Request, stdio [3]*os.File) int

// A Listener is a resident's socket, held under a lock so that one
// resident serves it.
type Listener struct {
	ln   *net.UnixListener
	lock *os.File
	path string
}

// ErrRunning is Listen's error when another resident holds the socket.
var ErrRunning = errors.New("a resident is already running")

// Listen takes the lock beside path (path + ".lock") and listens on path,
// replacing a socket left by a resident that died. It returns ErrRunning
// when another resident holds the lock.
func Listen(path string) (*Listener, error) {
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
	return &Listener{ln: ln, lock: lock, path: path}, nil
}

// Close stops listening, removes the socket and releases the lock.
func (l *Listener) Close() error {
	err := l.ln.Close()
	return errors.Join(err, l.lock.Close())
}

// Serve answers requests with h, one at a time (a request that comes
// while another runs is answered Busy at once), until ctx ends or no
// request came for idle. It closes l when it returns.
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
		for {
			select {
			case <-ctx.Done():
				_ = l.ln.Close()
				return
			case <-last:
				t.Reset(idle)
			case <-t.C:
				if running.TryLock() { // idle only when nothing runs
					cancel()
					_ = l.ln.Close()
					running.Unlock()
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
		wg.Go(func() { serveConn(ctx, conn, &running, h) })
	}
}

// serveConn answers one connection.
func serveConn(ctx context.Context, conn *net.UnixConn, running *sync.Mutex, h Handler) {
	defer func() { _ = conn.Close() }()
	reply := func(r Reply) { _ = writeMessage(conn, r) }
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
	var req Request
	if err := readMessage(conn, buf[:n], &req); err != nil {
		for _, f := range stdio {
			f.Close()
		}
		return nil, [3]*os.File{}, fmt.Errorf("malformed request: %w", err)
	}
	return &req, stdio, nil
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
var peerNamespaces = []struct{ file, name string }{{"user", "user"}, {"pid", "PID"}, {"net", "network"}}

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
			return fmt.Errorf("peer (pid %d) is in another %s namespace; only processes of the resident's user, PID and network namespaces may use it", cred.Pid, ns.name)
		}
	}
	return nil
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
	msg, err := encodeMessage(req)
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
	var rep Reply
	if err := readMessage(conn, nil, &rep); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the resident went away: %w", err)
	}
	return &rep, nil
}

// SocketPath returns the resident's socket for the executable identified
// by exeID (its path, size and time, say), in dir, which is created 0700
// if missing. An existing dir must be a folder (not a symlink) of this
// user that no one else may enter, or it is an error: another user who
// could write it could answer in the resident's place.
func SocketPath(dir, exeID string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a folder", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("%s may be entered by others (mode %v); it must be 0700", dir, fi.Mode().Perm())
	case ok && int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("%s belongs to user %d, not this one", dir, st.Uid)
	}
	sum := sha256.Sum256([]byte(exeID))
	p := filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("socket path %s is longer than %d bytes", p, maxSocketPath)
	}
	return p, nil
}

// Umask sets the process's file mode creation mask and returns the old
// one.
func Umask(mask int) int { return syscall.Umask(mask) }
