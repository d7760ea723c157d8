package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/internal/safefile"
)

// A server over HTTP (Server.ListenAndServe) answers only the operator's clients: every request
// must carry the bearer token of the server (Authorization: Bearer TOKEN),
// which lives in a file only the operator can read. Loopback is not
// authentication: every local user can connect to 127.0.0.1, and every
// tool runs with the operator's grants.

// Bounds of the HTTP server. A body is read whole before MCP sees it (the
// SDK reads it whole too), within httpBodyTimeout; the server's own
// ReadTimeout is left unset because net/http cancels a request's context
// when it expires, which would end every tool call and event stream that
// runs longer. Live MCP sessions are bounded by the SDK's idle
// SessionTimeout (host/mcp: 30 minutes): the SDK has no session count
// limit, and only a client holding the token can open one.
const (
	httpHeaderTimeout  = 10 * time.Second
	httpBodyTimeout    = 30 * time.Second
	httpIdleTimeout    = 2 * time.Minute
	httpMaxHeaderBytes = 64 << 10
	httpMaxBodyBytes   = 4 << 20 // the go-sdk's own default
	httpMaxConns       = 128
)

// Bounds of a bearer token read from a file: long enough not to be
// guessed, short and plain enough to be a header value.
const (
	minTokenLen = 32
	maxTokenLen = 1024
)

// tokenFileName is the default token file, in the user's config folder.
const tokenFileName = "mcp-token"

// DefaultTokenFile is where `skillrun mcp --http` keeps its token when
// --token-file is not given: $XDG_CONFIG_HOME/skillrun/mcp-token (or the
// platform's config folder), a place only the operator reads.
func DefaultTokenFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config folder for the MCP token (%w): name a file with --token-file", err)
	}
	return filepath.Join(dir, "skillrun", tokenFileName), nil
}

// loadOrCreateToken returns the bearer token in path, or, when there is no
// file there, makes a new one (32 random bytes, base64url) and writes it
// there with mode 0600 (its folder 0700 if made). An existing file must
// be a regular file of the current user that no one else may read or
// write: a token others can read authenticates them, one they can write
// is theirs.
func loadOrCreateToken(path string) (token string, created bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		token, err := createToken(path)
		if errors.Is(err, os.ErrExist) { // made by another server meanwhile
			return loadOrCreateToken(path)
		}
		return token, err == nil, err
	}
	if err != nil {
		return "", false, fmt.Errorf("token file %s: %w", path, safefile.Cause(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("token file %s: %w", path, safefile.Cause(err))
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("token file %s is not a regular file: name a file holding the token with --token-file", path)
	}
	if err := checkPrivate(path, fi); err != nil {
		return "", false, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenLen+2))
	if err != nil {
		return "", false, fmt.Errorf("token file %s: %w", path, safefile.Cause(err))
	}
	token = strings.TrimSpace(string(data))
	if err := checkToken(token); err != nil {
		return "", false, fmt.Errorf("token file %s: %w", path, err)
	}
	return token, false, nil
}

// checkToken refuses a token that is guessable or cannot be a header value.
func checkToken(token string) error {
	if len(token) < minTokenLen || len(token) > maxTokenLen {
		return fmt.Errorf("the token has %d characters, want %d to %d: remove the file to have a new token made", len(token), minTokenLen, maxTokenLen)
	}
	for _, c := range []byte(token) {
		if c <= ' ' || c > '~' {
			return errors.New("the token holds a space or a character that is not printable ASCII: remove the file to have a new token made")
		}
	}
	return nil
}

// createToken writes a new token to path, which must not exist yet.
func createToken(path string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("making the folder of the token file: %w", err)
	}
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	token := base64.RawURLEncoding.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", err
		}
		return "", fmt.Errorf("token file %s: %w", path, safefile.Cause(err))
	}
	_, werr := io.WriteString(f, token+"\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("writing the token file %s: %w", path, safefile.Cause(werr))
	}
	return token, nil
}

