package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/testkit"
)

// Attack tests: each runs one thing a hostile skill script might try,
// checks that the sandbox held and said so clearly, then checks that the
// same Runtime still runs a normal module (testEnv.assertUsable).

// slack is how much longer than its timeout a stopped run may take: the
// time wazero needs to notice, plus a generous margin for -race on a busy
// machine.
const slack = 10 * time.Second

func TestAttackReadHostFile(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		// No mounts at all: the host's files do not exist for the module.
		res, out, err := e.run(t, nil, "read", "/etc/passwd")
		require.NoError(t, err)
		assert.EqualValues(t, 1, res.ExitCode, "exit code; want ENOENT")
		assert.Equal(t, "error: open /etc/passwd: No such file or directory\n", out.stdout.String(), "stdout; want ENOENT")
		res, out, err = e.run(t, nil, "ls", "/")
		if assert.NoError(t, err, "ls / without mounts") {
			assert.Zero(t, res.ExitCode, "ls / without mounts: exit code")
		}
		assert.Empty(t, out.stdout.String(), "ls / without mounts: want an empty root")
		e.assertUsable(t)
	})
}

func TestAttackDotDot(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		cfg := &RunConfig{Mounts: []Mount{{HostDir: testkit.EscapeFixture(t), GuestPath: "/workspace", Writable: true}}}
		tests := []struct {
			args []string
			want string
		}{
			// Go cleans the path before the host sees it: /secret.txt is
			// outside every mount.
			{[]string{"read", "/workspace/../secret.txt"}, "error: open /workspace/../secret.txt: No such file or directory\n"},
			{[]string{"read", "/workspace/sub/../../secret.txt"}, "error: open /workspace/sub/../../secret.txt: No such file or directory\n"},
			// Raw path_open on the /workspace descriptor (3): wazero refuses
			// any path that climbs out of the directory.
			{[]string{"rawread", "3", "../secret.txt"}, "error: path_open \"../secret.txt\": Operation not permitted\n"},
			{[]string{"rawread", "3", "sub/../../secret.txt"}, "error: path_open \"sub/../../secret.txt\": Operation not permitted\n"},
			{[]string{"rawread", "3", "/etc/passwd"}, "error: path_open \"/etc/passwd\": Operation not permitted\n"},
			{[]string{"write", "/workspace/../planted.txt", "x"}, "error: open /workspace/../planted.txt: Read-only file system\n"},
			// Inside is fine.
			{[]string{"rawread", "3", "sub/../ok.txt"}, "fine"},
		}
		for _, tt := range tests {
			_, out, err := e.run(t, cfg, tt.args...)
			require.NoError(t, err, "%q", tt.args)
			assert.Equal(t, tt.want, out.stdout.String(), "%q", tt.args)
		}
		e.assertUsable(t)
	})
}

func TestAttackSymlinkEscape(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ws := testkit.EscapeFixture(t)
		var denied []string
		cfg := &RunConfig{
			Mounts: []Mount{{HostDir: ws, GuestPath: "/workspace", Writable: true}},
			Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				if e.Decision == audit.Deny {
					denied = append(denied, e.Kind+" "+e.Value)
				}
			}),
		}
		for _, args := range [][]string{
			{"read", "/workspace/rel"},
			{"read", "/workspace/abs"},
			{"read", "/workspace/parent/secret.txt"},
			{"read", "/workspace/root/etc/passwd"},
			{"read", "/workspace/sub/up"},
			{"rawread", "3", "rel"},
			{"ls", "/workspace/parent"},
			{"write", "/workspace/rel", "overwritten"}, // through the link to the secret
		} {
			res, out, err := e.run(t, cfg, args...)
			require.NoError(t, err, "%q", args)
			got := out.stdout.String()
			assert.EqualValues(t, 1, res.ExitCode, "%q escaped the mount: stdout %q", args, got)
			assert.True(t, strings.HasPrefix(got, "error: "), "%q escaped the mount: stdout %q", args, got)
			assert.NotContains(t, got, "SECRET", "%q escaped the mount", args)
			assert.NotContains(t, got, "root:", "%q escaped the mount", args)
			t.Logf("%q: %s", args, strings.TrimSpace(got))
		}
		b, err := os.ReadFile(filepath.Join(ws, "..", "secret.txt"))
		if assert.NoError(t, err, "the secret outside the mount") {
			assert.Equal(t, "SECRET", string(b), "the secret outside the mount was changed")
		}
		assert.NotEmpty(t, denied, "no audit denials recorded for the escapes")
		e.assertUsable(t)
	})
}

