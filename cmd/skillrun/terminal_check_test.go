package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// TestIsTerminalNotCharDevice: /dev/null and /dev/zero are character
// devices, not terminals; pipes and non-files are not terminals either.
// (The prompt tests in testdata/script/run.txtar show a real pty is one.)
func TestIsTerminalNotCharDevice(t *testing.T) {
	for _, dev := range []string{os.DevNull, "/dev/zero"} {
		f, err := os.Open(dev)
		if err != nil {
			t.Skipf("%s: %v", dev, err)
		}
		assert.False(t, isTerminal(f), "%s is a terminal", dev)
		require.NoError(t, f.Close())
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, isTerminal(r), "a pipe is a terminal")
	assert.False(t, isTerminal(&bytes.Buffer{}), "a buffer is a terminal")
	assert.False(t, isTerminal((*os.File)(nil)), "a nil file is a terminal")
}

// TestRunOnDevNullDenies: a run with stdin and stderr on /dev/null (a
// cron job, a CI step) must not ask for a grant nobody can see; it
// denies with 126 and names the flags to add. The finding: skillrun took
// /dev/null for a terminal, printed the prompt into it, read EOF as "no"
// and said "denied at the prompt".
func TestRunOnDevNullDenies(t *testing.T) {
	root := t.TempDir()
	skill, ws := filepath.Join(root, "probe"), filepath.Join(root, "ws")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":           "---\nname: probe\ndescription: Reads the workspace.\n---\nx\n",
		skill + "/skill.toml":         "version = 1\n[capabilities]\nread = [\"workspace\"]\nenv = [\"LANG\"]\n[scripts.probe]\nmodule = \"scripts/probe.wasm\"\n",
		skill + "/scripts/probe.wasm": "\x00asm\x01\x00\x00\x00",
		ws + "/keep":                  "",
	})
	in, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer in.Close()
	errOut, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer errOut.Close()

	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetArgs([]string{"run", skill, "--workspace", ws, "--", "exit", "0"})
	cmd.SetIn(in)
	cmd.SetOut(&out)
	cmd.SetErr(errOut)
	err = cmd.ExecuteContext(context.Background())
	ee, ok := errors.AsType[*exitError](err)
	require.True(t, ok, "want an exit error, got %v", err)
	assert.Equal(t, exitDenied, ee.code)
	assert.NotContains(t, err.Error(), "denied at the prompt", "skillrun asked on /dev/null")
	assert.Contains(t, err.Error(), "probe:probe needs read=workspace, env=LANG: not granted; add --allow-read=workspace --allow-env=LANG")
	assert.Empty(t, out.String())
}
