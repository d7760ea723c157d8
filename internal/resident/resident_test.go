//go:build linux

package resident

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// stdioFiles returns three files standing in for a client's stdio.
func stdioFiles(t *testing.T) [3]*os.File {
	t.Helper()
	var files [3]*os.File
	for i := range files {
		f, err := os.CreateTemp(t.TempDir(), "stdio")
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		files[i] = f
	}
	return files
}

// serve starts Serve on a socket in a temporary folder with h and returns
// the socket's path; the server stops with the test.
func serve(t *testing.T, idle time.Duration, h Handler) (string, chan error) {
	t.Helper()
	path, err := SocketPath(filepath.Join(t.TempDir(), "r"), "exe")
	require.NoError(t, err)
	l, err := Listen(path, testExe)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, idle, h) }()
	t.Cleanup(func() { cancel(); <-done })
	return path, done
}

// testExe is the build a test resident serves.
const testExe = "build 1"

// TestCall: the request and the client's descriptors reach the handler;
// its code comes back.
func TestCall(t *testing.T) {
	path, _ := serve(t, time.Minute, func(_ context.Context, req *Request, stdio [3]*os.File) int {
		_, _ = stdio[1].WriteString("out:" + strings.Join(req.Args, " ") + " in " + req.Dir)
		_, _ = stdio[2].WriteString("err")
		return 7
	})
	files := stdioFiles(t)
	rep, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run", "x"}, Dir: "/somewhere", Env: []string{"A=1"}}, files)
	require.NoError(t, err)
	assert.Equal(t, &Reply{Code: 7}, rep)
	out, _ := os.ReadFile(files[1].Name())
	errOut, _ := os.ReadFile(files[2].Name())
	assert.Equal(t, "out:run x in /somewhere", string(out))
	assert.Equal(t, "err", string(errOut))
}

// TestBusy: a request that comes while another runs is answered Busy at
// once, and runs nothing.
func TestBusy(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var calls int
	var mu sync.Mutex
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int {
		mu.Lock()
		calls++
		mu.Unlock()
		close(started)
		<-release
		return 0
	})
	first, second := stdioFiles(t), stdioFiles(t)
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, first)
	}()
	<-started
	rep, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, second)
	require.NoError(t, err)
	assert.True(t, rep.Busy)
	close(release)
	<-firstDone
	mu.Lock()
	assert.Equal(t, 1, calls)
	mu.Unlock()
}

// TestClientGoneCancels: a client that goes away (interrupted) cancels
// its command.
func TestClientGoneCancels(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	path, _ := serve(t, time.Minute, func(ctx context.Context, _ *Request, _ [3]*os.File) int {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return 0
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	files := stdioFiles(t)
	_, err := Call(ctx, path, &Request{Exe: testExe, Args: []string{"run"}}, files)
	assert.ErrorIs(t, err, context.Canceled)
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the command was not cancelled when its client went away")
	}
}

// TestOrphanExit: a resident whose socket was removed (its folder
// deleted with a test's temporary home) exits, as does one whose socket
// was replaced, and leaves the new socket in place.
func TestOrphanExit(t *testing.T) {
	defer func(old time.Duration) { orphanCheck = old }(orphanCheck)
	orphanCheck = 20 * time.Millisecond
	wait := func(done chan error) {
		t.Helper()
		select {
		case err := <-done:
			require.NoError(t, err)
			done <- nil // for the cleanup
		case <-time.After(10 * time.Second):
			require.FailNow(t, "the resident did not exit")
		}
	}
	path, done := serve(t, time.Hour, func(context.Context, *Request, [3]*os.File) int { return 0 })
	require.NoError(t, os.RemoveAll(filepath.Dir(path)))
	wait(done)

	path, done = serve(t, time.Hour, func(context.Context, *Request, [3]*os.File) int { return 0 })
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.WriteFile(path, nil, 0o600)) // another's, say
	wait(done)
	_, err := os.Stat(path)
	assert.NoError(t, err, "the file now at the path is not removed")
}

// TestIdleExit: a resident with nothing to do exits and removes its
// socket; a new one can then listen.
func TestIdleExit(t *testing.T) {
	path, done := serve(t, 50*time.Millisecond, func(context.Context, *Request, [3]*os.File) int { return 0 })
	select {
	case err := <-done:
		require.NoError(t, err)
		done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the resident did not exit when idle")
	}
	_, err := os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
	l, err := Listen(path, testExe)
	require.NoError(t, err)
	l.Close()
}

