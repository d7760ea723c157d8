//go:build !linux

package handoff

import "errors"

// Socket returns errors.ErrUnsupported: only Linux has a resident.
func Socket() (string, error) { return "", errors.ErrUnsupported }

// Handoff hands nothing over: only Linux has a resident.
func Handoff([]string, [3]int, func()) (int, bool) { return 0, false }

// HandoffTo hands nothing over: only Linux has a resident.
func HandoffTo(string, []string, [3]int, func()) (int, bool) { return 0, false }

// CommandLine returns nil: only Linux reads its arguments early.
func CommandLine() []string { return nil }

// Start does nothing: only Linux has a resident.
func Start() {}
