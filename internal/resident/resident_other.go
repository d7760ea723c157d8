//go:build !linux

package resident

import (
	"context"
	"errors"
	"os"
	"time"
)

// A Handler runs one request with the client's stdin, stdout and stderr
// and returns its exit code.
type Handler func(ctx context.Context, req *Request, stdio [3]*os.File) int

// A Listener is a resident's socket (Linux only).
type Listener struct{}

// ErrRunning is Listen's error when another resident holds the socket.
var ErrRunning = errors.New("a resident is already running")

// Listen returns errors.ErrUnsupported: only Linux has a resident.
func Listen(string, string) (*Listener, error) { return nil, errors.ErrUnsupported }

// Close does nothing.
func (l *Listener) Close() error { return nil }

// Serve returns errors.ErrUnsupported.
func Serve(context.Context, *Listener, time.Duration, Handler) error { return errors.ErrUnsupported }

// Call returns errors.ErrUnsupported.
func Call(context.Context, string, *Request, [3]*os.File) (*Reply, error) {
	return nil, errors.ErrUnsupported
}

// SocketPath returns errors.ErrUnsupported.
func SocketPath(string, string) (string, error) { return "", errors.ErrUnsupported }

// Umask does nothing and returns 0.
func Umask(int) int { return 0 }

// BindStdio does nothing: only Linux has a resident.
func BindStdio([3]*os.File) func() { return func() {} }