// TestOneResident: a second resident for the same socket is refused
// while the first holds it.
func TestOneResident(t *testing.T) {
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int { return 0 })
	_, err := Listen(path, testExe)
	assert.ErrorIs(t, err, ErrRunning)
}

// TestBadRequests: a request without the three descriptors, or that is
// not one, is refused with an error and runs nothing; the resident goes on.
func TestBadRequests(t *testing.T) {
	var ran atomic.Bool
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int { ran.Store(true); return 0 })
	dial := func() *net.UnixConn {
		c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
		require.NoError(t, err)
		return c
	}
	c := dial()
	readReply := func(c *net.UnixConn) *Reply {
		t.Helper()
		body, err := readBody(c, nil)
		require.NoError(t, err)
		rep, err := wire.DecodeReply(body)
		require.NoError(t, err)
		return rep
	}
	msg, err := wire.AppendRequest(nil, &Request{Exe: testExe, Args: []string{"run"}})
	require.NoError(t, err)
	_, err = c.Write(msg) // no descriptors
	require.NoError(t, err)
	assert.Contains(t, readReply(c).Error, "3 descriptors")
	c.Close()

	c = dial()
	f := stdioFiles(t)
	rights := syscall.UnixRights(int(f[0].Fd()), int(f[1].Fd()), int(f[2].Fd()))
	_, _, err = c.WriteMsgUnix([]byte("\x00\x00\x00\x05{nope"), rights, nil)
	require.NoError(t, err)
	assert.Contains(t, readReply(c).Error, "malformed request")
	c.Close()

	c = dial()
	_, _, err = c.WriteMsgUnix([]byte("\xff\xff\xff\xff"), rights, nil) // 4 GiB claimed
	require.NoError(t, err)
	assert.Contains(t, readReply(c).Error, "4 MiB")
	c.Close()

	// Another build's client (its socket name collided, or a build was
	// replaced at the same path, size and time) is refused.
	rep, err := Call(context.Background(), path, &Request{Exe: "build 2", Args: []string{"run"}}, stdioFiles(t))
	require.NoError(t, err)
	assert.Contains(t, rep.Error, "another skillrun build")
	assert.False(t, ran.Load())

	rep2, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, stdioFiles(t))
	require.NoError(t, err)
	assert.Zero(t, rep2.Code)
	assert.True(t, ran.Load())
}

// TestSocketFolder: the socket's folder must be this user's and closed to
// others; a symlink or an open folder is refused, and another build gets
// another socket.
func TestSocketFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	a, err := SocketPath(dir, "build a")
	require.NoError(t, err)
	b, err := SocketPath(dir, "build b")
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	open := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(open, 0o755))
	require.NoError(t, os.Chmod(open, 0o755))
	_, err = SocketPath(open, "x")
	assert.ErrorContains(t, err, "must be 0700")

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	_, err = SocketPath(link, "x")
	assert.ErrorContains(t, err, "not a folder")

	_, err = SocketPath(filepath.Join(t.TempDir(), strings.Repeat("d", 120)), "x")
	assert.ErrorContains(t, err, "longer than")
}

// TestPeerIsThisUser: the resident sees the client's user id.
func TestPeerIsThisUser(t *testing.T) {
	a, b, err := unixPair()
	require.NoError(t, err)
	defer a.Close()
	defer b.Close()
	assert.NoError(t, checkPeer(a), "a process of this user and namespaces")
}

func unixPair() (*net.UnixConn, *net.UnixConn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, err
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "pair")
		defer f.Close()
		c, _ := net.FileConn(f)
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1]), nil
}

// TestSequentialNotBusy: a client that sends its next command as soon as
// it has a reply never finds the resident busy.
func TestSequentialNotBusy(t *testing.T) {
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int { return 3 })
	for range 200 {
		rep, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, stdioFiles(t))
		require.NoError(t, err)
		require.False(t, rep.Busy)
		require.Equal(t, 3, rep.Code)
	}
}

// TestOtherUserRefused: a process of another user that reaches the
// socket (here the folder and socket are opened up on purpose; the 0700
// folder normally stops it first) is answered with an error and runs
// nothing. The other user is nobody (65534), connecting with Python's
// socket module; making a process of another user needs root.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root")
	}
	python := pythonClient(t)
	dir, err := os.MkdirTemp("", "resident-other")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o755))
	path := filepath.Join(dir, "r.sock")
	l, err := Listen(path, testExe)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(path, 0o666))
	var ran atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, l, time.Minute, func(context.Context, *Request, [3]*os.File) int { ran.Store(true); return 0 })
	}()
	defer func() { cancel(); <-done }()

	cmd := exec.Command(python, "-c", rawClient, path)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "peer is user 65534, not this one (0)")
	assert.False(t, ran.Load())
}

