package scripts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/skills"
)

// compareWithNative runs every script of testdata/SET/scripts matching
// glob with the native program (the command native makes for the script
// and its arguments) and with skillrun's interpreter for lang, on the
// same arguments, stdin and a fresh working directory each, and fails
// the test for each whose stdout or exit code differs, byte for byte.
// Standard error is not compared: messages name the scripts' paths,
// which differ. It logs how many matched, naming what the baseline is.
func compareWithNative(t *testing.T, set, glob, lang, baseline string, native func(file string, args []string) *exec.Cmd) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", set))
	require.NoError(t, err)
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "scripts", glob))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	find := interpreters(t, lang)
	const stdin = "a\nb b\nc\n"
	args := []string{"x", "y z"}

	var failed []string
	for _, f := range files {
		name := filepath.Base(f)
		cmd := native(f, args)
		cmd.Dir = t.TempDir()
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
			failed = append(failed, fmt.Sprintf("%s: exit %d (%s %d)\n--- %s\n%s--- skillrun\n%s--- skillrun stderr\n%s",
				name, res.ExitCode, baseline, nCode, baseline, nOut.String(), sOut.String(), sErr.String()))
		}
	}
	t.Logf("%d of %d scripts identical to %s", len(files)-len(failed), len(files), baseline)
	if len(failed) > 0 {
		t.Errorf("%d of %d scripts differ from %s:\n%s", len(failed), len(files), baseline, strings.Join(failed, "\n"))
	}
}
