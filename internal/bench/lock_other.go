//go:build !unix

package bench

import (
	"errors"
	"fmt"
	"os"
)

// lockRun takes the lock of a run by creating file exclusively; a run
// that was killed leaves it, and the error says to remove it.
func lockRun(file string) (unlock func(), err error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("another skillrun bench is running this run (%s exists; remove it if no run is)", file)
		}
		return nil, fmt.Errorf("locking the run: %w", err)
	}
	f.Close()
	return func() { os.Remove(file) }, nil
}
