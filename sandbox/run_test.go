package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunExitCode(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		for _, code := range []string{"0", "1", "3", "125"} {
			res, out, err := e.run(t, nil, "exit", code)
			require.NoError(t, err, "exit %s", code)
			assert.Equal(t, code, strconv.FormatUint(uint64(res.ExitCode), 10), "exit %s: ExitCode", code)
			assert.Equal(t, "exiting with "+code+"\n", out.stdout.String(), "exit %s: stdout", code)
		}
	})
	t.Run("returns from _start", func(t *testing.T) {
		e := sharedEnv(t, true)
		m, err := e.r.Compile(context.Background(), modStart(0x0b))
		require.NoError(t, err)
		defer m.Close(context.Background())
		res, err := m.Run(context.Background(), nil)
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, "exit code; result %+v", res)
	})
}

// TestRunSmallModule runs a hand-assembled module that writes with
// fd_write directly, with and without room for its output.
func TestRunSmallModule(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		m, err := e.r.Compile(ctx, modHello())
		require.NoError(t, err)
		defer m.Close(ctx)
		var stdout strings.Builder
		res, err := m.Run(ctx, &RunConfig{Stdout: &stdout})
		if assert.NoError(t, err) {
			assert.Zero(t, res.ExitCode, "exit code; result %+v", res)
			assert.EqualValues(t, 13, res.OutputBytes, "OutputBytes; result %+v", res)
			assert.EqualValues(t, 64<<10, res.PeakMemory, "PeakMemory; result %+v", res)
		}
		assert.Equal(t, "hello, world\n", stdout.String(), "stdout")
		stdout.Reset()
		res, err = m.Run(ctx, &RunConfig{Name: "hello", Stdout: &stdout, Output: 5})
		assert.ErrorIs(t, err, ErrOutputLimit, "with Output 5")
		assert.Equal(t, "hello", stdout.String(), "with Output 5: stdout")
		if assert.NotNil(t, res, "with Output 5: result") {
			assert.EqualValues(t, 5, res.OutputBytes, "with Output 5: OutputBytes; result %+v", res)
		}
	})
}

func TestRunArgsAndStdin(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		args := []string{"echo", "plain", "with space", "ünïcödé", "", "--flag=x"}
		stdin := "line one\nline two\n"
		var stdout strings.Builder
		res, err := e.hostile.Run(context.Background(), &RunConfig{
			Name:   "csv-stats:stats",
			Args:   args,
			Stdin:  io.MultiReader(strings.NewReader(stdin)), // not an in-memory type: goes through stdinReader
			Stdout: &stdout,
		})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, "exit code; result %+v", res)
		want := `arg: "plain"
arg: "with space"
arg: "ünïcödé"
arg: ""
arg: "--flag=x"
` + stdin
		assert.Equal(t, want, stdout.String(), "stdout")
		assert.Equal(t, uint64(len(want)), res.OutputBytes, "OutputBytes")
		assert.NotZero(t, res.PeakMemory, "PeakMemory; result %+v", res)
		assert.Positive(t, res.Duration, "Duration; result %+v", res)
	})
}

func TestRunLargeStdin(t *testing.T) {
	e := sharedEnv(t, false)
	const size = 3<<20 + 17
	r, w := io.Pipe()
	go func() {
		chunk := make([]byte, 1000)
		for left := size; left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk[:min(len(chunk), left)]); err != nil {
				return
			}
		}
		w.Close()
	}()
	res, out, err := e.run(t, &RunConfig{Stdin: r}, "stdin")
	require.NoError(t, err, "stderr: %s", out.stderr.String())
	require.Zero(t, res.ExitCode, "exit code; result %+v, stderr: %s", res, out.stderr.String())
	assert.Equal(t, "read 3145745 bytes\n", out.stdout.String(), "stdout")
}

