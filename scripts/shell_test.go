package scripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
)

// shellGrant is what -A grants the shell.
var shellGrant = ShellDeclares()

// runShell runs the sandboxed shell with -c command over a new workspace
// holding files, with the grant and limits given, and returns the result,
// stdout, stderr and the workspace.
func runShell(t *testing.T, command string, files map[string]string, granted capabilities.Set) (*sandbox.Result, string, string, string, error) {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	var stdout, stderr bytes.Buffer
	res, err := sourceRunner(t).RunShell(context.Background(), &ShellRun{ScriptRun: ScriptRun{
		Services:     host.Services{Workspace: ws},
		Args:         []string{"-c", command},
		Stdout:       &stdout,
		Stderr:       &stderr,
		Granted:      granted,
		Interpreters: interpreters(t, interp.Shell),
	}})
	return res, stdout.String(), stderr.String(), ws, err
}

func TestShellRuns(t *testing.T) {
	res, out, errOut, ws, err := runShell(t, `echo "$PWD"; cat in.txt | tr a-z A-Z > out.txt; echo done`, map[string]string{"in.txt": "abc\n"}, shellGrant)
	require.NoError(t, err, errOut)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "/workspace\ndone\n", out)
	b, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	require.NoError(t, err)
	require.Equal(t, "ABC\n", string(b))
}

// TestShellReadOnlyGrant: with read but not write granted, the workspace
// is there and unchangeable.
func TestShellReadOnlyGrant(t *testing.T) {
	grant := capabilities.Set{Read: shellGrant.Read}
	res, out, errOut, ws, err := runShell(t, `cat in.txt; echo x > new.txt || echo refused`, map[string]string{"in.txt": "abc\n"}, grant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "abc\nrefused\n", out)
	require.NoFileExists(t, filepath.Join(ws, "new.txt"))
}

// The attacks of issue 13's "Bad input" on the shell: each ends within
// the limits with a message and the right exit status, and the host is
// unharmed.

func TestShellAttackForkBomb(t *testing.T) {
	start := time.Now()
	res, _, errOut, _, err := runShell(t, `:(){ :|:& };:; wait; sleep 5`, nil, shellGrant)
	require.NoError(t, err)
	require.Equal(t, uint32(125), res.ExitCode, errOut)
	require.Contains(t, errOut, "a fork bomb?")
	require.Less(t, time.Since(start), 20*time.Second)
}

func TestShellAttackInfiniteLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs until the 2 s timeout; the full suite runs it")
	}
	grant := shellGrant
	grant.Timeout = capabilities.Duration(2 * time.Second)
	start := time.Now()
	_, _, _, _, err := runShell(t, `while true; do :; done`, nil, grant)
	require.ErrorIs(t, err, sandbox.ErrTimeout)
	require.Less(t, time.Since(start), 10*time.Second)
}

func TestShellAttackSubstitutionFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: captures 16 MiB of command substitution (1 s); the full suite runs it")
	}
	res, out, errOut, _, err := runShell(t, `x=$(yes); echo "len ${#x}"`, nil, shellGrant)
	require.NoError(t, err)
	require.Contains(t, errOut, "command substitution output over 16 MiB")
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.True(t, strings.HasPrefix(out, "len "), out)
}

func TestShellAttackDeepRecursion(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: recurses until the nesting limit (3 s); the full suite runs it")
	}
	start := time.Now()
	grant := shellGrant
	grant.Timeout = capabilities.Duration(90 * time.Second) // under -race on a loaded machine
	res, _, errOut, _, err := runShell(t, `f() { f; }; f`, nil, grant)
	require.NoError(t, err)
	require.Equal(t, uint32(125), res.ExitCode, errOut)
	require.Contains(t, errOut, "f: maximum function nesting level exceeded")
	require.Less(t, time.Since(start), 90*time.Second)
}

// TestShellAttackSignalFlood: a thousand signals sent to the shell and
// to a background job. Each one sent to $$ runs the trap (as in bash:
// kill to self is taken before the next command); those sent to the job
// while it sleeps are merged, as the kernel merges a pending signal, so
// its trap runs once and the queue never grows with the flood.
func TestShellAttackSignalFlood(t *testing.T) {
	grant := shellGrant
	grant.Timeout = capabilities.Duration(90 * time.Second) // under -race on a loaded machine
	res, out, errOut, _, err := runShell(t, `n=0; trap 'n=$((n+1))' USR1
( trap "echo got" USR1; : > ready; sleep 2; echo end ) > job.out &
until [ -e ready ]; do sleep 0.01; done
for i in $(seq 1000); do kill -USR1 $! 2>/dev/null; kill -USR1 $$; done
wait
echo "self $n"; cat job.out`, nil, grant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "self 1000\ngot\nend\n", out)
}

