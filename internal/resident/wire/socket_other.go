//go:build !linux

package wire

import "errors"

// ExeID returns "": only Linux has a resident.
func ExeID() string { return "" }

// ExeIDOf returns "": only Linux has a resident.
func ExeIDOf(string) string { return "" }

// CacheDir returns errors.ErrUnsupported: only Linux has a resident.
func CacheDir() (string, error) { return "", errors.ErrUnsupported }

// SocketPath returns errors.ErrUnsupported: only Linux has a resident.
func SocketPath(string, string) (string, error) { return "", errors.ErrUnsupported }
