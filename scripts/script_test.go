package scripts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeSkill writes a skill whose one script is the hostile guest, with the
// given [capabilities] lines, and loads it.
func probeSkill(t *testing.T, caps string) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "probe")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: probe\ndescription: d\n---\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.toml"), []byte("version = 1\n[capabilities]\n"+caps+"\n[scripts.probe]\nmodule = \"scripts/probe.wasm\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "probe.wasm"), testkit.Wasm(t, "hostile"), 0o644))
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	return s
}

func grant(t *testing.T, declared capabilities.Set, flags ...capabilities.FlagGrant) capabilities.Set {
	t.Helper()
	g, err := capabilities.GrantFromFlags(declared, len(flags) == 0, flags)
	require.NoError(t, err)
	return g
}

// TestRunScriptNestedWrite: read of the workspace plus write of only
// workspace/out. The guest writes where it may, and cannot elsewhere.
func TestRunScriptNestedWrite(t *testing.T) {
	r := sharedRunner(t)
	s := probeSkill(t, `read = ["workspace"]`+"\n"+`write = ["workspace/out"]`)
	_, declared, err := declaredOf(s, "probe")
	require.NoError(t, err)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "in.txt"), []byte("input"), 0o644))

	run := func(args ...string) (string, *sandbox.Result, error) {
		var out bytes.Buffer
		res, err := r.RunScript(context.Background(), s, "probe", &ScriptRun{
			Services: host.Services{Workspace: ws}, Args: args, Stdout: &out, Stderr: &out, Granted: grant(t, declared),
		})
		return out.String(), res, err
	}
	out, res, err := run("write", "/workspace/out/report.txt", "done")
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, out)
	data, err := os.ReadFile(filepath.Join(ws, "out", "report.txt"))
	require.NoError(t, err)
	assert.Equal(t, "done", string(data))

	out, res, err = run("write", "/workspace/in.txt", "overwritten")
	require.NoError(t, err)
	assert.NotEqual(t, uint32(0), res.ExitCode)
	assert.Contains(t, out, "Read-only file system")
	data, _ = os.ReadFile(filepath.Join(ws, "in.txt"))
	assert.Equal(t, "input", string(data))

	out, _, err = run("read", "/workspace/in.txt")
	require.NoError(t, err)
	assert.Equal(t, "input", out)
}

func TestRunScriptNotRunnable(t *testing.T) {
	r := sharedRunner(t)
	s := probeSkill(t, `read = ["workspace"]`)
	_, err := r.RunScript(context.Background(), s, "nope", nil)
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, `has no script "nope"`)

	// Workspace granted but not given.
	_, declared, _ := declaredOf(s, "probe")
	_, err = r.RunScript(context.Background(), s, "probe", &ScriptRun{Granted: grant(t, declared)})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "no workspace folder")

	// Module not built.
	require.NoError(t, os.Remove(filepath.Join(filepath.Dir(s.Location), "scripts", "probe.wasm")))
	_, err = r.RunScript(context.Background(), s, "probe", &ScriptRun{Services: host.Services{Workspace: t.TempDir()}, Granted: grant(t, declared)})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "module scripts/probe.wasm")
}

// TestRunScriptNeverWritesSkill: a skill that declares write access to its
// own folder is refused, even with -A.
func TestRunScriptNeverWritesSkill(t *testing.T) {
	r := sharedRunner(t)
	s := probeSkill(t, `write = ["skill"]`)
	_, declared, _ := declaredOf(s, "probe")
	_, err := r.RunScript(context.Background(), s, "probe", &ScriptRun{Granted: grant(t, declared)})
	assert.True(t, errors.Is(err, capabilities.ErrDenied), "%v", err)
	assert.Contains(t, err.Error(), "never writes into a skill folder")
}

// TestRunScriptModuleSymlinkOut: the module is read through os.Root.
func TestRunScriptModuleSymlinkOut(t *testing.T) {
	r := sharedRunner(t)
	s := probeSkill(t, ``)
	mod := filepath.Join(filepath.Dir(s.Location), "scripts", "probe.wasm")
	outside := filepath.Join(t.TempDir(), "evil.wasm")
	require.NoError(t, os.Rename(mod, outside))
	require.NoError(t, os.Symlink(outside, mod))
	_, err := r.RunScript(context.Background(), s, "probe", &ScriptRun{})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.True(t, strings.Contains(err.Error(), "escapes"), "%v", err)
}

