package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skillrun/skillrun/audit"
)

func TestRunExitCode(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		for _, code := range []string{"0", "1", "3", "125"} {
			res, out, err := e.run(t, nil, "exit", code)
			if err != nil {
				t.Fatalf("exit %s: %v", code, err)
			}
			if got := strconv.FormatUint(uint64(res.ExitCode), 10); got != code {
				t.Errorf("exit %s: ExitCode %s", code, got)
			}
			if want := "exiting with " + code + "\n"; out.stdout.String() != want {
				t.Errorf("exit %s: stdout %q, want %q", code, out.stdout.String(), want)
			}
		}
	})
	t.Run("returns from _start", func(t *testing.T) {
		e := sharedEnv(t, true)
		m, err := e.r.Compile(context.Background(), modStart(0x0b))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		res, err := m.Run(context.Background(), nil)
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("got %+v, %v; want exit code 0", res, err)
		}
	})
}

// TestRunSmallModule runs a hand-assembled module that writes with
// fd_write directly, with and without room for its output.
func TestRunSmallModule(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		m, err := e.r.Compile(ctx, modHello())
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(ctx)
		var stdout strings.Builder
		res, err := m.Run(ctx, &RunConfig{Stdout: &stdout})
		if err != nil || res.ExitCode != 0 || stdout.String() != "hello, world\n" || res.OutputBytes != 13 || res.PeakMemory != 64<<10 {
			t.Errorf("got %+v, %v, %q", res, err, stdout.String())
		}
		stdout.Reset()
		res, err = m.Run(ctx, &RunConfig{Name: "hello", Stdout: &stdout, Output: 5})
		if !errors.Is(err, ErrOutputLimit) || stdout.String() != "hello" || res.OutputBytes != 5 {
			t.Errorf("with Output 5: got %+v, %v, %q", res, err, stdout.String())
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
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("got %+v, %v", res, err)
		}
		want := `arg: "plain"
arg: "with space"
arg: "ünïcödé"
arg: ""
arg: "--flag=x"
` + stdin
		if diff := cmp.Diff(want, stdout.String()); diff != "" {
			t.Errorf("stdout mismatch (-want +got):\n%s", diff)
		}
		if res.OutputBytes != uint64(len(want)) {
			t.Errorf("OutputBytes = %d, want %d", res.OutputBytes, len(want))
		}
		if res.PeakMemory == 0 || res.Duration <= 0 {
			t.Errorf("Result %+v: want PeakMemory and Duration", res)
		}
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
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("got %+v, %v, %s", res, err, out.stderr.String())
	}
	if got, want := out.stdout.String(), "read 3145745 bytes\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}

func TestRunNilConfig(t *testing.T) {
	e := sharedEnv(t, true)
	res, err := e.hostile.Run(context.Background(), nil)
	// No args: the guest prints its usage to stderr (discarded) and exits 2.
	if err != nil || res.ExitCode != 2 {
		t.Fatalf("got %+v, %v; want exit code 2", res, err)
	}
	if res.OutputBytes == 0 {
		t.Error("discarded output should still be counted")
	}
}

func TestRunEnv(t *testing.T) {
	t.Setenv("SKILLRUN_TEST_SECRET", "hunter2") // in the host's environment, not granted
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		res, out, err := e.run(t, &RunConfig{Env: []string{"LANG=C.UTF-8", "EMPTY=", "WITH_EQUALS=a=b"}}, "env")
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("got %+v, %v", res, err)
		}
		want := "LANG=C.UTF-8\nEMPTY=\nWITH_EQUALS=a=b\n"
		if diff := cmp.Diff(want, out.stdout.String()); diff != "" {
			t.Errorf("environment mismatch (-want +got):\n%s", diff)
		}
		if strings.Contains(out.stdout.String(), "hunter2") {
			t.Error("the guest saw a host environment variable it was not granted")
		}

		res, out, err = e.run(t, nil, "env")
		if err != nil || res.ExitCode != 0 || out.stdout.String() != "" {
			t.Errorf("with no Env: got %+v, %v, environment %q; want none", res, err, out.stdout.String())
		}
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
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "skill:script: ") {
				t.Fatalf("got %v, want an error naming the script and containing %q", err, tt.want)
			}
			if res != nil {
				t.Errorf("a config error should come with a nil Result, got %+v", res)
			}
			if strings.HasPrefix(tt.name, "m") && !slices.Contains(events, "mount deny") {
				t.Errorf("audit events %q: want a mount denial", events)
			}
		})
	}
}

// TestRunMounts checks what a module can do in its mounts and the audit
// events that records.
func TestRunMounts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		skill, work := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("# skill\n"), 0o644); err != nil {
			t.Fatal(err)
		}
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
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			if res.ExitCode != 0 {
				return fmt.Sprintf("exit %d: ", res.ExitCode) + out.stdout.String()
			}
			return out.stdout.String()
		}
		check := func(got, want string) {
			t.Helper()
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}
		wantEvents := func(want ...string) {
			t.Helper()
			mu.Lock()
			defer mu.Unlock()
			for _, w := range want {
				if !slices.Contains(events, w) {
					t.Errorf("audit events %q lack %q", events, w)
				}
			}
		}

		check(run("ls", "/"), "skill\nworkspace\n")
		check(run("read", "/skill/SKILL.md"), "# skill\n")
		wantEvents("mount /skill allow read-only", "mount /workspace allow read-write", "fs.open /skill/SKILL.md allow")

		check(run("write", "/workspace/out.txt", "result"), "wrote /workspace/out.txt\n")
		wantEvents("fs.open_write /workspace/out.txt allow")
		if b, err := os.ReadFile(filepath.Join(work, "out.txt")); err != nil || string(b) != "result" {
			t.Errorf("host file: %q, %v", b, err)
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
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("got %+v, %v", res, err)
			}
			return out.stdout.String()
		}
		if a, b := clock(true), clock(true); a != b {
			t.Errorf("deterministic runs differ: %q and %q", a, b)
		}
		if a, b := clock(false), clock(false); a == b {
			t.Errorf("real clock and crypto/rand gave the same output twice: %q", a)
		}
		// A deterministic sleep returns at once.
		start := time.Now()
		res, out, err := e.run(t, &RunConfig{Deterministic: true, Timeout: 20 * time.Second}, "sleep", "1h")
		if err != nil || out.stdout.String() != "slept 1h0m0s\n" {
			t.Fatalf("deterministic sleep: %+v, %v, %q", res, err, out.stdout.String())
		}
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
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want context.Canceled and not ErrTimeout", err)
		}
		if want := "spin: stopped: context canceled"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("cancellation took %v", d)
		}
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
		if got := auditPath("/workspace", tt.op, tt.p); got != tt.want {
			t.Errorf("auditPath(%q, %q) = %q, want %q", tt.op, tt.p, got, tt.want)
		}
	}
}
