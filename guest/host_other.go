//go:build !wasip1

package guest

func hostCall(string, []byte) ([]byte, error) { return nil, ErrNotInSandbox }

// ABIVersion returns the host's ABI version; outside skillrun, 0.
func ABIVersion() int { return 0 }