func TestRunNilConfig(t *testing.T) {
	e := sharedEnv(t, true)
	res, err := e.hostile.Run(context.Background(), nil)
	// No args: the guest prints its usage to stderr (discarded) and exits 2.
	require.NoError(t, err)
	require.EqualValues(t, 2, res.ExitCode, "exit code; result %+v", res)
	assert.NotZero(t, res.OutputBytes, "discarded output should still be counted")
}

func TestRunEnv(t *testing.T) {
	t.Setenv("SKILLRUN_TEST_SECRET", "hunter2") // in the host's environment, not granted
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		res, out, err := e.run(t, &RunConfig{Env: []string{"LANG=C.UTF-8", "EMPTY=", "WITH_EQUALS=a=b"}}, "env")
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, "exit code; result %+v", res)
		want := "LANG=C.UTF-8\nEMPTY=\nWITH_EQUALS=a=b\n"
		assert.Equal(t, want, out.stdout.String(), "environment")
		assert.NotContains(t, out.stdout.String(), "hunter2", "the guest saw a host environment variable it was not granted")

		res, out, err = e.run(t, nil, "env")
		if assert.NoError(t, err, "with no Env") {
			assert.Zero(t, res.ExitCode, "with no Env: exit code; result %+v", res)
		}
		assert.Empty(t, out.stdout.String(), "with no Env: environment")
	})
}

func TestRunConfigErrors(t *testing.T) {
	e := sharedEnv(t, true)
	dir := t.TempDir()
	tests := []struct {
		name string
		cfg  RunConfig
		want string
	}{
		{"env without =", RunConfig{Env: []string{"LANG"}}, `environment entry "LANG" is not KEY=VALUE`},
		{"env empty key", RunConfig{Env: []string{"=x"}}, `environment entry "=x" is not KEY=VALUE`},
		{"relative guest path", RunConfig{Mounts: []Mount{{HostDir: dir, GuestPath: "workspace"}}}, "absolute and clean"},
		{"unclean guest path", RunConfig{Mounts: []Mount{{HostDir: dir, GuestPath: "/a/../workspace"}}}, "absolute and clean"},
		{"mounted twice", RunConfig{Mounts: []Mount{{HostDir: dir, GuestPath: "/w"}, {HostDir: dir, GuestPath: "/w"}}}, "mount /w: mounted twice"},
		{"missing host dir", RunConfig{Mounts: []Mount{{HostDir: filepath.Join(dir, "nope"), GuestPath: "/w"}}}, "mount /w:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []string
			tt.cfg.Name = "skill:script"
			tt.cfg.Args = []string{"echo"}
			tt.cfg.Auditor = audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				events = append(events, e.Kind+" "+string(e.Decision))
			})
			res, err := e.hostile.Run(context.Background(), &tt.cfg)
			require.ErrorContains(t, err, tt.want)
			require.True(t, strings.HasPrefix(err.Error(), "skill:script: "), "error %q does not name the script", err)
			assert.Nil(t, res, "a config error should come with a nil Result")
			if strings.HasPrefix(tt.name, "m") {
				assert.Contains(t, events, "mount deny", "audit events: want a mount denial")
			}
		})
	}
}

