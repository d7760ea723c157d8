package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/capabilities"
)

// Bounds of a [NetProxy].
const (
	// maxProxyConns bounds the connections a proxy serves at once.
	maxProxyConns = 64
	// proxyIdle bounds how long a tunnel or request may sit idle.
	proxyIdle = 2 * time.Minute
)

// A NetProxy is an HTTP proxy (plain requests and CONNECT tunnels) that
// lets a host process reach exactly what a [Fetcher] would let a script
// fetch: the hosts the grant's net list names, each connection's address
// checked at connect time (no loopback, private or metadata address
// unless named), every decision audited. The native tier runs a script's
// process with no network but a relay to this proxy, so the process's
// HTTP(S) goes through the grant.
//
// A tunnel carries whatever TLS the process speaks: the proxy checks the
// host the CONNECT names and the address it dials, not the content.
type NetProxy struct {
	f    *Fetcher
	sem  chan struct{}
	wg   sync.WaitGroup
	once sync.Once
	done chan struct{}
}

// NewNetProxy returns a proxy allowing what granted's net list names, with
// o's auditor and names (its size and redirect settings do not apply: a
// proxy passes responses and redirects through to the process).
func NewNetProxy(granted capabilities.Set, o *FetchOptions) *NetProxy {
	return &NetProxy{f: NewFetcher(granted, o), sem: make(chan struct{}, maxProxyConns), done: make(chan struct{})}
}

// Serve serves connections of ln until ctx ends or Close is called; it
// then closes ln and waits for the open connections to end.
func (p *NetProxy) Serve(ctx context.Context, ln net.Listener) error {
	go func() {
		select {
		case <-ctx.Done():
		case <-p.done:
		}
		_ = ln.Close()
	}()
	defer p.wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-p.done:
				return nil
			default:
			}
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case p.sem <- struct{}{}:
		default:
			_ = c.Close() // over the bound: refused
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() { <-p.sem }()
			p.serveConn(ctx, c)
		}()
	}
}

// Close stops Serve.
func (p *NetProxy) Close() { p.once.Do(func() { close(p.done) }) }

// serveConn serves one client connection: requests one after another,
// until a CONNECT turns it into a tunnel.
func (p *NetProxy) serveConn(ctx context.Context, c net.Conn) {
	defer func() { _ = c.Close() }()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(proxyIdle))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Method == http.MethodConnect {
			p.tunnel(ctx, c, br, req)
			return
		}
		if !p.forward(ctx, c, req) {
			return
		}
	}
}

// tunnel answers a CONNECT: the grant's checks, then bytes both ways.
func (p *NetProxy) tunnel(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request) {
	addr := req.Host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "443")
	}
	up, err := p.f.dialChecked(ctx, addr)
	if err != nil {
		writeProxyError(c, err)
		return
	}
	defer func() { _ = up.Close() }()
	_ = c.SetReadDeadline(time.Time{})
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	select {
	case <-done:
		<-done
	case <-ctx.Done():
	}
}

// forward makes a plain HTTP request (absolute-form) for the client and
// writes the response back. It reports whether the connection may serve
// another request: never, since each request closes its connection.
func (p *NetProxy) forward(ctx context.Context, c net.Conn, req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		writeProxyError(c, fmt.Errorf("%w: a proxy request names an http:// URL (use CONNECT for https)", ErrInvalidFetch))
		return false
	}
	addr := req.URL.Host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "80")
	}
	up, err := p.f.dialChecked(ctx, addr)
	if err != nil {
		writeProxyError(c, err)
		return false
	}
	defer func() { _ = up.Close() }()
	out := req.Clone(ctx)
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	out.Close = true
	if err := out.Write(up); err != nil {
		writeProxyError(c, err)
		return false
	}
	_ = up.SetReadDeadline(time.Now().Add(proxyIdle))
	resp, err := http.ReadResponse(bufio.NewReader(up), out)
	if err != nil {
		writeProxyError(c, err)
		return false
	}
	defer resp.Body.Close()
	resp.Close = true
	_ = resp.Write(c)
	return false // one request a connection: the response says Connection: close
}

// dialChecked connects to host:port as a fetch would, after the grant's
// host check; the address check happens at connect time. Both decisions
// are audited.
func (f *Fetcher) dialChecked(ctx context.Context, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not host:port", ErrInvalidFetch, addr)
	}
	if err := f.check(ctx, &url.URL{Scheme: "https", Host: net.JoinHostPort(host, port)}, "proxied"); err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return f.dial(dctx, "tcp", addr)
}

// writeProxyError answers a refused or failed proxy request: 403 with the
// denial (naming the flag that would allow it), else 502.
func writeProxyError(c net.Conn, err error) {
	status := "502 Bad Gateway"
	if errors.Is(err, capabilities.ErrDenied) || errors.Is(err, ErrInvalidFetch) {
		status = "403 Forbidden"
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, len(msg), msg)
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
