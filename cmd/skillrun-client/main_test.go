package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// binaries builds the client and the full skillrun beside it, as `make
// build` does (static, stripped), once per test binary.
var binaries = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "skillrun-client-")
	if err != nil {
		return "", err
	}
	builtDir = dir
	for pkg, name := range map[string]string{".": "skillrun", "../skillrun": EngineName} {
		cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", filepath.Join(dir, name), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", &buildError{pkg, string(out), err}
		}
	}
	return dir, nil
})

type buildError struct {
	pkg, out string
	err      error
}

func (e *buildError) Error() string { return "go build " + e.pkg + ": " + e.err.Error() + "\n" + e.out }

// skipUnderRace: these tests build and run real binaries (the race
// detector instruments neither); under it they only add to CI's load.
// `make test` runs them again without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("run without -race: `make test` runs it in a second go test")
	}
}

// builtDir is where binaries built, if it ran.
var builtDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// run runs bin with args in the repository root, with env added to a
// cache folder of the test's own, and returns its output and exit code.
func run(t *testing.T, env []string, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if x := (*exec.ExitError)(nil); err != nil {
		require.ErrorAs(t, err, &x)
		code = x.ExitCode()
	}
	return o.String(), e.String(), code
}

// TestClientIsTheEngine: every command gives through the client what it
// gives through the full binary: output, errors and exit code, for a
// verb the engine runs (help), one the resident could take (validate,
// here with the resident off) and a failing one.
func TestClientIsTheEngine(t *testing.T) {
	skipUnderRace(t)
	dir, err := binaries()
	require.NoError(t, err)
	client, engine := filepath.Join(dir, "skillrun"), filepath.Join(dir, EngineName)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "SKILLRUN_RESIDENT=0"}
	for _, args := range [][]string{
		{"--help"},
		{"validate", "examples/word-count"},
		{"validate", "no/such/skill"},
		{"run", "examples/word-count", "--bogus-flag"},
	} {
		o1, e1, c1 := run(t, env, client, args...)
		o2, e2, c2 := run(t, env, engine, args...)
		assert.Equal(t, o2, o1, "%v", args)
		assert.Equal(t, e2, e1, "%v", args)
		assert.Equal(t, c2, c1, "%v", args)
	}
	_, _, code := run(t, env, client, "validate", "no/such/skill")
	assert.NotZero(t, code, "a failure is the client's failure")
}

// TestClientHandsOver: with the engine's resident running, the client
// hands it a command itself (the resident logs it), and with the
// resident off it does not.
func TestClientHandsOver(t *testing.T) {
	skipUnderRace(t)
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a resident")
	}
	dir, err := binaries()
	require.NoError(t, err)
	client, engine := filepath.Join(dir, "skillrun"), filepath.Join(dir, EngineName)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	var log syncBuffer
	res := exec.Command(engine, "resident", "--idle", "1m")
	res.Stderr = &log
	require.NoError(t, res.Start())
	t.Cleanup(func() {
		_ = res.Process.Signal(syscall.SIGTERM)
		_ = res.Wait()
	})
	sock, err := wire.SocketPath(filepath.Join(cache, "skillrun", "resident"), wire.ExeIDOf(engine))
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, err := os.Stat(sock); return err == nil }, 30*time.Second, 10*time.Millisecond)

	out, _, code := run(t, nil, client, "validate", "examples/word-count")
	require.Zero(t, code)
	assert.Contains(t, out, "valid: examples/word-count")
	assert.Contains(t, log.String(), "skillrun resident: validate (exit 0", "the client handed the command to the resident")

	before := log.String()
	out, _, code = run(t, []string{"SKILLRUN_RESIDENT=0"}, client, "validate", "examples/word-count")
	require.Zero(t, code)
	assert.Contains(t, out, "valid: examples/word-count")
	assert.Equal(t, before, log.String(), "SKILLRUN_RESIDENT=0: the engine ran it in its own process")
}

// TestClientFindsEngine: the engine is found beside the client through a
// symlink to the client, or where SKILLRUN_ENGINE says; a missing or
// relative one is exit 127 with a message that says where it looked.
func TestClientFindsEngine(t *testing.T) {
	skipUnderRace(t)
	dir, err := binaries()
	require.NoError(t, err)
	client := filepath.Join(dir, "skillrun")
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "SKILLRUN_RESIDENT=0"}

	link := filepath.Join(t.TempDir(), "skillrun")
	require.NoError(t, os.Symlink(client, link))
	out, _, code := run(t, env, link, "validate", "examples/word-count")
	assert.Zero(t, code)
	assert.Contains(t, out, "valid:")

	alone := filepath.Join(t.TempDir(), "skillrun")
	data, err := os.ReadFile(client)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, data, 0o755))
	_, errOut, code := run(t, env, alone, "validate", "examples/word-count")
	assert.Equal(t, exitNoEngine, code)
	assert.Contains(t, errOut, EngineName)
	assert.Contains(t, errOut, filepath.Dir(alone), "says where it looked")

	out, _, code = run(t, append(env, EngineEnv+"="+filepath.Join(dir, EngineName)), alone, "validate", "examples/word-count")
	assert.Zero(t, code)
	assert.Contains(t, out, "valid:")

	_, errOut, code = run(t, append(env, EngineEnv+"=bin/skillrun"), alone, "--help")
	assert.Equal(t, exitNoEngine, code)
	assert.Contains(t, errOut, "not an absolute path")

	_, errOut, code = run(t, append(env, EngineEnv+"="+dir), alone, "--help")
	assert.Equal(t, exitNoEngine, code)
	assert.True(t, strings.Contains(errOut, "not an executable file"), errOut)
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
