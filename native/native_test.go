package native

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

func TestMain(m *testing.M) {
	Main() // the confining helper, when Run re-executes this binary
	os.Exit(m.Run())
}

// requireConfinement fails where CI promises the kernel can confine
// (REQUIRE_TOOLCHAINS=1) and skips elsewhere.
func requireConfinement(t *testing.T) {
	t.Helper()
	if err := Check(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// A box is a skill folder, a workspace, and outside them a secret.
type box struct {
	skill, workspace, outside, secret string
}

func newBox(t *testing.T) *box {
	t.Helper()
	b := &box{skill: t.TempDir(), workspace: t.TempDir(), outside: t.TempDir()}
	b.secret = filepath.Join(b.outside, "secret.txt")
	require.NoError(t, os.WriteFile(b.secret, []byte("TOP-SECRET"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(b.skill, "SKILL.md"), []byte("skill"), 0o644))
	return b
}

// bash runs script with bash under the box's confinement: the skill
// read-only, the workspace read-write, the system read-only.
func (b *box) bash(t *testing.T, script string, edit func(*Spec)) (*Result, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	spec := &Spec{Path: "/bin/bash", Args: []string{"bash", "-c", script},
		Env:      []string{"PATH=/usr/bin:/bin", "WS=" + b.workspace, "SKILL=" + b.skill, "SECRET=" + b.secret, "OUTSIDE=" + b.outside},
		Dir:      b.workspace,
		ReadOnly: append([]string{b.skill}, SystemPaths...), ReadWrite: []string{b.workspace},
		Stdout: &stdout, Stderr: &stderr, Timeout: 20 * time.Second, Memory: 64 << 20}
	if edit != nil {
		edit(spec)
	}
	res, err := Run(context.Background(), spec)
	require.NoError(t, err)
	return res, stdout.String(), stderr.String()
}

// TestRun: a program runs with its arguments, environment (HOME and
// TMPDIR its own), working folder and exit status.
func TestRun(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	res, out, _ := b.bash(t, `echo "args:$0 pwd:$(pwd)"; env | sort | cut -d= -f1 | tr '\n' ' '; echo hi > "$TMPDIR/x" && cat "$HOME/x"; exit 3`, nil)
	assert.Equal(t, 3, res.ExitCode)
	assert.Contains(t, out, "args:bash pwd:"+b.workspace)
	assert.Contains(t, out, "\nHOME OUTSIDE PATH PWD SECRET SHLVL SKILL TMPDIR WS _ hi\n", "the environment given, HOME and TMPDIR, and bash's own")
	assert.NotEmpty(t, res.ProcLimit)
}

// TestAttacks: each attack a script could make on the host, run natively
// in the box: each is refused, and nothing outside the box changes.
func TestAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: one boxed process per attack on the host (1.3 s); the full suite runs it")
	}
	requireConfinement(t)
	home, _ := os.UserHomeDir()
	for _, c := range []struct {
		name, script string
		// want is in the combined output; never is not.
		want, never string
	}{
		{"read the user's home", `ls -a "` + home + `" && echo LISTED`, "Permission denied", "LISTED"},
		{"read a secret outside", `cat "$SECRET"`, "Permission denied", "TOP-SECRET"},
		{"read another skill", `cat "$OUTSIDE/../"*/SKILL.md 2>&1; ls "$(dirname "$SKILL")" && echo LISTED`, "Permission denied", "LISTED"},
		{"read /etc/shadow", `cat /etc/shadow && echo READ`, "Permission denied", "READ"},
		{"read /etc/passwd", `cat /etc/passwd && echo READ`, "Permission denied", "READ"},
		{"write outside", `echo x > "$OUTSIDE/new" && echo WROTE`, "Permission denied", "WROTE"},
		{"write the skill", `echo x > "$SKILL/new" && echo WROTE`, "Permission denied", "WROTE"},
		{"write /tmp", `echo x > /tmp/skillrun-native-escape && echo WROTE`, "Permission denied", "WROTE"},
		{"symlink out", `ln -s "$SECRET" "$WS/link" && cat "$WS/link" && echo READ`, "Permission denied", "TOP-SECRET"},
		{"hard link out", `ln "$SECRET" "$WS/hard" && cat "$WS/hard"`, "", "TOP-SECRET"},
		{"rename out", `echo x > "$WS/f" && mv "$WS/f" "$OUTSIDE/f" && echo MOVED`, "", "MOVED"},
		{"signal the parent", fmt.Sprintf(`kill -KILL %d && echo KILLED; kill -KILL 1 && echo SELF`, os.Getpid()), "No such process", "KILLED"},
		// PR_GET_NO_NEW_PRIVS (39) is 1: no set-user-ID program gains a privilege.
		// HOME and TMPDIR are one tmpfs bounded like the memory (64 MiB
		// here), not the host's /tmp: files each under RLIMIT_FSIZE cannot
		// add up to fill the disk.
		{"fill TMPDIR", `for i in $(seq 1 40); do head -c 8M /dev/zero > "$TMPDIR/f$i" || break; done; echo "total=$(du -sm "$TMPDIR" | cut -f1)MB"`, "No space left on device", "total=320MB"},
		{"gain privileges", `python3 -c 'import ctypes; print("nnp=%d" % ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))'`, "nnp=1", "nnp=0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBox(t)
			_, out, errOut := b.bash(t, c.script, nil)
			all := out + errOut
			if c.want != "" {
				assert.Contains(t, all, c.want)
			}
			assert.NotContains(t, all, c.never)
			entries, err := os.ReadDir(b.outside)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "nothing new outside the box")
			data, err := os.ReadFile(b.secret)
			require.NoError(t, err)
			assert.Equal(t, "TOP-SECRET", string(data))
		})
	}
	assert.NoFileExists(t, "/tmp/skillrun-native-escape")
}