func TestAttackWriteReadOnly(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		skill := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("original"), 0o644))
		var denied []string
		cfg := &RunConfig{
			Mounts: []Mount{{HostDir: skill, GuestPath: "/skill"}},
			Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				kind, value, decision, reason := e.Kind, e.Value, string(e.Decision), e.Reason

				if decision == "deny" {
					denied = append(denied, kind+" "+value+": "+reason)
				}
			}),
		}
		for _, tt := range []struct{ args []string }{
			{[]string{"write", "/skill/SKILL.md", "pwned"}},
			{[]string{"write", "/skill/new.txt", "x"}},
			{[]string{"mkdir", "/skill/dir"}},
		} {
			res, out, err := e.run(t, cfg, tt.args...)
			require.NoError(t, err)
			assert.EqualValues(t, 1, res.ExitCode, "%q: exit code; want EROFS", tt.args)
			assert.Contains(t, out.stdout.String(), "Read-only file system", "%q: want EROFS", tt.args)
		}
		b, _ := os.ReadFile(filepath.Join(skill, "SKILL.md"))
		assert.Equal(t, "original", string(b), "read-only file changed")
		entries, _ := os.ReadDir(skill)
		assert.Len(t, entries, 1, "entries of the read-only mount")
		want := []string{
			"fs.open_write /skill/SKILL.md: read-only file system",
			"fs.open_write /skill/new.txt: read-only file system",
			"fs.mkdir /skill/dir: read-only file system",
		}
		assert.Equal(t, want, denied, "audit denials")
		e.assertUsable(t)
	})
}

// checkSandboxError checks that err is a sandbox failure of kind, that its
// message starts with the script's name and contains want.
func checkSandboxError(t *testing.T, err, kind error, want string) {
	t.Helper()
	require.ErrorIs(t, err, kind)
	for _, other := range []error{ErrTimeout, ErrMemoryLimit, ErrOutputLimit, ErrTrap} {
		if !errors.Is(kind, other) {
			assert.NotErrorIs(t, err, other, "the error also matches another kind")
		}
	}
	assert.True(t, strings.HasPrefix(err.Error(), "hostile: "), "error %q: want it to name the script", err)
	assert.ErrorContains(t, err, want)
}

func TestAttackTimeout(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	for _, tt := range []struct {
		name string
		args []string
		cfg  RunConfig
	}{
		{"busy loop", []string{"loop"}, RunConfig{}},
		{"sleep 1h", []string{"sleep", "1h"}, RunConfig{}},
		// A reader that never returns, like a terminal nobody types in.
		{"blocked stdin", []string{"stdin"}, RunConfig{Stdin: blockingReader{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forEachEngine(t, func(t *testing.T, e *testEnv) {
				cfg := tt.cfg
				cfg.Timeout = timeout
				start := time.Now()
				res, _, err := e.run(t, &cfg, tt.args...)
				took := time.Since(start)
				checkSandboxError(t, err, ErrTimeout, "hostile: timed out after 1s")
				assert.GreaterOrEqual(t, took, timeout, "took less than the timeout")
				assert.LessOrEqual(t, took, timeout+slack, "took more than the timeout %v + at most %v", timeout, slack)
				if assert.NotNil(t, res, "Result") {
					assert.GreaterOrEqual(t, res.Duration, timeout, "Result %+v: want Duration ≥ %v", res, timeout)
					assert.Zero(t, res.ExitCode, "Result %+v: want no exit code", res)
				}
				e.assertUsable(t)
			})
		})
	}
}

// blockingReader blocks forever, like a terminal nobody types in.
type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

func TestAttackMemoryBomb(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		const limit = 32 << 20
		res, out, err := e.run(t, &RunConfig{Memory: limit}, "membomb")
		checkSandboxError(t, err, ErrMemoryLimit, "memory limit 32MiB reached (the module asked to grow to ")
		// Go's runtime reports the refused grow and exits with code 2.
		assert.EqualValues(t, 2, res.ExitCode, "exit code; want Go's out-of-memory exit")
		assert.True(t, strings.Contains(out.stderr.String(), "out of memory"), "stderr %.200q; want Go's out-of-memory exit", out.stderr.String())
		assert.NotZero(t, res.PeakMemory, "PeakMemory")
		assert.LessOrEqual(t, res.PeakMemory, uint64(limit), "PeakMemory")
		e.assertUsable(t)
	})
}

