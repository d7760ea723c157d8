package testkit

import "net"

// Accepted reports, on the channel it returns, the first connection ln
// accepts (closing it at once): attack tests listen where a confined
// program must not reach and check that nothing arrived.
func Accepted(ln net.Listener) <-chan struct{} {
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	return accepted
}
