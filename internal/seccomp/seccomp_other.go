//go:build !linux

package seccomp

import "errors"

// DenyUnixSockets refuses: there is no seccomp off Linux.
func DenyUnixSockets() error { return errors.New("seccomp: not Linux") }