// TestAttackMemoryRaw grows memory with memory.grow until it fails and
// then returns normally: the run still fails, because the limit was hit.
func TestAttackMemoryRaw(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		tests := []struct {
			name string
			wasm []byte
			want string
		}{
			{"grow until refused", modMemory(1, true, 16), "memory limit 1MiB reached (the module asked to grow to 1088KiB)"},
			{"initial memory over the limit", modMemory(32, true, 1), "memory limit 1MiB reached (the module needs 2MiB before it starts)"},
			{"hidden initial memory over the limit", modMemory(32, false, 1), "memory limit 1MiB reached (the module asked to grow to 2MiB)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				m, err := e.r.Compile(ctx, tt.wasm)
				require.NoError(t, err)
				defer m.Close(ctx)
				res, err := m.Run(ctx, &RunConfig{Name: "hostile", Memory: 1 << 20})
				checkSandboxError(t, err, ErrMemoryLimit, tt.want)
				if assert.NotNil(t, res, "Result") {
					assert.Zero(t, res.ExitCode, "Result %+v: exit code", res)
					if !strings.Contains(tt.name, "hidden") {
						assert.LessOrEqual(t, res.PeakMemory, uint64(1<<20), "Result %+v: PeakMemory", res)
					}
				}
			})
		}
		e.assertUsable(t)
	})
}

func TestAttackOutputFlood(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		const limit = 1 << 20
		var stdout bytes.Buffer
		res, _, err := e.run(t, &RunConfig{Output: limit, Stdout: &stdout}, "flood", "100000000")
		checkSandboxError(t, err, ErrOutputLimit, "output limit 1MiB reached; output was cut there")
		assert.Equal(t, limit, stdout.Len(), "captured bytes")
		line := strings.Repeat("x", 63) + "\n"
		// Compared as a bool: a diff of a MiB would drown the report.
		want := strings.Repeat(line, limit/len(line))
		assert.True(t, stdout.String() == want, "the captured output is not the module's first MiB")
		assert.EqualValues(t, limit, res.OutputBytes, "OutputBytes")
		e.assertUsable(t)
	})
}

