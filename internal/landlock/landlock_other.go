//go:build !linux

package landlock

import "errors"

// Version reports that Landlock, a Linux security module, is not
// available on this system.
func Version() (int, error) {
	return 0, errors.New("not Linux")
}

// Restrict refuses: there is no Landlock off Linux.
func Restrict(abi int, ro, rw []string, connectTCP ...uint16) error {
	return errors.New("landlock: not Linux")
}
