package native

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// relayArg and relayEnv start this binary as the relay of a run's network
// namespace: it listens on 127.0.0.1:ProxyPort there and carries each
// connection to the proxy's UNIX socket outside.
const (
	relayArg = "__skillrun-native-relay"
	relayEnv = "SKILLRUN_NATIVE_RELAY"
	// maxRelayConns bounds the connections the relay carries at once.
	maxRelayConns = 64
)

// startRelay brings the namespace's loopback up and starts the relay,
// waiting until it listens. The relay is the helper's child, so the
// program the helper becomes is its parent, and it dies with the PID
// namespace when the program exits.
func startRelay(sock string) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing up the loopback interface: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(self, relayArg)
	cmd.Env = []string{relayEnv + "=" + sock}
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return err
	}
	w.Close()
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil {
		_ = cmd.Process.Kill()
		return fmt.Errorf("the relay did not start: %w", err)
	}
	return nil
}

// loopbackUp sets the lo interface of this network namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(fd) }()
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// relayMain is the relay: it listens on 127.0.0.1:ProxyPort, says so on
// fd 3, and carries each connection to the proxy socket, until killed.
func relayMain() {
	sock := os.Getenv(relayEnv)
	ready := os.NewFile(3, "relay-ready")
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ProxyPort))
	if err != nil || sock == "" || ready == nil {
		fmt.Fprintf(os.Stderr, "skillrun native relay: %v\n", errors.Join(err, errors.New("no socket or ready pipe")))
		os.Exit(125)
	}
	_, _ = ready.Write([]byte{1})
	_ = ready.Close()
	sem := make(chan struct{}, maxRelayConns)
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			defer func() { _ = c.Close() }()
			up, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer func() { _ = up.Close() }()
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
