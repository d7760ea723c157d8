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
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// Attack tests of file-system confinement (issue 11, findings 1, 4, 10
// and 11): a hostile skill folder, workspace or guest, run the way the CLI
// runs scripts (RunScript). The attacks on bare mounts are the sandbox's
// (sandbox/mounts_attack_test.go).

// runProbe runs the probe skill's script with everything it declares
// granted and returns its output.
func runProbe(t *testing.T, s *skills.Skill, sr *ScriptRun, args ...string) (string, *sandbox.Result, error) {
	t.Helper()
	_, declared, err := declaredOf(s, "probe")
	require.NoError(t, err)
	var out bytes.Buffer
	sr.Args, sr.Stdout, sr.Stderr, sr.Granted = args, &out, &out, grant(t, declared)
	res, err := sharedRunner(t).RunScript(context.Background(), s, "probe", sr)
	return out.String(), res, err
}

// TestAttackSubPathGrantSymlinkOut: a skill ships "references -> /" and
// declares read = ["skill/references"]; a workspace has "out -> elsewhere"
// and the skill write = ["workspace/out"]. Neither may mount the link's
// target (finding 1). The links are made after loading, as a skill folder
// can change between validation and the run.
func TestAttackSubPathGrantSymlinkOut(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: two runs against links swapped in after loading (2 s); the full suite runs it")
	}
	t.Run("skill references -> /", func(t *testing.T) {
		s := probeSkill(t, `read = ["skill/references"]`)
		skillDir := filepath.Dir(s.Location)
		require.NoError(t, os.Symlink("/", filepath.Join(skillDir, "references")))
		out, _, err := runProbe(t, s, &ScriptRun{}, "ls", "/skill/references")
		assert.ErrorIs(t, err, ErrNotRunnable)
		assert.ErrorContains(t, err, "not a symlink leading out of it", "want the symlink named")
		assert.NotContains(t, out, "etc", "the script listed the host's root")
		assert.NotContains(t, out, "proc", "the script listed the host's root")
	})
	t.Run("workspace out -> elsewhere", func(t *testing.T) {
		s := probeSkill(t, `write = ["workspace/out"]`)
		base := t.TempDir()
		ws, elsewhere := filepath.Join(base, "ws"), filepath.Join(base, "elsewhere")
		for _, d := range []string{ws, elsewhere} {
			require.NoError(t, os.Mkdir(d, 0o755))
		}
		require.NoError(t, os.Symlink(elsewhere, filepath.Join(ws, "out")))
		_, _, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "write", "/workspace/out/pwned.txt", "x")
		assert.ErrorIs(t, err, ErrNotRunnable)
		entries, _ := os.ReadDir(elsewhere)
		assert.Empty(t, entries, "the script wrote outside the workspace")
	})
	t.Run("links inside still work", func(t *testing.T) {
		s := probeSkill(t, `read = ["skill/references"]`)
		skillDir := filepath.Dir(s.Location)
		require.NoError(t, os.MkdirAll(filepath.Join(skillDir, "docs"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(skillDir, "docs", "a.md"), []byte("inside"), 0o644))
		require.NoError(t, os.Symlink("docs", filepath.Join(skillDir, "references")))
		out, res, err := runProbe(t, s, &ScriptRun{}, "read", "/skill/references/a.md")
		if assert.NoError(t, err, "reading through a link inside the skill") {
			assert.Zero(t, res.ExitCode, "reading through a link inside the skill: exit code")
		}
		assert.Equal(t, "inside", out, "reading through a link inside the skill")
	})
}

// protectedFixture is a workspace holding a project's skills, as with
// --workspace . and .agents/skills: skill b (a module and SKILL.md) and a
// symlink "alias" to its scripts folder, committed in the project.
func protectedFixture(t *testing.T) (ws, skillB string) {
	t.Helper()
	ws = t.TempDir()
	skillB = filepath.Join(ws, ".agents", "skills", "b")
	require.NoError(t, os.MkdirAll(filepath.Join(skillB, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skillB, "scripts", "b.wasm"), []byte("original module"), 0o644))
	require.NoError(t, os.Symlink(".agents/skills/b/scripts", filepath.Join(ws, "alias")))
	return ws, skillB
}

