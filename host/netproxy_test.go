package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
)

// TestNetProxy: the proxy passes what the grant names, refuses the rest
// with 403 and the denial, and survives a client that speaks no HTTP.
func TestNetProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok "+r.URL.Path)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	hp, err := capabilities.ParseHostPattern(fmt.Sprintf("127.0.0.1:%d", port))
	require.NoError(t, err)
	star, err := capabilities.ParseHostPattern("*")
	require.NoError(t, err)
	serve := func(granted ...capabilities.HostPattern) string {
		p := NewNetProxy(capabilities.Set{Net: granted}, nil)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() { _ = p.Serve(ctx, ln); close(served) }()
		t.Cleanup(func() { cancel(); <-served })
		return ln.Addr().String()
	}
	get := func(proxy, u string) (int, string) {
		proxyURL, _ := url.Parse("http://" + proxy)
		client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}, Timeout: 10 * time.Second}
		resp, err := client.Get(u)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	exact, wildcard := serve(hp), serve(star)
	code, body := get(exact, fmt.Sprintf("http://127.0.0.1:%d/x", port))
	assert.Equal(t, 200, code)
	assert.Equal(t, "ok /x", body)

	code, body = get(exact, fmt.Sprintf("http://localhost:%d/x", port))
	assert.Equal(t, 403, code, "a host the grant does not name")
	assert.Contains(t, body, "net localhost:")
	assert.Contains(t, body, "denied")

	code, body = get(wildcard, "http://169.254.169.254/latest/meta-data/")
	assert.Equal(t, 403, code, "the wildcard never reaches the metadata address")
	assert.Contains(t, body, "link-local")
	code, _ = get(wildcard, fmt.Sprintf("http://127.0.0.1:%d/x", port))
	assert.Equal(t, 403, code, "nor loopback")

	// CONNECT to a host not granted: 403 before any byte goes out.
	c, err := net.Dial("tcp", exact)
	require.NoError(t, err)
	fmt.Fprintf(c, "CONNECT 10.0.0.1:22 HTTP/1.1\r\nHost: 10.0.0.1:22\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, 403, resp.StatusCode)
	_ = resp.Body.Close()
	c.Close()

	// Garbage: the connection ends, the proxy goes on.
	c, err = net.Dial("tcp", exact)
	require.NoError(t, err)
	_, _ = c.Write([]byte(strings.Repeat("\x00\xff", 1000) + "\r\n\r\n"))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.ReadAll(c)
	c.Close()
	code, _ = get(exact, fmt.Sprintf("http://127.0.0.1:%d/again", port))
	assert.Equal(t, 200, code)
}