// TestShellKillJob: kill ends a background job at once, in the command
// it waits in, with bash's status (128+n); a job that ignores the
// signal (an empty trap, inherited) or traps it goes on.
func TestShellKillJob(t *testing.T) {
	// A job that kill did not end would hold wait past the run's limit.
	grant := shellGrant
	grant.Timeout = capabilities.Duration(25 * time.Second)
	res, out, errOut, _, err := runShell(t, `sleep 30 & kill $!; wait $!; echo "term $?"
( sleep 30; echo never ) & sleep 0.2; kill -9 $!; wait $!; echo "kill $?"
trap '' TERM; sleep 0.3 & kill $!; wait $!; echo "ignored $?"; trap - TERM
( trap 'echo trapped' TERM; : > ready; sleep 0.3; echo after ) & until [ -e ready ]; do sleep 0.01; done; kill $!; wait $!; echo "trapped $?"`, nil, grant)
	require.NoError(t, err, "a killed job ran its sleep 30 to the end")
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "term 143\nkill 137\nignored 0\ntrapped\nafter\ntrapped 0\n", out)
}

// TestShellAttackEscape: nothing outside the mounts is reachable, by
// path, by .., or by a symlink planted in the workspace.
func TestShellAttackEscape(t *testing.T) {
	ws := map[string]string{"in.txt": "x\n"}
	res, out, errOut, dir, err := runShell(t, `cat /etc/hostname 2>/dev/null || echo no-etc; cat ../../../../etc/passwd 2>/dev/null || echo no-dotdot; ln -s /etc link 2>/dev/null; cat link/passwd 2>/dev/null || echo no-link; ls /`, ws, shellGrant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Contains(t, out, "no-etc\nno-dotdot\n")
	require.Contains(t, out, "no-link\n")
	require.NotContains(t, out, "root:")
	require.True(t, strings.HasSuffix(out, "no-link\ntmp\nworkspace\n"), "ls / lists only the mounts: %q", out)
	require.NoFileExists(t, filepath.Join(dir, "passwd"))
}

// TestTmpName: the exec host function takes a stdin file only directly
// in the caller's /tmp, so a guest cannot name any other host file.
func TestTmpName(t *testing.T) {
	for _, p := range []string{"/tmp/in", "/tmp/./in", "/tmp/.exec-in-123"} {
		_, err := tmpName(p)
		assert.NoError(t, err, "tmpName(%q)", p)
	}
	for _, p := range []string{"/etc/passwd", "/tmp/../etc/passwd", "/tmp", "/tmp/", "/tmp/a/b", "tmp/in", "/tmp/..", "/workspace/in", ""} {
		n, err := tmpName(p)
		assert.Error(t, err, "tmpName(%q) = %q; want a refusal", p, n)
	}
}

// TestShellMvAcrossMounts: mv between /tmp and the workspace (two mounts:
// the WASI host refuses the rename) copies and removes, as GNU mv does
// across file systems: a file and a tree arrive with their contents, and
// the originals are gone.
func TestShellMvAcrossMounts(t *testing.T) {
	res, out, errOut, ws, err := runShell(t, `set -e
echo x > /tmp/a; chmod 600 /tmp/a
mkdir -p /tmp/d/e; echo y > /tmp/d/e/f
mv /tmp/a /workspace/a
mv -v /tmp/d d
ls /tmp | wc -l
mv keep.txt /tmp/keep.txt && cat /tmp/keep.txt
test ! -e keep.txt && echo gone`, map[string]string{"keep.txt": "kept\n"}, shellGrant)
	require.NoError(t, err, errOut)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	assert.Equal(t, "renamed '/tmp/d' -> 'd'\n0\nkept\ngone\n", out)
	b, err := os.ReadFile(filepath.Join(ws, "a"))
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b))
	b, err = os.ReadFile(filepath.Join(ws, "d", "e", "f"))
	require.NoError(t, err)
	assert.Equal(t, "y\n", string(b))
}
