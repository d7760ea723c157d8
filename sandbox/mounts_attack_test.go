package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// Attack tests of file-system confinement on bare mounts (issue 11,
// findings 1, 10 and 11), as an embedder runs a module (Run with mounts).
// The attacks through a skill's grants are the scripts layer's
// (scripts/mounts_attack_test.go).

// TestAttackMountSubSymlinkOut: an embedder's Mount.Sub that is a link
// leading out of its folder is refused, not followed (finding 1).
func TestAttackMountSubSymlinkOut(t *testing.T) {
	// The sub-path turns into a link after the caller checked it.
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "refs")))
	e := sharedEnv(t, false)
	_, out, err := e.run(t, &RunConfig{Mounts: []Mount{{HostDir: dir, Sub: "refs", GuestPath: "/refs"}}}, "ls", "/refs")
	assert.ErrorContains(t, err, "mount /refs", "want the mount refused")
	assert.NotContains(t, out.stdout.String(), "etc", "the module listed the host's root")
}

// TestAttackFIFO: a FIFO in the workspace must not hang a run past its
// timeout (open(2) on a FIFO waits for a writer, and nothing interrupts
// it); it is refused at once and the refusal audited (finding 10).
func TestAttackFIFO(t *testing.T) {
	ws := t.TempDir()
	if err := testkit.Mkfifo(filepath.Join(ws, "fifo")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		for _, args := range [][]string{{"read", "/workspace/fifo"}, {"write", "/workspace/fifo", "x"}} {
			var audit testkit.AuditLog
			cfg := &RunConfig{
				Mounts:  []Mount{{HostDir: ws, GuestPath: "/workspace", Writable: true}},
				Timeout: 5 * time.Second,
				Auditor: audit.Auditor(),
			}
			type result struct {
				res *Result
				out *output
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, out, err := e.run(t, cfg, args...)
				done <- result{res, out, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(time.Minute): // a hang, not a slow machine
				require.FailNow(t, "a hang on a FIFO", "%q on a FIFO hangs past the run's timeout", args)
			}
			if assert.NoError(t, r.err, "%q", args) {
				assert.EqualValues(t, 1, r.res.ExitCode, "%q: exit code; want EACCES", args)
			}
			assert.Contains(t, strings.ToLower(r.out.stdout.String()), "permission denied", "%q: want EACCES", args)
			audit.Has(t, "deny fs.open", "FIFOs, sockets and devices are refused")
		}
		e.assertUsable(t)
	})
}

// TestAttackDenialsAudited: every refusal reaches the audit log, whatever
// the operation: a stat, lstat or readlink through a link leading out, and
// opens and changes outside every mount (finding 11). A lookup that finds
// nothing is not a refusal and is not audited.
func TestAttackDenialsAudited(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ws := testkit.EscapeFixture(t)
		tests := []struct {
			args   []string
			prefix string // of the audit event
		}{
			{[]string{"stat", "/workspace/root/etc/passwd"}, "deny fs.stat /workspace/root/etc/passwd"},
			{[]string{"stat", "/workspace/parent/secret.txt"}, "deny fs.stat /workspace/parent/secret.txt"},
			{[]string{"readlink", "/workspace/abs"}, "deny fs.readlink /workspace/abs"},
			{[]string{"readlink", "/workspace/rel"}, "deny fs.readlink /workspace/rel"},
			{[]string{"read", "/etc/passwd"}, "deny fs.open /etc/passwd: no such file or directory (outside every mount)"},
			{[]string{"mkdir", "/tmp/x"}, "deny fs.mkdir /tmp/x"},
			{[]string{"write", "/evil", "x"}, "deny fs.open_write /evil"},
			{[]string{"remove", "/workspace"}, "deny fs.unlink /workspace"},
		}
		for _, tt := range tests {
			var audit testkit.AuditLog
			cfg := &RunConfig{Mounts: []Mount{{HostDir: ws, GuestPath: "/workspace", Writable: true}}, Auditor: audit.Auditor()}
			res, out, err := e.run(t, cfg, tt.args...)
			if assert.NoError(t, err, "%q: output %q", tt.args, out.stdout.String()) {
				assert.EqualValues(t, 1, res.ExitCode, "%q: exit code; want a refusal; output %q", tt.args, out.stdout.String())
			}
			audit.Has(t, tt.prefix, "")
		}
		var audit testkit.AuditLog
		cfg := &RunConfig{Mounts: []Mount{{HostDir: ws, GuestPath: "/workspace"}}, Auditor: audit.Auditor()}
		res, _, err := e.run(t, cfg, "stat", "/workspace/missing.txt")
		require.NoError(t, err, "stat of a missing file")
		require.EqualValues(t, 1, res.ExitCode, "stat of a missing file: exit code")
		for _, ev := range audit.Events() {
			assert.False(t, strings.HasPrefix(ev, "deny"), "a missing file was audited as a denial: %s", ev)
		}
	})
}
