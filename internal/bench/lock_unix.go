//go:build unix

package bench

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockRun takes the lock of a run (file), without waiting: two `bench
// run` processes writing one run's folders would redo and overwrite each
// other's trials. The kernel releases the lock when the process dies, so
// a killed run never blocks its resume.
func lockRun(file string) (unlock func(), err error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking the run: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another skillrun bench is running this run (%s is locked); wait for it, or give another --out", file)
		}
		return nil, fmt.Errorf("locking the run %s: %w", file, err)
	}
	return func() { f.Close() }, nil
}
