//go:build unix

package interp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock of dir (creating it), released by the
// returned function or when the process dies: a killed install never
// leaves a lock that blocks the next one.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking the interpreters folder %s: %w", dir, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the interpreters folder %s: %w", dir, err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// processAlive reports whether process pid exists; known is false when
// that cannot be told.
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	switch {
	case err == nil || errors.Is(err, syscall.EPERM):
		return true, true
	case errors.Is(err, syscall.ESRCH):
		return false, true
	}
	return false, false
}