// TestOtherNamespaceRefused is the native tier's escape through the
// resident: a process of the same user, confined in new user, PID and
// network namespaces, reaches the socket and asks it to run a command
// outside its grant. The resident answers with an error and runs nothing.
// (The native tier's seccomp filter stops it before it can connect; this
// is the resident's own check.)
func TestOtherNamespaceRefused(t *testing.T) {
	python := pythonClient(t)
	var ran atomic.Bool
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int { ran.Store(true); return 0 })
	type nsCase struct {
		name  string
		flags uintptr
		ns    string
	}
	cases := []nsCase{
		{"user, PID and network (the native tier's)", syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET, "another user namespace"},
	}
	if os.Getuid() == 0 { // new PID or network namespaces alone need root
		cases = append(cases,
			nsCase{"PID", syscall.CLONE_NEWPID, "another PID namespace"},
			nsCase{"network", syscall.CLONE_NEWNET, "another network namespace"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(python, "-c", rawClient, path)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: c.flags}
			if c.flags&syscall.CLONE_NEWUSER != 0 {
				uid, gid := os.Getuid(), os.Getgid()
				cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
				cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "peer (pid ")
			assert.Contains(t, string(out), c.ns)
			assert.False(t, ran.Load(), "the resident ran a command for a process of another namespace")
		})
	}
}

// TestBindStdio: while a command runs with BindStdio, what it opens by
// name as /dev/stdout or /dev/stderr (or writes to os.Stderr) reaches the
// client's streams; the process's own are back afterwards.
func TestBindStdio(t *testing.T) {
	path, _ := serve(t, time.Minute, func(_ context.Context, _ *Request, stdio [3]*os.File) int {
		restore := BindStdio(stdio)
		defer restore()
		for _, name := range []string{"/dev/stdout", "/dev/stderr"} {
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				return 1
			}
			_, _ = f.WriteString("to " + name + "\n")
			f.Close()
		}
		return 0
	})
	before, err := os.Readlink("/proc/self/fd/2")
	require.NoError(t, err)
	files := stdioFiles(t)
	rep, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, files)
	require.NoError(t, err)
	require.Zero(t, rep.Code)
	out, _ := os.ReadFile(files[1].Name())
	errOut, _ := os.ReadFile(files[2].Name())
	assert.Equal(t, "to /dev/stdout\n", string(out))
	assert.Equal(t, "to /dev/stderr\n", string(errOut))
	after, err := os.Readlink("/proc/self/fd/2")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the process's stderr is back")
}

// TestConfinedPeerRefused: a client of this user and namespaces that
// lives under other limits than the resident is refused, and runs its
// command itself, under its own limits: a sandboxed agent (Landlock and
// seccomp set no_new_privs) must not have its command run outside its
// sandbox, nor a command under `ulimit -f` or `ulimit -v` without them.
func TestConfinedPeerRefused(t *testing.T) {
	python := pythonClient(t)
	var ran atomic.Bool
	path, _ := serve(t, time.Minute, func(context.Context, *Request, [3]*os.File) int { ran.Store(true); return 0 })
	for _, c := range []struct{ name, prelude, want string }{
		{"no_new_privs", "import ctypes; assert ctypes.CDLL(None).prctl(38, 1, 0, 0, 0) == 0", "another confinement"},
		{"file size limit", "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))", "another resource limits"},
		{"address space limit", "import resource; resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))", "another resource limits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := exec.Command(python, "-c", c.prelude+"\n"+rawClient, path).CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), c.want)
			assert.False(t, ran.Load())
		})
	}
	// The same client without the prelude is served.
	rep, err := Call(context.Background(), path, &Request{Exe: testExe, Args: []string{"run"}}, stdioFiles(t))
	require.NoError(t, err)
	assert.Empty(t, rep.Error)
	assert.True(t, ran.Load())
}

// rawClient is a client that connects to the socket argv[1] with
// Python's socket module, sends nothing and prints the reply's body (the
// resident answers a refused peer at once).
const rawClient = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
n = int.from_bytes(s.recv(4), "big")
print(s.recv(n).decode(errors="replace"))
`

// pythonClient returns the Python the raw clients run with, failing
// under REQUIRE_TOOLCHAINS and skipping otherwise when it is missing.
func pythonClient(t *testing.T) string {
	t.Helper()
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s is required: %v", python, err)
		}
		t.Skip(err)
	}
	return python
}
