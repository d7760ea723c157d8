package scripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/skills"
)

// TestNativeFromShell: in the sandboxed shell, a command that runs a
// script file of a skill the operator trusts with the native tier starts
// it as a confined host process (real numpy, host programs), whatever
// way the command names it; every other command, and every trick to make
// other code run natively through it, stays in WebAssembly.
func TestNativeFromShell(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: starts many confined native processes from the shell (6 s); the full suite runs it")
	}
	if raceEnabled {
		// Its Wasm runs (the shell, Python) measure the guests, which
		// the race detector does not instrument; the native tier's own
		// goroutines are raced in TestNativeNetwork. `make test` runs it
		// again without -race.
		t.Skip("run without -race: `make test` runs it in a second go test")
	}
	requireNative(t)
	interpreters(t, interp.Shell)
	find := interpreters(t, interp.Python)
	base := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(base, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	}
	write("trusted/SKILL.md", "---\nname: trusted\ndescription: Numbers.\n---\nRun scripts/mean.py.\n")
	write("trusted/scripts/mean.py", "import sys, numpy\nprint('mean', numpy.loadtxt(sys.argv[1]).mean())\n")
	write("trusted/scripts/host.sh", "#!/bin/bash\nuname -s\n")
	write("trusted/scripts/where.py", "#!/usr/bin/env python3\nimport os, sys\nprint(sys.executable, os.getcwd())\n")
	write("other/SKILL.md", "---\nname: other\ndescription: Not trusted.\n---\n")
	write("other/scripts/mean.py", "import numpy\n")
	write("evil.py", "import numpy\nprint('ESCAPED')\n")
	ws := filepath.Join(base, "ws")
	write("ws/data.txt", "1\n2\n3\n6\n")
	write("ws/evil.py", "import numpy\nprint('ESCAPED')\n")
	trusted, err := skills.Load(filepath.Join(base, "trusted"), nil)
	require.NoError(t, err)
	other, err := skills.Load(filepath.Join(base, "other"), nil)
	require.NoError(t, err)
	// A link out, made after loading (which refuses one).
	require.NoError(t, os.Symlink(filepath.Join(base, "evil.py"), filepath.Join(base, "trusted", "scripts", "link.py")))

	var log testkit.AuditLog
	// sourceRunner: the compile cache the other shell tests use, so the
	// shell and Python guests compile once per machine (a second compile
	// into a test cache took over CompileTimeout under -race in CI).
	shell := func(command string) (string, string, uint32) {
		t.Helper()
		var out, errOut bytes.Buffer
		res, err := sourceRunner(t).RunShell(context.Background(), &ShellRun{
			ScriptRun: ScriptRun{
				Services: host.Services{Workspace: ws, Auditor: log.Auditor()},
				Args:     []string{"-c", command}, Stdout: &out, Stderr: &errOut,
				Granted: ShellDeclares(), Interpreters: find,
			},
			Skills: []*skills.Skill{trusted, other},
			Native: func(s *skills.Skill) *NativeTier {
				if s == trusted {
					return &NativeTier{}
				}
				return nil
			},
		})
		require.NoError(t, err, errOut.String())
		return out.String(), errOut.String(), res.ExitCode
	}

	for _, command := range []string{
		"python3 /skills/trusted/scripts/mean.py /workspace/data.txt",
		"python3 /skills/trusted/scripts/mean.py data.txt",
		"cd /skills/trusted && python /skills/trusted/scripts/mean.py /workspace/data.txt",
		"cd /skills/trusted/scripts && python3 mean.py ../../../workspace/data.txt",
	} {
		out, errOut, code := shell(command)
		assert.Equal(t, uint32(0), code, "%s: %s", command, errOut)
		assert.Equal(t, "mean 3.0\n", out, command)
	}
	out, errOut, code := shell("/skills/trusted/scripts/host.sh && bash /skills/trusted/scripts/host.sh | tr A-Z a-z")
	assert.Equal(t, uint32(0), code, errOut)
	assert.Equal(t, "Linux\nlinux\n", out, "the host's uname, run by a trusted shell script")
	out, errOut, code = shell("/skills/trusted/scripts/where.py")
	assert.Equal(t, uint32(0), code, errOut)
	assert.Equal(t, "/usr/bin/python3 "+mustReal(t, ws)+"\n", out, "a #! line runs the host's python in the workspace")

	// Everything else stays in the sandbox, whose Python has no numpy
	// (and whose files hold nothing outside its mounts).
	for _, command := range []string{
		"python3 /skills/other/scripts/mean.py",                  // not trusted
		"python3 /workspace/evil.py",                             // the workspace's code
		"python3 /skills/trusted/../../workspace/evil.py",        // a path out, cleaned
		"python3 /skills/trusted/scripts/link.py",                // a link out of the skill
		"python3 -c 'import numpy' /skills/trusted/scripts/x.py", // inline code
		"python3 -m numpy /skills/trusted/scripts/mean.py",       // a module
		"python3 -u /skills/trusted/scripts/mean.py data.txt",    // options first
		"PYTHONPATH=/workspace python3 -c 'import evil'",
	} {
		out, errOut, code := shell(command)
		assert.NotEqual(t, uint32(0), code, command)
		assert.NotContains(t, out, "ESCAPED", command)
		assert.Regexp(t, `No module named 'numpy'|Operation not permitted`, errOut, command)
	}

	nativeRuns := 0
	for _, e := range log.Events() {
		if strings.Contains(e, "started natively") {
			nativeRuns++
			assert.True(t, strings.HasPrefix(e, "allow run trusted:scripts/"), "a native run is audited as the trusted skill: %s", e)
			assert.Contains(t, e, "started by exec from shell")
		}
	}
	assert.Equal(t, 7, nativeRuns, "each trusted script ran natively, nothing else")
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

// TestHostArg: the arguments of a native run started by exec name host
// paths where they named the workspace, the skill or /tmp, and nothing
// else changes.
func TestHostArg(t *testing.T) {
	maps := []pathMap{{"/skills/s", "/h/skill"}, {"/workspace", "/h/ws"}, {"/tmp", "/h/tmp"}, {"/app", "/h/ws"}}
	for _, c := range []struct{ dir, in, want string }{
		{"/workspace", "/workspace/in.csv", "/h/ws/in.csv"},
		{"/workspace", "/workspace", "/h/ws"},
		{"/workspace", "/app/x", "/h/ws/x"},
		{"/workspace", "--out=/tmp/x.png", "--out=/h/tmp/x.png"},
		{"/workspace", "-o/tmp/x", "-o/tmp/x"},
		{"/workspace", "/workspacefoo/x", "/workspacefoo/x"},
		{"/workspace", "/etc/passwd", "/etc/passwd"},
		{"/workspace", "/skills/other/x", "/skills/other/x"},
		{"/workspace", "in.csv", "in.csv"},
		{"/workspace/sub", "../in.csv", "../in.csv"},
		{"/skills/s/scripts", "../../../workspace/in.csv", "/h/ws/in.csv"},
		{"/skills/s/scripts", "../data/x", "../data/x"},
		{"/workspace", "../etc/passwd", "../etc/passwd"},
		{"/workspace", "key=/workspace/x", "key=/workspace/x"},
	} {
		assert.Equal(t, c.want, hostArg(maps, c.dir, c.in), "%s in %s", c.in, c.dir)
	}
}