// TestRunMounts checks what a module can do in its mounts and the audit
// events that records.
func TestRunMounts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		skill, work := t.TempDir(), t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("# skill\n"), 0o644))
		var mu sync.Mutex
		var events []string
		cfg := &RunConfig{
			Mounts: []Mount{
				{HostDir: skill, GuestPath: "/skill"},
				{HostDir: work, GuestPath: "/workspace", Writable: true},
			},
			Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				kind, value, decision, reason := e.Kind, e.Value, string(e.Decision), e.Reason

				mu.Lock()
				defer mu.Unlock()
				events = append(events, strings.TrimSpace(strings.Join([]string{kind, value, decision, reason}, " ")))
			}),
		}
		run := func(args ...string) string {
			t.Helper()
			mu.Lock()
			events = nil
			mu.Unlock()
			res, out, err := e.run(t, cfg, args...)
			require.NoError(t, err, "%q", args)
			if res.ExitCode != 0 {
				return fmt.Sprintf("exit %d: ", res.ExitCode) + out.stdout.String()
			}
			return out.stdout.String()
		}
		check := func(got, want string) {
			t.Helper()
			assert.Equal(t, want, got)
		}
		wantEvents := func(want ...string) {
			t.Helper()
			mu.Lock()
			defer mu.Unlock()
			for _, w := range want {
				assert.Contains(t, events, w, "audit events")
			}
		}

		check(run("ls", "/"), "skill\nworkspace\n")
		check(run("read", "/skill/SKILL.md"), "# skill\n")
		wantEvents("mount /skill allow read-only", "mount /workspace allow read-write", "fs.open /skill/SKILL.md allow")

		check(run("write", "/workspace/out.txt", "result"), "wrote /workspace/out.txt\n")
		wantEvents("fs.open_write /workspace/out.txt allow")
		b, err := os.ReadFile(filepath.Join(work, "out.txt"))
		if assert.NoError(t, err, "host file") {
			assert.Equal(t, "result", string(b), "host file")
		}
		check(run("mkdir", "/workspace/sub"), "made /workspace/sub\n")
		check(run("ls", "/workspace"), "out.txt\nsub\n")

		// Outside the mounts: nothing but the mount points, read-only.
		check(run("write", "/tmp.txt", "x"), "exit 1: error: open /tmp.txt: Read-only file system\n")
		check(run("mkdir", "/skill"), "exit 1: error: mkdir /skill: Read-only file system\n")
		check(run("read", "/workspace2/x"), "exit 1: error: open /workspace2/x: No such file or directory\n")
	})
}

func TestRunDeterministic(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		clock := func(deterministic bool) string {
			res, out, err := e.run(t, &RunConfig{Deterministic: deterministic}, "clock")
			require.NoError(t, err)
			require.Zero(t, res.ExitCode, "exit code; result %+v", res)
			return out.stdout.String()
		}
		assert.Equal(t, clock(true), clock(true), "deterministic runs differ")
		assert.NotEqual(t, clock(false), clock(false), "real clock and crypto/rand gave the same output twice")
		// A deterministic sleep returns at once.
		start := time.Now()
		res, out, err := e.run(t, &RunConfig{Deterministic: true, Timeout: 20 * time.Second}, "sleep", "1h")
		require.NoError(t, err, "deterministic sleep: result %+v", res)
		require.Equal(t, "slept 1h0m0s\n", out.stdout.String(), "deterministic sleep")
		t.Logf("a deterministic sleep(1h) took %v", time.Since(start))
	})
}

// TestRunCancel cancels the caller's context: that is not a timeout, and
// the error says so.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.hostile.Run(ctx, &RunConfig{Name: "spin", Args: []string{"loop"}, Timeout: time.Minute})
		require.ErrorIs(t, err, context.Canceled)
		require.NotErrorIs(t, err, ErrTimeout)
		assert.EqualError(t, err, "spin: stopped: context canceled")
		assert.LessOrEqual(t, time.Since(start), 10*time.Second, "cancellation took too long")
		e.assertUsable(t)
	})
}

func TestAuditPath(t *testing.T) {
	for _, tt := range []struct{ op, p, want string }{
		{"open", "data/in.csv", "/workspace/data/in.csv"},
		{"open", ".", "/workspace"},
		{"rename", "a -> b/c", "/workspace/a -> /workspace/b/c"},
		{"link", "a -> b", "/workspace/a -> /workspace/b"},
		{"symlink", "../../etc/passwd -> l", "../../etc/passwd -> /workspace/l"},
	} {
		assert.Equal(t, tt.want, auditPath("/workspace", tt.op, tt.p), "auditPath(%q, %q)", tt.op, tt.p)
	}
}