// TestAttackProtectedSkillFolder: skill a, with write = ["workspace"],
// tries every way to change skill b's folder in the workspace (finding 4).
func TestAttackProtectedSkillFolder(t *testing.T) {
	ws, skillB := protectedFixture(t)
	s := probeSkill(t, `write = ["workspace"]`)
	var audit testkit.AuditLog
	for _, args := range [][]string{
		{"write", "/workspace/.agents/skills/b/scripts/b.wasm", "evil"},
		{"write", "/workspace/.agents/skills/b/scripts/new.wasm", "evil"},
		{"write", "/workspace/alias/b.wasm", "evil"},
		{"mkdir", "/workspace/.agents/skills/b/more"},
		{"remove", "/workspace/.agents/skills/b/scripts/b.wasm"},
		{"rename", "/workspace/.agents/skills/b/scripts/b.wasm", "/workspace/stolen.wasm"},
		{"rename", "/workspace/.agents", "/workspace/moved"},
		{"rename", "/workspace/.agents/skills", "/workspace/moved"},
		{"rename", "/workspace/.agents/skills/b", "/workspace/moved"},
		{"rename", "/workspace/alias/b.wasm", "/workspace/stolen.wasm"},
	} {
		out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws, Auditor: audit.Auditor()}, Protected: []string{skillB}}, args...)
		require.NoError(t, err, "%q", args)
		assert.EqualValues(t, 1, res.ExitCode, "%q: exit code; want EROFS", args)
		assert.Contains(t, strings.ToLower(out), "read-only file system", "%q: want EROFS", args)
	}
	got, err := os.ReadFile(filepath.Join(skillB, "scripts", "b.wasm"))
	if assert.NoError(t, err, "skill b's module") {
		assert.Equal(t, "original module", string(got), "skill b's module")
	}
	for _, p := range []string{"scripts/new.wasm", "more"} {
		_, err := os.Lstat(filepath.Join(skillB, p))
		assert.Error(t, err, "%s was created in skill b", p)
	}
	audit.Has(t, "deny fs.open_write /workspace/alias/b.wasm", "protected folder "+skillB)
	audit.Has(t, "deny fs.rename /workspace/.agents -> /workspace/moved", "protected folder")

	// The rest of the workspace is writable, next to the skills too.
	out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}, Protected: []string{skillB}},
		"write", "/workspace/.agents/notes.txt", "fine")
	if assert.NoError(t, err, "writing next to the skills: %q", out) {
		assert.Zero(t, res.ExitCode, "writing next to the skills: exit code; output %q", out)
	}
}

// TestAttackProtectedOwnFolder: a skill living in the workspace it may
// write cannot rewrite its own module for its next run, with no
// Protected given: RunScript protects the script's skill folder itself.
func TestAttackProtectedOwnFolder(t *testing.T) {
	s := probeSkill(t, `write = ["workspace"]`)
	ws := filepath.Dir(filepath.Dir(s.Location)) // the folder holding the skill
	module := filepath.Join(filepath.Dir(s.Location), "scripts", "probe.wasm")
	before, err := os.ReadFile(module)
	require.NoError(t, err)
	out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "write", "/workspace/probe/scripts/probe.wasm", "evil")
	if assert.NoError(t, err, "overwriting its own module") {
		assert.EqualValues(t, 1, res.ExitCode, "overwriting its own module: exit code; want EROFS")
	}
	assert.Contains(t, strings.ToLower(out), "read-only file system", "overwriting its own module: want EROFS")
	after, _ := os.ReadFile(module)
	assert.True(t, bytes.Equal(before, after), "the skill's module changed")
}
