//go:build !linux

package build

import "errors"

// landlockVersion reports that Landlock, a Linux security module, is not
// available on this system.
func landlockVersion() (int, error) {
	return 0, errors.New("not Linux")
}

// landlockRestrict is never reached off Linux: landlockABI fails first.
func landlockRestrict(ro, rw []string) error {
	_, err := landlockABI()
	return err
}
