package mcp

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequireBearer: nothing of the handler behind runs for a refused
// request, and it never sees the token.
func TestRequireBearer(t *testing.T) {
	token := strings.Repeat("k", 43)
	var seen []string
	h := requireBearer(token, &refusalLog{logger: slog.New(slog.DiscardHandler)}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
	}))
	for _, tc := range []struct {
		auth    []string
		invalid bool // a token was sent: the challenge says it is invalid
	}{
		{nil, false},
		{[]string{"Bearer nope"}, true},
		{[]string{"Bearer " + token + " "}, true},
		{[]string{"Token " + token}, false},
		{[]string{"Bearer"}, false},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		req.Header["Authorization"] = tc.auth
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		assert.Equal(t, http.StatusUnauthorized, w.Code, "%q", tc.auth)
		want := `Bearer realm="skillrun"`
		if tc.invalid {
			want += `, error="invalid_token"`
		}
		assert.Equal(t, want, w.Header().Get("WWW-Authenticate"), "%q", tc.auth)
	}
	assert.Empty(t, seen, "the handler ran for a refused request")

	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []string{""}, seen, "the handler ran once, without the header")
}

// TestLoadOrCreateToken: a token is made once (0600, its folder 0700) and
// read back after; a file others may read is refused.
func TestLoadOrCreateToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skillrun", "mcp-token")
	token, created, err := loadOrCreateToken(path)
	require.NoError(t, err)
	assert.True(t, created)
	require.NoError(t, checkToken(token))
	fi, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	again, created, err := loadOrCreateToken(path)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, token, again)

	other, _, err := loadOrCreateToken(filepath.Join(t.TempDir(), "t"))
	require.NoError(t, err)
	assert.NotEqual(t, token, other, "each new token is random")

	require.NoError(t, os.Chmod(path, 0o640))
	_, _, err = loadOrCreateToken(path)
	require.ErrorContains(t, err, "chmod 600")

	assert.ErrorContains(t, checkToken(strings.Repeat("a", 31)+" "), "space")
}

// TestBoundBody: a body over the limit gets 413 and never reaches the
// handler; one within it arrives whole.
func TestBoundBody(t *testing.T) {
	var got []byte
	h := boundBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(strings.Repeat("x", httpMaxBodyBytes+1)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Nil(t, got)

	resp, err = http.Post(srv.URL, "application/json", strings.NewReader(initializeBody))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, initializeBody, string(got))
}

// TestLimitListener: past the limit, a connection is accepted only when
// another closes.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := newLimitListener(inner, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	var open []net.Conn
	for range 2 {
		select {
		case c := <-accepted:
			open = append(open, c)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "the first two connections were not accepted")
		}
	}
	select {
	case <-accepted:
		require.FailNow(t, "a third connection was accepted while two were open")
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, open[0].Close())
	_ = open[0].Close() // a second Close gives no second slot back
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the third connection was not accepted after one closed")
	}
	_ = open[1].Close()
}

// initializeBody is an MCP initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
