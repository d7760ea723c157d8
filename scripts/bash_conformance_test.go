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

// TestBashConformance runs every script of testdata/bashconf/scripts
// (what published scripts use beyond the Oils cases: descriptors above
// 2, process substitution, aliases, redirection failures, jq's argument
// options, column, join, split) with /bin/bash and with skillrun's
// sandboxed shell, on the same arguments and stdin, each in a fresh
// working directory, and requires the same stdout and exit code, byte
// for byte. Standard error is not compared: bash's messages name the
// script's host path; the scripts print the messages they check without
// it.
func TestBashConformance(t *testing.T) {
	for _, tool := range []string{nativeBash, "/usr/bin/jq", "/usr/bin/column", "/usr/bin/join", "/usr/bin/split"} {
		if _, err := os.Stat(tool); err != nil {
			if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
				t.Fatalf("%s is required for the baseline (REQUIRE_TOOLCHAINS=1): %v", tool, err)
			}
			t.Skipf("no %s for the baseline: %v", tool, err)
		}
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "bashconf"))
	require.NoError(t, err)
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "scripts", "*.sh"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	find := interpreters(t, interp.Shell)
	const stdin = "a\nb b\nc\n"
	args := []string{"x", "y z"}

	var failed []string
	for _, f := range files {
		name := filepath.Base(f)
		cmd := exec.Command(nativeBash, append([]string{f}, args...)...)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + cmd.Dir}
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
			failed = append(failed, fmt.Sprintf("%s: exit %d (bash %d)\n--- bash\n%s--- skillrun\n%s--- skillrun stderr\n%s",
				name, res.ExitCode, nCode, nOut.String(), sOut.String(), sErr.String()))
		}
	}
	t.Logf("%d of %d bash scripts identical to %s", len(files)-len(failed), len(files), nativeBash)
	if len(failed) > 0 {
		t.Errorf("%d of %d scripts differ from bash:\n%s", len(failed), len(files), strings.Join(failed, "\n"))
	}
}
