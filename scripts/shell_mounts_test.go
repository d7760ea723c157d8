package scripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
)

// runShellMounts runs command with the workspace also at at and the
// extra mounts, returning stdout+stderr.
func runShellMounts(t *testing.T, ws, command, at string, granted capabilities.Set, extra ...sandbox.Mount) (*sandbox.Result, string, error) {
	t.Helper()
	var out bytes.Buffer
	res, err := sourceRunner(t).RunShell(context.Background(), &ShellRun{
		ScriptRun: ScriptRun{
			Services: host.Services{Workspace: ws}, Args: []string{"-c", command},
			Stdout: &out, Stderr: &out, Granted: granted, Interpreters: interpreters(t, interp.Shell),
		},
		WorkspaceAt: at,
		Mounts:      extra,
	})
	return res, out.String(), err
}

// TestShellWorkspaceAt: a task written for a container finds its files
// at /app, starts there, and writes through to the workspace; a
// read-only extra mount is readable and unchangeable, a writable one
// keeps what the shell writes.
func TestShellWorkspaceAt(t *testing.T) {
	ws, tests, logs := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "in.txt"), []byte("abc\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tests, "test.sh"), []byte("echo ok\n"), 0o644))
	res, out, err := runShellMounts(t, ws, `pwd; cat /app/in.txt; echo x > /app/new.txt; cat /tests/test.sh; echo y > /tests/z || echo refused; echo 1 > /logs/verifier/reward.txt`,
		"/app", shellGrant,
		sandbox.Mount{HostDir: tests, GuestPath: "/tests"},
		sandbox.Mount{HostDir: logs, GuestPath: "/logs/verifier", Writable: true})
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, out)
	require.Contains(t, out, "/app\nabc\necho ok\n")
	require.Contains(t, out, "refused")
	b, err := os.ReadFile(filepath.Join(ws, "new.txt"))
	require.NoError(t, err)
	require.Equal(t, "x\n", string(b))
	b, err = os.ReadFile(filepath.Join(logs, "reward.txt"))
	require.NoError(t, err)
	require.Equal(t, "1\n", string(b))
	require.NoFileExists(t, filepath.Join(tests, "z"))
}

// TestShellMountsRefused: a caller's mount may not shadow the shell's
// own folders, nest in another, or be a relative or unclean path; the
// workspace cannot be shown at a second place when it is not granted.
func TestShellMountsRefused(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	for _, g := range []string{"/workspace", "/workspace/x", "/tmp", "/skills", "/", "rel", "/a/../b", "/app"} {
		_, _, err := runShellMounts(t, ws, "true", "/app", shellGrant, sandbox.Mount{HostDir: dir, GuestPath: g})
		require.ErrorIs(t, err, ErrNotRunnable, g)
	}
	_, _, err := runShellMounts(t, ws, "true", "", shellGrant,
		sandbox.Mount{HostDir: dir, GuestPath: "/logs"}, sandbox.Mount{HostDir: dir, GuestPath: "/logs/verifier"})
	require.ErrorContains(t, err, "overlap")
	_, _, err = runShellMounts(t, ws, "true", "/app", capabilities.Set{})
	require.ErrorContains(t, err, "not granted")
}
