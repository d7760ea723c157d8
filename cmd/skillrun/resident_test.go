//go:build linux

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/resident"
	"github.com/skillrun/skillrun/internal/resident/handoff"
	"github.com/skillrun/skillrun/internal/resident/wire"
)

// TestResident: `skillrun run` handed to a resident prints and exits as
// the same command run in its own process; the command runs in the
// client's working directory and environment, and the resident's own
// are back afterwards; the resident keeps one Runner for its commands and
// runs only the verbs of handoff.Verbs.
func TestResident(t *testing.T) {
	path, err := resident.SocketPath(filepath.Join(t.TempDir(), "r"), "test")
	require.NoError(t, err)
	l, err := resident.Listen(path, "test")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveResident(ctx, l, time.Minute) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
		assert.Nil(t, shared.rt, "the Runner is closed with the resident")
	}()

	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	ws := t.TempDir()
	require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join(root, "examples", "workspace"))))
	args := []string{"run", "examples/word-count", "--workspace", ws, "-A", "--", "sales.csv"}

	call := func(dir string, env []string, args []string) (int, string, string) {
		t.Helper()
		stdio := tempStdio(t)
		rep, err := resident.Call(context.Background(), path, &resident.Request{Exe: "test", Args: args, Dir: dir, Env: env, Umask: 0o022}, stdio)
		require.NoError(t, err)
		require.False(t, rep.Busy)
		require.Empty(t, rep.Error)
		out, _ := os.ReadFile(stdio[1].Name())
		errOut, _ := os.ReadFile(stdio[2].Name())
		return rep.Code, string(out), string(errOut)
	}

	env := append(os.Environ(), "SKILLRUN_RESIDENT_PROBE=1")
	code, out, errOut := call(root, env, args)
	assert.Zero(t, code, errOut)
	var local, localErr strings.Builder
	t.Chdir(root)
	localCode := run(args, nil, &local, &localErr)
	assert.Equal(t, localCode, code)
	assert.Equal(t, local.String(), out)
	assert.NotEmpty(t, out)

	// The skill's relative path means nothing in another folder.
	code, _, errOut = call(t.TempDir(), env, args)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "examples/word-count")

	now, _ := os.Getwd()
	assert.Equal(t, root, now, "the resident's working directory is back (this test's)")
	_, set := os.LookupEnv("SKILLRUN_RESIDENT_PROBE")
	assert.False(t, set, "the resident's environment is back")

	rt := shared.rt
	require.NotNil(t, rt, "the resident keeps a Runner")
	code, _, _ = call(root, env, args)
	assert.Zero(t, code)
	assert.Same(t, rt, shared.rt, "and uses it for every command")

	code, out, _ = call(root, env, []string{"validate", "examples/word-count"})
	assert.Zero(t, code)
	assert.Contains(t, out, "word-count")
	code, _, errOut = call(root, env, []string{"mcp", "examples/word-count"})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "the resident runs only these commands: run, shell")
}

// TestHandoff: by default, `skillrun run` finds no resident and starts
// one (here: records that it would) and runs itself; once one listens,
// the client hands it the command, with its stdout. SKILLRUN_RESIDENT=0,
// --no-resident or a verb the resident does not run hands nothing over
// and starts nothing.
func TestHandoff(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(handoff.Env, "")
	var spawned int
	spawn := func() { spawned++ }
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	t.Chdir(root)
	ws := t.TempDir()
	require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join(root, "examples", "workspace"))))
	args := []string{"run", "examples/word-count", "--workspace", ws, "-A", "--", "sales.csv"}
	stdio := tempStdio(t)
	fds := [3]int{int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd())}

	_, handed := handoff.Handoff(args, fds, spawn)
	assert.False(t, handed)
	assert.Equal(t, 1, spawned, "no resident: one is started for the next command")

	path, err := handoff.Socket()
	require.NoError(t, err)
	l, err := resident.Listen(path, wire.ExeID())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveResident(ctx, l, time.Minute) }()
	defer func() { cancel(); <-done }()

	code, handed := handoff.Handoff(args, fds, spawn)
	assert.True(t, handed)
	assert.Zero(t, code)
	var local strings.Builder
	require.Zero(t, run(args, nil, &local, io.Discard))
	got, _ := os.ReadFile(stdio[1].Name())
	assert.Equal(t, local.String(), string(got))
	assert.Equal(t, 1, spawned)

	_, handed = handoff.Handoff([]string{"mcp", "examples/word-count"}, fds, spawn)
	assert.False(t, handed, "mcp is not handed over")
	_, handed = handoff.Handoff(append([]string{"run", "--no-resident"}, args[1:]...), fds, spawn)
	assert.False(t, handed, "--no-resident")
	t.Setenv(handoff.Env, "0")
	_, handed = handoff.Handoff(args, fds, spawn)
	assert.False(t, handed, "SKILLRUN_RESIDENT=0")
	assert.Equal(t, 1, spawned)
}

// tempStdio returns three files standing in for a client's stdin, stdout
// and stderr, closed with the test.
func tempStdio(t *testing.T) [3]*os.File {
	t.Helper()
	var stdio [3]*os.File
	for i := range stdio {
		f, err := os.CreateTemp(t.TempDir(), "stdio")
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		stdio[i] = f
	}
	return stdio
}