// requireBearer serves next only to requests whose Authorization header is
// "Bearer TOKEN" with the server's token, compared in constant time (of
// SHA-256 digests, so that neither the content nor the length of the
// token leaks through timing). Others get 401 with a WWW-Authenticate
// challenge, and nothing of next runs. The header is removed before next
// sees the request.
func requireBearer(token string, refused *refusalLog, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, why := bearerToken(r.Header.Values("Authorization"))
		if why == "" {
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				why = "wrong token"
			}
		}
		if why != "" {
			refused.log(r, why)
			challenge := `Bearer realm="skillrun"`
			if got != "" {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "Unauthorized: send the token of `skillrun mcp --http` as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		r.Header.Del("Authorization")
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the token of the one Authorization header in values
// ("Bearer TOKEN", the scheme in any case), or why there is none.
func bearerToken(values []string) (token, why string) {
	switch {
	case len(values) == 0:
		return "", "no Authorization header"
	case len(values) > 1:
		return "", "more than one Authorization header"
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", "not a Bearer token"
	}
	if token = strings.TrimLeft(token, " "); token == "" {
		return "", "empty Bearer token"
	}
	return token, ""
}

// refusalLog logs refused requests, at most one line per refusalEvery
// (with how many were refused in between), so that a flood of bad
// requests cannot flood the operator's log.
type refusalLog struct {
	logger *slog.Logger

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

const refusalEvery = 10 * time.Second

func (l *refusalLog) log(r *http.Request, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); now.Sub(l.last) >= refusalEvery {
		l.logger.Warn("mcp: request refused: not authenticated", "reason", why, "remote", r.RemoteAddr, "refused_since_last_line", l.suppressed)
		l.last, l.suppressed = now, 0
		return
	}
	l.suppressed++
}

// boundBody reads a request's body whole, at most httpMaxBodyBytes within
// httpBodyTimeout, before next sees the request: 413 when it is larger,
// 408 when it comes too slowly. The read deadline is cleared afterwards, so
// that a tool call or event stream may last longer than the body took.
func boundBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(httpBodyTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, httpMaxBodyBytes))
		_ = rc.SetReadDeadline(time.Time{})
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				http.Error(w, fmt.Sprintf("Request body too large: at most %d bytes", httpMaxBodyBytes), http.StatusRequestEntityTooLarge)
			} else if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				http.Error(w, fmt.Sprintf("Request body not received within %s", httpBodyTimeout), http.StatusRequestTimeout)
			} else {
				http.Error(w, "Reading the request body failed", http.StatusBadRequest)
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// limitListener accepts at most n connections open at once: Accept waits
// for one to close (the kernel's backlog holds the rest).
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back when closed, once.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// ListenOptions say how [Server.ListenAndServe] serves.
type ListenOptions struct {
	// Addr is the address to bind; a bare ":PORT" binds loopback.
	Addr string
	// TokenFile holds the bearer token every request must carry ("": the
	// DefaultTokenFile, made with mode 0600 when missing).
	TokenFile string
	// NoAuth serves without a token, for a reverse proxy that
	// authenticates; a warning says so at every start.
	NoAuth bool
	// Notice receives what the operator must know: the address, the
	// token's file, the warning of NoAuth (nil: discarded).
	Notice io.Writer
	// Logger receives the refused requests, at most one line every
	// refusalEvery (nil: discarded).
	Logger *slog.Logger
}

// ListenAndServe serves s over streamable HTTP until ctx ends: only
// requests addressed to the bound host (DNS rebinding) and, unless
// o.NoAuth, carrying the bearer token, compared in constant time.
// Connections, headers, bodies and idle time are bounded. The error is
// for an address or token file that cannot be used, or a failed server.
func (s *Server) ListenAndServe(ctx context.Context, o *ListenOptions) error {
	notice := o.Notice
	if notice == nil {
		notice = io.Discard
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Addr, err)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	var token string
	if !o.NoAuth {
		path := o.TokenFile
		if path == "" {
			if path, err = DefaultTokenFile(); err != nil {
				return err
			}
		}
		var created bool
		if token, created, err = loadOrCreateToken(path); err != nil {
			return err
		}
		if created {
			fmt.Fprintf(notice, "skillrun: wrote a new MCP bearer token to %s (mode 0600)\n", path)
		}
		fmt.Fprintf(notice, "skillrun: MCP clients must send Authorization: Bearer TOKEN, TOKEN the content of %s\n", path)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(h, port))
	if err != nil {
		return fmt.Errorf("%s: %w", o.Addr, err)
	}
	bound := ln.Addr().String()
	allowed := []string{bound}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		_, p, _ := net.SplitHostPort(bound)
		allowed = append(allowed, "localhost:"+p)
	}
	handler := boundBody(s.Handler(&HTTPOptions{AllowedHosts: allowed}))
	if o.NoAuth {
		fmt.Fprintf(notice, "skillrun: warning: --no-auth: anyone who can reach %s, any local user included, can call every tool with your grants; use it only behind a reverse proxy that authenticates\n", bound)
	} else {
		handler = requireBearer(token, &refusalLog{logger: logger}, handler)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: httpHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
	}
	fmt.Fprintf(notice, "skillrun: serving MCP on http://%s\n", bound)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(newLimitListener(ln, httpMaxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
