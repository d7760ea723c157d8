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
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 1 || out.stdout.String() != "error: open /etc/passwd: No such file or directory\n" {
			t.Errorf("got exit %d, stdout %q; want ENOENT", res.ExitCode, out.stdout.String())
		}
		res, out, err = e.run(t, nil, "ls", "/")
		if err != nil || res.ExitCode != 0 || out.stdout.String() != "" {
			t.Errorf("ls / without mounts: %+v, %v, %q; want an empty root", res, err, out.stdout.String())
		}
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
			if err != nil {
				t.Fatalf("%q: %v", tt.args, err)
			}
			if got := out.stdout.String(); got != tt.want {
				t.Errorf("%q: got %q, want %q", tt.args, got, tt.want)
			}
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
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			got := out.stdout.String()
			if res.ExitCode != 1 || !strings.HasPrefix(got, "error: ") || strings.Contains(got, "SECRET") || strings.Contains(got, "root:") {
				t.Errorf("%q escaped the mount: exit %d, stdout %q", args, res.ExitCode, got)
			} else {
				t.Logf("%q: %s", args, strings.TrimSpace(got))
			}
		}
		if b, err := os.ReadFile(filepath.Join(ws, "..", "secret.txt")); err != nil || string(b) != "SECRET" {
			t.Errorf("the secret outside the mount was changed: %q, %v", b, err)
		}
		if len(denied) == 0 {
			t.Error("no audit denials recorded for the escapes")
		}
		e.assertUsable(t)
	})
}

func TestAttackWriteReadOnly(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		skill := t.TempDir()
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("original"), 0o644); err != nil {
			t.Fatal(err)
		}
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
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 1 || !strings.Contains(out.stdout.String(), "Read-only file system") {
				t.Errorf("%q: exit %d, stdout %q; want EROFS", tt.args, res.ExitCode, out.stdout.String())
			}
		}
		if b, _ := os.ReadFile(filepath.Join(skill, "SKILL.md")); string(b) != "original" {
			t.Errorf("read-only file changed to %q", b)
		}
		if entries, _ := os.ReadDir(skill); len(entries) != 1 {
			t.Errorf("read-only mount has %d entries, want 1", len(entries))
		}
		want := []string{
			"fs.open_write /skill/SKILL.md: read-only file system",
			"fs.open_write /skill/new.txt: read-only file system",
			"fs.mkdir /skill/dir: read-only file system",
		}
		if strings.Join(denied, "\n") != strings.Join(want, "\n") {
			t.Errorf("audit denials:\n%s\nwant:\n%s", strings.Join(denied, "\n"), strings.Join(want, "\n"))
		}
		e.assertUsable(t)
	})
}

// checkSandboxError checks that err is a sandbox failure of kind, that its
// message starts with the script's name and contains want.
func checkSandboxError(t *testing.T, err, kind error, want string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("got error %v, want %v", err, kind)
	}
	for _, other := range []error{ErrTimeout, ErrMemoryLimit, ErrOutputLimit, ErrTrap} {
		if !errors.Is(kind, other) && errors.Is(err, other) {
			t.Errorf("error %q also matches %v", err, other)
		}
	}
	if !strings.HasPrefix(err.Error(), "hostile: ") || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q: want it to name the script and contain %q", err, want)
	}
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
				if took < timeout || took > timeout+slack {
					t.Errorf("took %v, want %v (+ at most %v)", took, timeout, slack)
				}
				if res == nil || res.Duration < timeout || res.ExitCode != 0 {
					t.Errorf("Result %+v: want Duration ≥ %v and no exit code", res, timeout)
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
		if res.ExitCode != 2 || !strings.Contains(out.stderr.String(), "out of memory") {
			t.Errorf("exit %d, stderr %.200q; want Go's out-of-memory exit", res.ExitCode, out.stderr.String())
		}
		if res.PeakMemory == 0 || res.PeakMemory > limit {
			t.Errorf("PeakMemory %d, want in (0, %d]", res.PeakMemory, limit)
		}
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
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close(ctx)
				res, err := m.Run(ctx, &RunConfig{Name: "hostile", Memory: 1 << 20})
				checkSandboxError(t, err, ErrMemoryLimit, tt.want)
				if res == nil || res.ExitCode != 0 || res.PeakMemory > 1<<20 && !strings.Contains(tt.name, "hidden") {
					t.Errorf("Result %+v", res)
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
		if stdout.Len() != limit {
			t.Errorf("captured %d bytes, want exactly %d", stdout.Len(), limit)
		}
		line := strings.Repeat("x", 63) + "\n"
		if want := strings.Repeat(line, limit/len(line)); stdout.String() != want {
			t.Error("the captured output is not the module's first MiB")
		}
		if res.OutputBytes != limit {
			t.Errorf("OutputBytes %d, want %d", res.OutputBytes, limit)
		}
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
	if both.String() != "unknown mo" || res.OutputBytes != 10 {
		t.Errorf("captured %q (%d bytes), want the first 10 bytes of the message", both.String(), res.OutputBytes)
	}
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
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		m, err := e.r.Compile(context.Background(), modRecurse())
		if err != nil {
			t.Fatal(err)
		}
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
		if res == nil || res.PeakMemory > 32<<20 {
			t.Errorf("Result %+v", res)
		}
		e.assertUsable(t)
	})
}

func TestAttackTrap(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		m, err := e.r.Compile(context.Background(), modUnreachable())
		if err != nil {
			t.Fatal(err)
		}
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
		if err := os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("guest: %s", strings.TrimSpace(out.stdout.String()))
		// The mount's root directory is open too, so the module gets one
		// file fewer than the cap.
		want := "opened 1023, then error: open /workspace/f: Try again\n"
		if res.ExitCode != 1 || out.stdout.String() != want {
			t.Errorf("exit %d, stdout %q; want %q", res.ExitCode, out.stdout.String(), want)
		}
		if len(denials) != 1 || denials[0] != "fs.open /workspace/f: too many open files (at most 1024 per run)" {
			t.Errorf("audit denials %q", denials)
		}
		if after := openFDs(t); before >= 0 && after > before {
			t.Errorf("the host holds %d file descriptors after the run, %d before", after, before)
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
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := w.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	e.assertUsable(t)
}
