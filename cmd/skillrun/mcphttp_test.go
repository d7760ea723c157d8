package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bearerTransport adds Authorization: Bearer token to every request, as an
// MCP client does from the headers of its config.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects the official SDK's client to url, sending token
// (none when empty); the caller closes the session.
func connectHTTP(ctx context.Context, url, token string) (*mcpsdk.ClientSession, error) {
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearerTransport{token}
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	return client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// initializeBody is an MCP initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// initReply is what postInitialize read of the response.
type initReply struct {
	StatusCode int
	Header     http.Header
}

// postInitialize POSTs an initialize request to url with the given
// Authorization header values (none when empty) and returns the response's
// status and header and its body, read and closed.
func postInitialize(url string, authorization ...string) (*initReply, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, a := range authorization {
		req.Header.Add("Authorization", a)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return &initReply{StatusCode: resp.StatusCode, Header: resp.Header}, string(body), err
}

// startMCPHTTP runs the skillrun CLI (this test binary, which testscript
// puts on PATH as skillrun) as `skillrun mcp --http 127.0.0.1:0 ARGS...`
// with env added to the environment, waits until it serves, and returns
// its URL and its stderr so far and to come. The server is killed when
// the test ends.
func startMCPHTTP(t *testing.T, env []string, args ...string) (string, *syncBuffer) {
	t.Helper()
	bin, err := exec.LookPath("skillrun")
	require.NoError(t, err, "testscript puts the test binary on PATH as skillrun")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	stderr := &syncBuffer{}
	served := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(stderr, line)
			if u, ok := strings.CutPrefix(line, "skillrun: serving MCP on "); ok {
				served <- u
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	select {
	case u := <-served:
		return u, stderr
	case err := <-exited:
		t.Fatalf("skillrun mcp --http exited before serving: %v\n%s", err, stderr)
	case <-time.After(3 * time.Minute):
		t.Fatalf("skillrun mcp --http did not serve within 3 minutes:\n%s", stderr)
	}
	return "", nil
}

// mcpHTTPAttackerMain is the attacker of TestMCPHTTPOtherUser, run as
// another local user: `mcp-http-attacker URL TOKENFILE SECRETFILE`. It
// tries what that user can: read the secret and the token file, then call
// the shell tool over HTTP with no token, a guessed one and whatever it
// could read, printing what happened ("CALLED" when a call got through).
func mcpHTTPAttackerMain() {
	url, tokenFile, secret := os.Args[1], os.Args[2], os.Args[3]
	if data, err := os.ReadFile(secret); err != nil {
		fmt.Printf("read secret: %v\n", err)
	} else {
		fmt.Printf("read secret: %s\n", data)
	}
	tries := [][2]string{{"no token", ""}, {"guessed token", strings.Repeat("A", 43)}}
	if tokenFile != "" {
		if data, err := os.ReadFile(tokenFile); err != nil {
			fmt.Printf("read token file: %v\n", err)
		} else {
			tries = append(tries, [2]string{"token file", strings.TrimSpace(string(data))})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, try := range tries {
		name, token := try[0], try[1]
		var auth []string
		if token != "" {
			auth = []string{"Bearer " + token}
		}
		if resp, _, err := postInitialize(url, auth...); err != nil {
			fmt.Printf("%s: initialize: %v\n", name, err)
		} else {
			fmt.Printf("%s: status %d, WWW-Authenticate %q\n", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		cs, err := connectHTTP(ctx, url, token)
		if err != nil {
			fmt.Printf("%s: connect: %v\n", name, err)
			continue
		}
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "cat secret.txt; echo pwned > pwned.txt"}})
		if err != nil {
			fmt.Printf("%s: CALLED shell: %v\n", name, err)
		} else {
			fmt.Printf("%s: CALLED shell: %s\n", name, textOf(res))
		}
		cs.Close()
	}
}

// TestMCPHTTPToken: the real MCP client with the token (made at start, mode
// 0600, in --token-file) lists and calls tools; the token is not printed;
// a second server reads the same file.
func TestMCPHTTPToken(t *testing.T) {
	root := mcpSkill(t)
	tokenFile := filepath.Join(t.TempDir(), "conf", "token")
	url, stderr := startMCPHTTP(t, nil, root, "--token-file", tokenFile)

	fi, err := os.Stat(tokenFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	data, err := os.ReadFile(tokenFile)
	require.NoError(t, err)
	token := strings.TrimSpace(string(data))
	assert.Len(t, token, 43, "32 random bytes, base64url")
	assert.Contains(t, stderr.String(), "wrote a new MCP bearer token to "+tokenFile)
	assert.NotContains(t, stderr.String(), token)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := connectHTTP(ctx, url, token)
	require.NoError(t, err)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.Contains(t, names, "skills_catalog")
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skills_catalog"})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Contains(t, textOf(res), "<name>\nnotes\n</name>")

	url2, stderr2 := startMCPHTTP(t, nil, root, "--token-file", tokenFile)
	assert.NotContains(t, stderr2.String(), "wrote a new")
	resp, _, err := postInitialize(url2, "Bearer "+token)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the second server reads the same token")
}

// TestMCPHTTPRefused: a request without the right token, in any form, gets
// 401 with a Bearer challenge; the scheme's case does not matter.
func TestMCPHTTPRefused(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	url, stderr := startMCPHTTP(t, nil, mcpSkill(t), "--token-file", tokenFile)
	data, err := os.ReadFile(tokenFile)
	require.NoError(t, err)
	token := strings.TrimSpace(string(data))

	for _, tc := range []struct {
		name string
		auth []string
	}{
		{"none", nil},
		{"wrong token", []string{"Bearer " + strings.Repeat("x", 43)}},
		{"token with a suffix", []string{"Bearer " + token + "x"}},
		{"token prefix", []string{"Bearer " + token[:42]}},
		{"Basic scheme", []string{"Basic " + token}},
		{"bare token", []string{token}},
		{"empty Bearer", []string{"Bearer "}},
		{"two headers", []string{"Bearer " + token, "Bearer " + token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, err := postInitialize(url, tc.auth...)
			require.NoError(t, err)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer "), "WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			assert.Contains(t, body, "Unauthorized")
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no MCP session was made")
		})
	}
	resp, _, err := postInitialize(url, "bearer "+token)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the scheme is case-insensitive")
	assert.Contains(t, stderr.String(), "request refused: not authenticated")
}

// TestMCPHTTPTokenFileRefused: a token file others may read or write, or
// holding a short token, stops `skillrun mcp --http` with an error naming
// the file and the fix; the flags are checked.
func TestMCPHTTPTokenFileRefused(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	require.NoError(t, os.WriteFile(open, []byte(strings.Repeat("t", 43)), 0o600))
	require.NoError(t, os.Chmod(open, 0o644))
	short := filepath.Join(dir, "short")
	require.NoError(t, os.WriteFile(short, []byte("hunter2\n"), 0o600))
	root := mcpSkill(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"mode 0644", []string{"--http", "127.0.0.1:0", "--token-file", open}, []string{open, "0644", "chmod 600"}},
		{"short token", []string{"--http", "127.0.0.1:0", "--token-file", short}, []string{short, "7 characters"}},
		{"a folder", []string{"--http", "127.0.0.1:0", "--token-file", dir}, []string{dir, "not a regular file"}},
		{"no --http", []string{"--token-file", open}, []string{"apply to --http only"}},
		{"both", []string{"--http", "127.0.0.1:0", "--no-auth", "--token-file", open}, []string{"exclude each other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			code := run(append([]string{"mcp", root}, tc.args...), strings.NewReader(""), io.Discard, &stderr)
			assert.Equal(t, exitUsage, code)
			for _, w := range tc.want {
				assert.Contains(t, stderr.String(), w)
			}
			assert.NotContains(t, stderr.String(), "serving MCP")
		})
	}
}

// TestMCPHTTPNoAuth: --no-auth serves without a token and warns.
func TestMCPHTTPNoAuth(t *testing.T) {
	url, stderr := startMCPHTTP(t, nil, mcpSkill(t), "--no-auth")
	assert.Contains(t, stderr.String(), "skillrun: warning: --no-auth: anyone who can reach")
	resp, _, err := postInitialize(url)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
