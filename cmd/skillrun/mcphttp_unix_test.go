//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPHTTPOtherUser is the attack as it comes: the operator (root, in
// CI) serves skills with `skillrun mcp --http` on loopback, its shell tool
// granted a 0700 workspace that holds a secret; another local user
// (nobody, uid 65534) calls the shell tool over HTTP with no token, a
// guessed one, and whatever it can read. Every call is refused with 401:
// the secret stays unread and nothing is written. Not root, the same
// attacker runs as the same user but is not told where the token is.
func TestMCPHTTPOtherUser(t *testing.T) {
	root := mcpSkill(t)
	ws := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Mkdir(ws, 0o700))
	const secret = "the-secret-3f9a1c"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "secret.txt"), []byte(secret+"\n"), 0o600))
	policy := filepath.Join(t.TempDir(), "policy.toml")
	require.NoError(t, os.WriteFile(policy, []byte("[default]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\n"), 0o600))
	// The default token file, in the operator's own config folder.
	config := t.TempDir()
	url, stderr := startMCPHTTP(t, []string{"XDG_CONFIG_HOME=" + config}, root, "--workspace", ws, "--policy", policy)
	tokenFile := filepath.Join(config, "skillrun", "mcp-token")

	// The attacker is this test binary as mcp-http-attacker, in a folder
	// the other user may enter.
	dir, err := os.MkdirTemp("", "skillrun-attacker-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	exe, err := os.Executable()
	require.NoError(t, err)
	attacker := filepath.Join(dir, "mcp-http-attacker")
	copyExecutable(t, exe, attacker)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{url, tokenFile, filepath.Join(ws, "secret.txt")}
	cmd := exec.CommandContext(ctx, attacker, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + os.TempDir()}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		t.Log("not root: the attacker runs as this user, with no token file to read")
		args[1] = ""
		cmd.Args = append([]string{attacker}, args...)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("attacker:\n%s", out)
	require.NoError(t, err)
	assert.NotContains(t, string(out), secret, "the attacker read the secret")
	assert.NotContains(t, string(out), "CALLED", "a tool call got through")
	assert.Contains(t, string(out), "no token: status 401, WWW-Authenticate \"Bearer")
	assert.Contains(t, string(out), "guessed token: status 401")
	if os.Geteuid() == 0 {
		assert.Contains(t, string(out), "read token file: open "+tokenFile+": permission denied")
	}
	assert.NoFileExists(t, filepath.Join(ws, "pwned.txt"), "the attacker wrote into the workspace")
	assert.Contains(t, stderr.String(), "request refused: not authenticated")
}

// copyExecutable copies the file src to dst, mode 0755.
func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