// TestNoNetwork: no connection leaves the box, not even to the host's
// loopback, where the test listens.
func TestNoNetwork(t *testing.T) {
	requireConfinement(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := testkit.Accepted(ln)
	port := ln.Addr().(*net.TCPAddr).Port
	b := newBox(t)
	_, out, errOut := b.bash(t, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED; exec 4<>/dev/tcp/1.1.1.1/80 && echo OUT`, port), nil)
	assert.NotContains(t, out, "CONNECTED")
	assert.NotContains(t, out, "OUT")
	assert.Contains(t, errOut, "connect: ", "each connection is refused (Landlock's TCP rule first; the empty network namespace besides)")
	select {
	case <-accepted:
		require.FailNow(t, "the host's loopback accepted a connection from the box")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestNoUnixSockets is the escape through a same-user UNIX socket: the
// program finds a socket by path (skillrun's resident in its 0700 cache
// folder, an ssh-agent, the session bus) and connects, which Landlock
// below ABI 9 does not govern. It cannot even make the socket; socket
// pairs between its own processes still work.
func TestNoUnixSockets(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	sock := filepath.Join(b.outside, "resident.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer ln.Close()
	accepted := testkit.Accepted(ln)
	script := `import socket, sys
for kind, addr in ((socket.SOCK_STREAM, sys.argv[1]), (socket.SOCK_DGRAM, sys.argv[1]), (socket.SOCK_STREAM, "\0abstract")):
    try:
        s = socket.socket(socket.AF_UNIX, kind)
        s.connect(addr)
        print("CONNECTED", addr)
    except OSError as e:
        print("refused:", e.errno == 13)
a, b = socket.socketpair()
a.sendall(b"pair"); print(b.recv(4).decode())
`
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), &Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script, sock},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: b.workspace,
		ReadOnly: append([]string{b.skill}, SystemPaths...), ReadWrite: []string{b.workspace},
		Stdout: &stdout, Stderr: &stderr, Timeout: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, stderr.String())
	assert.Equal(t, "refused: True\nrefused: True\nrefused: True\npair\n", stdout.String())
	select {
	case <-accepted:
		require.FailNow(t, "the confined program reached a UNIX socket outside its grant")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestForkBomb: forks past the process bound fail; the run ends.
func TestForkBomb(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	const bomb = `python3 -c '
import os, time
n = 0
for i in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        print("fork failed:", e.strerror)
        break
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    n += 1
print("forked", n)
'`
	res, out, errOut := b.bash(t, bomb, func(s *Spec) { s.Procs = 16 })
	t.Logf("process limit: %s; %s; stderr %s", res.ProcLimit, out, errOut)
	assert.Contains(t, out, "fork failed: Resource temporarily unavailable")
	assert.NotContains(t, out, "forked 200")
}

// TestMemoryBomb: an allocation past the memory bound fails in the
// program; the host is untouched.
func TestMemoryBomb(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	res, _, errOut := b.bash(t, `python3 -c 'x = bytearray(8 << 30); print(len(x))'`, func(s *Spec) { s.Memory = 512 << 20 })
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, errOut, "MemoryError")
}

// TestOrphan: a background process that detaches (a new session) dies
// with the run: its heartbeat stops when Run returns.
func TestOrphan(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	res, _, _ := b.bash(t, `setsid bash -c 'while :; do echo beat >> "$WS/beat"; sleep 0.05; done' < /dev/null > /dev/null 2>&1 & sleep 0.3; exit 0`, nil)
	require.Equal(t, 0, res.ExitCode)
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(b.workspace, "beat"))
		require.NoError(t, err)
		return fi.Size()
	}
	first := size()
	assert.Positive(t, first)
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, first, size(), "the orphan kept running after the run")
}