// TestRunScriptAudit: the run and every file access are audit events.
func TestRunScriptAudit(t *testing.T) {
	r := sharedRunner(t)
	s := probeSkill(t, `read = ["workspace"]`)
	_, declared, _ := declaredOf(s, "probe")
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644))
	var log bytes.Buffer
	a := audit.NewJSONLAuditor(&log)
	_, err := r.RunScript(context.Background(), s, "probe", &ScriptRun{Services: host.Services{Workspace: ws, Auditor: a}, Args: []string{"read", "/workspace/a.txt"},
		Granted: grant(t, declared)})
	require.NoError(t, err)
	require.NoError(t, a.Err())
	text := log.String()
	assert.Contains(t, text, `"kind":"run"`)
	assert.Contains(t, text, `"kind":"mount","value":"/workspace","decision":"allow"`)
	assert.Contains(t, text, `/workspace/a.txt`)
}

// TestRunScriptDeterministic: a script that asks for deterministic mode in
// skill.toml gets the same clock and random bytes every run; others get the
// real clock and crypto randomness.
func TestRunScriptDeterministic(t *testing.T) {
	r := sharedRunner(t)
	for _, det := range []bool{true, false} {
		s := probeSkill(t, "")
		s.Manifest.Scripts["probe"].Deterministic = det
		outs := map[string]bool{}
		for range 2 {
			var out bytes.Buffer
			res, err := r.RunScript(context.Background(), s, "probe", &ScriptRun{Args: []string{"clock"}, Stdout: &out})
			require.NoError(t, err)
			require.Equal(t, uint32(0), res.ExitCode)
			outs[out.String()] = true
		}
		assert.Equal(t, det, len(outs) == 1, "deterministic=%v outputs %v", det, outs)
	}
}

// TestNothingCreatedBeforeRun: a script that cannot run (a module not
// built, an interpreter missing) exits ErrNotRunnable without creating
// the folder of its write grant: nothing changes before a run starts.
func TestNothingCreatedBeforeRun(t *testing.T) {
	r := sharedRunner(t)
	const caps = "version = 1\n[capabilities]\nwrite = [\"workspace/out\"]\n"
	for name, toml := range map[string]string{
		"unbuilt": caps + "[scripts.run]\nmodule = \"scripts/run.wasm\"\n",
		"noint":   caps + "[scripts.run]\nsource = \"scripts/run.py\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := writeSkill(t, name, toml, map[string][]byte{"scripts/run.py": []byte("print(1)\n")})
			_, declared, err := declaredOf(s, "run")
			require.NoError(t, err)
			ws := t.TempDir()
			_, err = r.RunScript(context.Background(), s, "run", &ScriptRun{
				Services: host.Services{Workspace: ws}, Granted: grant(t, declared),
				Interpreters: func(context.Context, string) (*SourceInterpreter, error) {
					return nil, fmt.Errorf("%w: no python here", ErrNotRunnable)
				},
			})
			require.ErrorIs(t, err, ErrNotRunnable)
			_, statErr := os.Stat(filepath.Join(ws, "out"))
			require.ErrorIs(t, statErr, fs.ErrNotExist, "workspace/out was created by a run that never started")
		})
	}
}

// TestResolve: a script's resolution is over its skill's declaration
// merged with its own; "" resolves the whole skill (what a session grants
// a skill); a missing script is ErrNotRunnable; bad flags are errors.
func TestResolve(t *testing.T) {
	s := writeSkill(t, "two", "version = 1\n[capabilities]\nread = [\"skill\"]\n"+
		"[scripts.a]\nmodule = \"a.wasm\"\n[scripts.a.capabilities]\nenv = [\"LANG\"]\n"+
		"[scripts.b]\nmodule = \"b.wasm\"\n[scripts.b.capabilities]\nwrite = [\"workspace/out\"]\n", nil)
	all := &capabilities.Resolver{All: true}
	for _, tc := range []struct{ script, want string }{
		{"a", "read=skill, env=LANG"},
		{"b", "read=skill, write=workspace/out"},
		{"", "read=skill, write=workspace/out, env=LANG"},
	} {
		res, err := Resolve(s, tc.script, all)
		require.NoError(t, err)
		assert.Equal(t, tc.want, capabilities.Describe(res.Effective), "script %q", tc.script)
		assert.True(t, res.Missing.IsZero(), "script %q: missing %s", tc.script, capabilities.Describe(res.Missing))
	}
	// The whole skill declares the widest limit any script does, whatever
	// the order of the scripts: a map's order once decided it.
	limits := writeSkill(t, "limits", "version = 1\n[capabilities]\ntimeout = \"5s\"\n"+
		"[scripts.a]\nmodule = \"a.wasm\"\n[scripts.a.capabilities]\ntimeout = \"1m\"\nmemory = \"16MiB\"\n"+
		"[scripts.b]\nmodule = \"b.wasm\"\n[scripts.b.capabilities]\ntimeout = \"10s\"\nmemory = \"64MiB\"\n"+
		"[scripts.c]\nmodule = \"c.wasm\"\n", nil)
	for range 20 {
		whole, err := Resolve(limits, "", all)
		require.NoError(t, err)
		require.Equal(t, "memory=64MiB, timeout=1m0s", capabilities.Describe(whole.Effective))
	}
	res, err := Resolve(s, "a", nil)
	require.NoError(t, err)
	assert.Equal(t, "read=skill, env=LANG", capabilities.Describe(res.Missing))
	_, err = Resolve(s, "c", all)
	assert.ErrorIs(t, err, ErrNotRunnable)
	_, err = Resolve(s, "a", &capabilities.Resolver{Flags: []capabilities.FlagGrant{{Kind: "net"}, {Kind: "env", Value: "HOME", HasValue: true}}})
	assert.ErrorContains(t, err, "--allow-env=HOME grants nothing")
}

