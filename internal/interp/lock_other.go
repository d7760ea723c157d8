//go:build !unix

package interp

import "os"

// lockDir only makes dir here: without flock, two processes installing at
// once may both swap, and the last one wins (each swap is whole).
func lockDir(dir string) (unlock func(), err error) {
	return func() {}, os.MkdirAll(dir, 0o755)
}

// processAlive cannot tell here; leftovers are removed by age.
func processAlive(int) (alive, known bool) { return false, false }
