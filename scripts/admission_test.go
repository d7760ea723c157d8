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
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// admissionRunner returns a Runner of its own with the run bounds of o,
// on the default compile cache, as sourceRunner (the interpreters are
// compiled there once).
func admissionRunner(t *testing.T, o Options) *Runner {
	t.Helper()
	r, err := New(context.Background(), &o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// TestRunAdmissionWaitBound: on a Runner bounded to one run at a time, a
// shell run made while another holds the turn waits the wait bound, then
// fails with errBusy and an error naming the flag and the use, audited
// as the run's denial; once the first has ended, the next run starts.
func TestRunAdmissionWaitBound(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out the admission wait bound (4 s); the full suite runs it")
	}
	r := admissionRunner(t, Options{MaxRuns: 1, MaxRunWait: 500 * time.Millisecond})
	ws := t.TempDir()
	shell := func(ctx context.Context, command string, log *testkit.AuditLog) (*sandbox.Result, string, error) {
		var out bytes.Buffer
		res, err := r.RunShell(ctx, &ShellRun{ScriptRun: ScriptRun{
			Services: host.Services{Workspace: ws, Auditor: log.Auditor()},
			Args:     []string{"-c", command}, Stdout: &out, Stderr: &out,
			Granted: ShellDeclares(), Interpreters: interpreters(t, interp.Shell),
		}})
		return res, out.String(), err
	}
	held := make(chan error, 1)
	go func() {
		_, out, err := shell(context.Background(), "touch started; sleep 3", &testkit.AuditLog{})
		if err == nil && out != "" {
			err = assert.AnError
		}
		held <- err
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "started"))
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "the first run did not start")

	var log testkit.AuditLog
	start := time.Now()
	_, _, err := shell(context.Background(), "touch second", &log)
	waited := time.Since(start)
	require.ErrorIs(t, err, errBusy)
	assert.GreaterOrEqual(t, waited, 500*time.Millisecond)
	assert.Less(t, waited, 2500*time.Millisecond, "it waited for the run ahead instead of the bound")
	assert.Contains(t, err.Error(), "shell:-c: too many runs in flight: waited ")
	assert.Contains(t, err.Error(), "1 of 1 runs in flight (--max-runs), 256MiB of ")
	assert.Contains(t, err.Error(), "raise --max-runs or --max-run-memory")
	assert.NoFileExists(t, filepath.Join(ws, "second"), "a refused run changed nothing")
	log.Has(t, "deny run shell:-c", "not started: shell:-c: too many runs in flight")
	assert.Len(t, log.Events(), 1, "a refused run has no other event")

	require.NoError(t, <-held)
	res, _, err := shell(context.Background(), "touch third", &testkit.AuditLog{})
	require.NoError(t, err)
	assert.Equal(t, uint32(0), res.ExitCode)
	assert.FileExists(t, filepath.Join(ws, "third"))
}

// TestRunAdmissionCancel: a run whose caller goes away while it waits
// returns the context's error, and is no refusal.
func TestRunAdmissionCancel(t *testing.T) {
	r := admissionRunner(t, Options{MaxRuns: 1, MaxRunWait: time.Minute})
	ws := t.TempDir()
	var log testkit.AuditLog
	run := func(ctx context.Context, command string) error {
		_, err := r.RunShell(ctx, &ShellRun{ScriptRun: ScriptRun{
			Services: host.Services{Workspace: ws, Auditor: log.Auditor()}, Args: []string{"-c", command},
			Granted: ShellDeclares(), Interpreters: interpreters(t, interp.Shell),
		}})
		return err
	}
	hctx, stop := context.WithCancel(context.Background())
	defer stop()
	held := make(chan error, 1)
	go func() { held <- run(hctx, "touch started; sleep 30") }()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "started"))
		return err == nil
	}, 30*time.Second, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := run(ctx, "true")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, errBusy)
	for _, e := range log.Events() {
		assert.False(t, strings.HasPrefix(e, "deny run"), "a caller gone away is no refusal: %s", e)
	}
	stop()
	<-held
}

// TestRunAdmissionTooLarge: a run whose memory limit alone is over the
// bound of all runs is refused at once as not runnable, audited.
func TestRunAdmissionTooLarge(t *testing.T) {
	r := admissionRunner(t, Options{MaxRunMemory: 64 * capabilities.MiB})
	var log testkit.AuditLog
	start := time.Now()
	_, err := r.RunShell(context.Background(), &ShellRun{ScriptRun: ScriptRun{
		Services: host.Services{Workspace: t.TempDir(), Auditor: log.Auditor()}, Args: []string{"-c", "true"},
		Granted: ShellDeclares(), Interpreters: interpreters(t, interp.Shell),
	}})
	require.ErrorIs(t, err, ErrNotRunnable)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Contains(t, err.Error(), "this run's memory limit 256MiB is more than all runs together may reserve (--max-run-memory 64MiB)")
	log.Has(t, "deny run shell:-c", "--max-run-memory 64MiB")

	// Within the bound (a grant of 32MiB), it runs.
	grant := ShellDeclares()
	grant.Memory = 32 * capabilities.MiB
	res, err := r.RunShell(context.Background(), &ShellRun{ScriptRun: ScriptRun{
		Services: host.Services{Workspace: t.TempDir()}, Args: []string{"-c", "true"},
		Granted: grant, Interpreters: interpreters(t, interp.Shell),
	}})
	require.NoError(t, err)
	assert.Equal(t, uint32(0), res.ExitCode)
}

// TestRunAdmissionNested: runs a run starts (skill_run, nested four deep)
// spend its turn: on a Runner bounded to one run they all run, instead
// of waiting for the turn their caller holds.
func TestRunAdmissionNested(t *testing.T) {
	r := admissionRunner(t, Options{MaxRuns: 1, MaxRunWait: 100 * time.Millisecond})
	self := hostcallSkill(t, "self", `skills = ["self"]`, nil)
	granted := capabilities.Set{Skills: []string{"self"}}
	ix := NewSkillIndex(r, []*skills.Skill{self}, func(string) capabilities.Set { return granted })
	var stdout, out strings.Builder
	res, err := r.RunScript(context.Background(), self, "hostcall", &ScriptRun{
		Stdout: &stdout, Stderr: &stdout, Output: &out, Granted: granted,
		Input: []byte(`{"mode":"recurse"}`), Services: host.Services{Skills: ix},
	})
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, stdout.String())
	assert.Equal(t, strings.Repeat("nested(", host.DefaultMaxDepth)+
		"limit: denied: self:hostcall: skills self denied: skill runs nest at most 4 deep"+
		strings.Repeat(")", host.DefaultMaxDepth), out.String())
	runs, mem := r.admission.InUse()
	assert.Equal(t, 0, runs, "every turn was given back")
	assert.Equal(t, int64(0), mem)
}

// TestRunnerOptionsNegative: a negative bound is a programmer's mistake,
// refused with what to write instead.
func TestRunnerOptionsNegative(t *testing.T) {
	_, err := New(context.Background(), &Options{MaxRuns: -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must not be negative (0 means the default)")
}
