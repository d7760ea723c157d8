package scripts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/skills"
)

// nativeNode is the baseline of the Node conformance set.
const nativeNode = "/usr/bin/node"

// TestNodeConformance runs every script of testdata/nodeconf/scripts
// (each exercising Node's built-in modules: crypto, url, buffer, events,
// util, assert, timers, fs, os, path, zlib, readline, stream, promises,
// process, string_decoder; CommonJS and ES modules) with /usr/bin/node
// and with skillrun's JavaScript interpreter, on the same arguments,
// stdin and fresh workspace, and requires the same stdout and exit code,
// byte for byte. Standard error is not compared: stack traces name
// different paths.
func TestNodeConformance(t *testing.T) {
	if _, err := os.Stat(nativeNode); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s is required (REQUIRE_TOOLCHAINS=1): %v", nativeNode, err)
		}
		t.Skipf("no %s for the baseline: %v", nativeNode, err)
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "nodeconf"))
	require.NoError(t, err)
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "scripts", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	find := interpreters(t, interp.JS)
	const stdin = "a\nb b\nc\n"
	args := []string{"x", "y z"}

	var failed []string
	for _, f := range files {
		name := filepath.Base(f)
		ws := t.TempDir()
		cmd := exec.Command(nativeNode, append([]string{f}, args...)...)
		cmd.Dir = ws
		cmd.Stdin = strings.NewReader(stdin)
		var nOut, nErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &nOut, &nErr
		nCode := 0
		if err := cmd.Run(); err != nil {
			ee, ok := errors.AsType[*exec.ExitError](err)
			require.True(t, ok, "%s: %v", name, err)
			nCode = ee.ExitCode()
		}

		var sOut, sErr bytes.Buffer
		sr := &ScriptRun{Args: args, Stdin: strings.NewReader(stdin), Stdout: &sOut, Stderr: &sErr, Interpreters: find}
		sr.Services.Workspace = t.TempDir()
		_, declared, err := declaredOf(s, "scripts/"+name)
		require.NoError(t, err)
		sr.Granted = grant(t, declared)
		res, err := sourceRunner(t).RunScript(context.Background(), s, "scripts/"+name, sr)
		require.NoError(t, err, "%s: %s", name, sErr.String())

		if sOut.String() != nOut.String() || int(res.ExitCode) != nCode {
			failed = append(failed, fmt.Sprintf("%s: exit %d (node %d)\n--- node\n%s--- skillrun\n%s--- skillrun stderr\n%s",
				name, res.ExitCode, nCode, nOut.String(), sOut.String(), sErr.String()))
		}
	}
	t.Logf("%d of %d Node scripts identical to %s", len(files)-len(failed), len(files), nativeNode)
	if len(failed) > 0 {
		t.Errorf("%d of %d scripts differ from node:\n%s", len(failed), len(files), strings.Join(failed, "\n"))
	}
}