// TestAttackOutputSplit floods stdout and stderr together: the limit is
// shared.
func TestAttackOutputSplit(t *testing.T) {
	e := sharedEnv(t, false)
	var both lockedBuffer
	// The guest's usage message goes to stderr; stdout and stderr share
	// one writer here.
	res, err := e.hostile.Run(context.Background(), &RunConfig{
		Name: "hostile", Args: []string{"nonsense-mode"}, Output: 10, Stdout: &both, Stderr: &both,
	})
	checkSandboxError(t, err, ErrOutputLimit, "output limit 10B reached")
	assert.Equal(t, "unknown mo", both.String(), "captured output; want the first 10 bytes of the message")
	assert.EqualValues(t, 10, res.OutputBytes, "OutputBytes; want the first 10 bytes of the message")
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAttackRecursion: unbounded recursion never crashes the host. A
// hand-written module that calls itself overflows wazero's call stack: a
// trap. A Go guest keeps two stacks, Go's own in linear memory and wazero's
// call stack, and fails on whichever limit it reaches first: the call stack
// (a trap; the interpreter allows 2000 nested calls, the compiler about
// 50 MB of native stack) or the memory limit, when Go doubles its stack
// (ErrMemoryLimit). Both are honest verdicts, so both are accepted here.
func TestAttackRecursion(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: recurses to the stack or memory limit on both engines (1.4 s); the full suite runs it")
	}
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		m, err := e.r.Compile(context.Background(), modRecurse())
		require.NoError(t, err)
		defer m.Close(context.Background())
		_, err = m.Run(context.Background(), &RunConfig{Name: "hostile"})
		checkSandboxError(t, err, ErrTrap, "hostile: trap: wasm error: stack overflow")

		res, _, err := e.run(t, &RunConfig{Memory: 32 << 20}, "recurse")
		if errors.Is(err, ErrMemoryLimit) {
			checkSandboxError(t, err, ErrMemoryLimit, "memory limit 32MiB reached")
		} else {
			checkSandboxError(t, err, ErrTrap, "hostile: trap: wasm error: stack overflow")
		}
		t.Logf("Go guest: %.120s", err)
		if assert.NotNil(t, res, "Result") {
			assert.LessOrEqual(t, res.PeakMemory, uint64(32<<20), "Result %+v: PeakMemory", res)
		}
		e.assertUsable(t)
	})
}

func TestAttackTrap(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		m, err := e.r.Compile(context.Background(), modUnreachable())
		require.NoError(t, err)
		defer m.Close(context.Background())
		_, err = m.Run(context.Background(), &RunConfig{Name: "hostile"})
		checkSandboxError(t, err, ErrTrap, "hostile: trap: wasm error: unreachable")
		e.assertUsable(t)
	})
}

// TestAttackOpenFiles opens one file 5000 times. Every open is a host file
// descriptor, so a run may hold at most maxOpenFiles; past that the
// module's open fails (EAGAIN), the audit says why, and when the run ends
// the host has every descriptor back.
func TestAttackOpenFiles(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ws := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644))
		var mu sync.Mutex
		var denials []string
		cfg := &RunConfig{
			Mounts: []Mount{{HostDir: ws, GuestPath: "/workspace"}},
			Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				kind, value, decision, reason := e.Kind, e.Value, string(e.Decision), e.Reason

				if decision == "deny" {
					mu.Lock()
					denials = append(denials, kind+" "+value+": "+reason)
					mu.Unlock()
				}
			}),
		}
		before := openFDs(t)
		res, out, err := e.run(t, cfg, "openfiles", "5000", "/workspace/f")
		require.NoError(t, err)
		t.Logf("guest: %s", strings.TrimSpace(out.stdout.String()))
		// The mount's root directory is open too, so the module gets one
		// file fewer than the cap.
		want := "opened 1023, then error: open /workspace/f: Try again\n"
		assert.EqualValues(t, 1, res.ExitCode, "exit code")
		assert.Equal(t, want, out.stdout.String(), "stdout")
		assert.Equal(t, []string{"fs.open /workspace/f: too many open files (at most 1024 per run)"}, denials, "audit denials")
		if after := openFDs(t); before >= 0 {
			assert.LessOrEqual(t, after, before, "file descriptors the host holds after the run, beyond those before")
		}
		e.assertUsable(t)
	})
}

// openFDs counts this process's open file descriptors, or returns -1 where
// that is not easy to know.
func openFDs(t *testing.T) int {
	if goruntime.GOOS != "linux" {
		return -1
	}
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries)
}

// TestAttackStdinAfterRun checks that a stdin read abandoned by a stopped
// run never writes into the module's memory later: the pending read ends
// after the run, and its bytes are dropped.
func TestAttackStdinAfterRun(t *testing.T) {
	e := sharedEnv(t, false)
	r, w := io.Pipe()
	_, _, err := e.run(t, &RunConfig{Stdin: r, Timeout: 300 * time.Millisecond}, "stdin")
	checkSandboxError(t, err, ErrTimeout, "timed out")
	// The abandoned read completes now, after the module is gone.
	_, err = w.Write([]byte("late"))
	require.NoError(t, err)
	w.Close()
	e.assertUsable(t)
}