// TestTimeoutAndOutput: a run past its time is stopped, as is one past
// its output.
func TestTimeoutAndOutput(t *testing.T) {
	requireConfinement(t)
	b := newBox(t)
	start := time.Now()
	res, _, _ := b.bash(t, `sleep 100`, func(s *Spec) { s.Timeout = time.Second })
	assert.True(t, res.TimedOut)
	assert.Less(t, time.Since(start), 10*time.Second)

	res, out, _ := b.bash(t, `yes`, func(s *Spec) { s.Output = 1000 })
	assert.True(t, res.OutputLimit)
	assert.LessOrEqual(t, len(out), 1000)
}

// TestMissingProgram: a program that is not there is the host's error,
// naming it.
func TestMissingProgram(t *testing.T) {
	requireConfinement(t)
	_, err := Run(context.Background(), &Spec{Path: "/nonexistent/python3", Args: []string{"python3"}, Dir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/nonexistent/python3")
}

// TestUnconfinedRefused: without Landlock, nothing runs, and the error
// says what is missing.
func TestUnconfinedRefused(t *testing.T) {
	old := landlockVersion
	t.Cleanup(func() { landlockVersion = old })
	landlockVersion = func() (int, error) { return 0, syscall.ENOSYS }
	_, err := Run(context.Background(), &Spec{Path: "/bin/true", Args: []string{"true"}})
	require.ErrorIs(t, err, ErrUnconfined)
	assert.Contains(t, err.Error(), "Landlock is not available")
	landlockVersion = func() (int, error) { return 3, nil }
	require.ErrorIs(t, Check(), ErrUnconfined)
	assert.Contains(t, Check().Error(), "ABI is 3")
}

// TestCompiledPackages: numpy and Pillow, compiled packages no
// WebAssembly build exists of, run confined with the output of an
// unconfined run.
func TestCompiledPackages(t *testing.T) {
	requireConfinement(t)
	const script = `
import numpy as np
from PIL import Image, ImageDraw
a = np.arange(12, dtype=np.float64).reshape(3, 4)
print(a.sum(axis=0).tolist(), float(np.linalg.det(np.eye(3) * 2)))
img = Image.new("RGB", (32, 16), "white")
ImageDraw.Draw(img).rectangle([4, 4, 12, 12], fill="red")
img.save("out.png")
print(Image.open("out.png").getpixel((8, 8)), img.size)
`
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy, PIL").Run(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("python3-numpy and python3-pil are required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		t.Skip("numpy or Pillow not installed")
	}
	plain := exec.Command("/usr/bin/python3", "-c", script)
	plain.Dir = t.TempDir()
	want, err := plain.CombinedOutput()
	require.NoError(t, err, "%s", want)

	b := newBox(t)
	var out bytes.Buffer
	res, err := Run(context.Background(), &Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: b.workspace, ReadOnly: SystemPaths, ReadWrite: []string{b.workspace},
		Stdout: &out, Stderr: &out, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, out.String())
	assert.Equal(t, string(want), out.String())
	assert.FileExists(t, filepath.Join(b.workspace, "out.png"))
}

// TestMatplotlib: Debian's matplotlib imports, finds the same fonts as
// unconfined and saves a PNG under SystemPaths alone: it reads
// /etc/matplotlibrc at import, and its font list runs fc-list, which
// reads /etc/fonts (without it, a "Fontconfig error" on stderr).
func TestMatplotlib(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: imports Debian's matplotlib natively, boxed and not (2 s); the full suite runs it")
	}
	requireConfinement(t)
	const script = `
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import font_manager
fig = plt.figure()
fig.savefig("out.png")
print(len(font_manager.fontManager.ttflist), font_manager.findfont("DejaVu Sans"))
`
	if out, err := exec.Command("/usr/bin/python3", "-c", "import matplotlib").CombinedOutput(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("python3-matplotlib is required (REQUIRE_TOOLCHAINS=1): %v: %s", err, out)
		}
		t.Skip("matplotlib not installed")
	}
	plain := exec.Command("/usr/bin/python3", "-c", script)
	plain.Dir = t.TempDir()
	plain.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()} // no font cache yet, as in a run
	var plainErr bytes.Buffer
	plain.Stderr = &plainErr
	want, err := plain.Output()
	require.NoError(t, err, "%s", plainErr.String())

	b := newBox(t)
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), &Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: b.workspace, ReadOnly: SystemPaths, ReadWrite: []string{b.workspace},
		Stdout: &stdout, Stderr: &stderr, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, stderr.String())
	assert.Equal(t, string(want), stdout.String(), "the fonts found unconfined")
	assert.NotContains(t, stderr.String(), "Fontconfig error")
	assert.NotContains(t, stderr.String(), "Permission denied")
	png, err := os.ReadFile(filepath.Join(b.workspace, "out.png"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "out.png is a PNG: % x", png[:min(len(png), 8)])
}

// BenchmarkStart: a confined start of /bin/true against a bare one, in
// the same run (the ratio is the cost of confinement).
func BenchmarkStart(b *testing.B) {
	if err := Check(); err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, exec.Command("/bin/true").Run())
		}
	})
	b.Run("confined", func(b *testing.B) {
		for b.Loop() {
			res, err := Run(context.Background(), &Spec{Path: "/bin/true", Args: []string{"true"}, Dir: dir, ReadOnly: SystemPaths})
			require.NoError(b, err)
			require.Zero(b, res.ExitCode, "exit code")
		}
	})
}

// TestWithoutMain: a program that runs native scripts but does not call
// Main would run its own main in the helper's place; Run notices that
// the process never says it is the helper, stops it and says what to do.
func TestWithoutMain(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds and runs a program without the helper (1.4 s); the full suite runs it")
	}
	requireConfinement(t)
	bin := filepath.Join(t.TempDir(), "nomain")
	build := exec.Command("go", "build", "-o", bin, "./testdata/nomain")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "did not start as the native tier's helper")
	assert.Contains(t, string(out), "must call native.Main()")
}