// TestWorkdir: with the workspace mounted, a script starts in /workspace
// (relative paths resolve there) and sees PWD=/workspace, whatever PWD
// the grant passes from the host; without it, no PWD.
func TestWorkdir(t *testing.T) {
	s := probeSkill(t, `read = ["workspace"]`+"\n"+`env = ["PWD"]`)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "in.txt"), []byte("relative"), 0o644))
	t.Setenv("PWD", "/home/operator")
	out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "read", "in.txt")
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, out)
	assert.Equal(t, "relative", out)
	out, _, err = runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "env")
	require.NoError(t, err)
	assert.Contains(t, out, "PWD=/workspace")
	assert.NotContains(t, out, "/home/operator")

	assert.Equal(t, []string{"A=1"}, withWorkdir([]string{"A=1", "PWD=/x"}, []sandbox.Mount{{GuestPath: "/skill"}}))
	assert.Equal(t, []string{"PWD=/workspace"}, withWorkdir(nil, []sandbox.Mount{{GuestPath: "/workspace/out"}}))
	assert.Equal(t, []string(nil), withWorkdir(nil, []sandbox.Mount{{GuestPath: "/workspaces"}}))
}

// TestFileScriptDeclares: a skill without skill.toml declares for its
// script files read of the skill and read and write of the workspace;
// -A grants exactly that, for a file and for the whole skill.
func TestFileScriptDeclares(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pub")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pub\ndescription: d\n---\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "x.py"), []byte("print(1)\n"), 0o644))
	s, err := skills.LoadDir(dir, nil)
	require.NoError(t, err)
	for _, script := range []string{"scripts/x.py", ""} {
		res, err := Resolve(s, script, &capabilities.Resolver{All: true})
		require.NoError(t, err, script)
		assert.Equal(t, "read=skill,workspace, write=workspace", capabilities.Describe(res.Declared), script)
		assert.Equal(t, capabilities.Describe(res.Declared), capabilities.Describe(res.Granted), script)
		assert.True(t, res.Missing.IsZero(), script)
	}
	_, err = Resolve(s, "stats", &capabilities.Resolver{})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "run a file of the skill as pub:scripts/FILE")
	_, err = Resolve(s, "scripts/x.rb", &capabilities.Resolver{})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "pub:scripts/x.rb")
}

// TestPrivateTmp: every run has a writable /tmp of its own, with no grant:
// a file one run leaves there is gone for the next, the host folder is
// removed when the run ends, and it holds at most the run's memory limit.
func TestPrivateTmp(t *testing.T) {
	hostTmp := t.TempDir()
	t.Setenv("TMPDIR", hostTmp) // where the runs' folders are made
	s := probeSkill(t, `memory = "8MiB"`)
	out, res, err := runProbe(t, s, &ScriptRun{}, "write", "/tmp/x", "scratch")
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, out)
	out, res, err = runProbe(t, s, &ScriptRun{}, "read", "/tmp/x")
	require.NoError(t, err)
	assert.Equal(t, uint32(1), res.ExitCode, "a second run read the first run's /tmp: %s", out)
	out, _, err = runProbe(t, s, &ScriptRun{}, "env")
	require.NoError(t, err)
	assert.Contains(t, out, "TMPDIR=/tmp")
	left, err := filepath.Glob(filepath.Join(hostTmp, "skillrun-tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the runs' /tmp folders are left on the host")
	// The limit: the guest writes 9 MiB into /tmp; it stops at 8 MiB.
	out, res, err = runProbe(t, s, &ScriptRun{}, "fill", "/tmp/big", fmt.Sprint(9<<20))
	require.NoError(t, err)
	assert.Equal(t, uint32(1), res.ExitCode, out)
	assert.Contains(t, out, fmt.Sprintf("wrote %d, then error: write /tmp/big: I/O error", 8<<20))
}
