package seccomp_test

import (
	"net"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/skillrun/skillrun/internal/seccomp"
	"github.com/skillrun/skillrun/internal/testkit"
)

// inFilteredThread runs f on a thread of its own with the filter
// installed; the thread ends with the goroutine (it stays locked), so the
// filter binds nothing else of the test.
func inFilteredThread(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread goes with the goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- err
			return
		}
		if err := seccomp.DenyUnixSockets(); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

// TestDenyUnixSockets is the attack of a confined program on a same-user
// socket whose path it guessed (skillrun's resident, an ssh-agent): it
// cannot even make the socket to connect with.
func TestDenyUnixSockets(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "resident.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer ln.Close()
	accepted := testkit.Accepted(ln)

	err = inFilteredThread(t, func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			_ = unix.Connect(fd, &unix.SockaddrUnix{Name: sock})
			unix.Close(fd)
		}
		return err
	})
	require.ErrorIs(t, err, unix.EACCES, "socket(AF_UNIX) in the filtered thread")
	select {
	case <-accepted:
		require.FailNow(t, "the filtered thread reached the listening socket")
	default:
	}

	for _, c := range []struct {
		name string
		try  func() error
		want error
	}{
		{"abstract socket", func() error {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}, unix.EACCES},
		{"datagram pair (sends to any path)", func() error {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK, 0)
			if err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
			return err
		}, unix.EACCES},
		{"stream pair (asyncio, multiprocessing)", func() error {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
			return err
		}, nil},
		{"TCP socket (Landlock's and the namespace's to govern)", func() error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}, nil},
		{"io_uring", func() error {
			var params [120]byte
			_, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
			if errno != 0 {
				return errno
			}
			return nil
		}, unix.ENOSYS},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := inFilteredThread(t, c.try)
			if c.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, c.want)
			}
		})
	}

	// Outside the filtered threads nothing changed.
	c, err := net.Dial("unix", sock)
	require.NoError(t, err)
	c.Close()
}
