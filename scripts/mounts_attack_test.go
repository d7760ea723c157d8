package scripts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err != nil {
		t.Fatal(err)
	}
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
	t.Run("skill references -> /", func(t *testing.T) {
		s := probeSkill(t, `read = ["skill/references"]`)
		skillDir := filepath.Dir(s.Location)
		if err := os.Symlink("/", filepath.Join(skillDir, "references")); err != nil {
			t.Fatal(err)
		}
		out, _, err := runProbe(t, s, &ScriptRun{}, "ls", "/skill/references")
		if !errors.Is(err, ErrNotRunnable) || !strings.Contains(err.Error(), "not a symlink leading out of it") {
			t.Errorf("err = %v; want ErrNotRunnable naming the symlink", err)
		}
		if strings.Contains(out, "etc") || strings.Contains(out, "proc") {
			t.Errorf("the script listed the host's root: %q", out)
		}
	})
	t.Run("workspace out -> elsewhere", func(t *testing.T) {
		s := probeSkill(t, `write = ["workspace/out"]`)
		base := t.TempDir()
		ws, elsewhere := filepath.Join(base, "ws"), filepath.Join(base, "elsewhere")
		for _, d := range []string{ws, elsewhere} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(elsewhere, filepath.Join(ws, "out")); err != nil {
			t.Fatal(err)
		}
		_, _, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "write", "/workspace/out/pwned.txt", "x")
		if !errors.Is(err, ErrNotRunnable) {
			t.Errorf("err = %v; want ErrNotRunnable", err)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("the script wrote outside the workspace: %v", entries)
		}
	})
	t.Run("links inside still work", func(t *testing.T) {
		s := probeSkill(t, `read = ["skill/references"]`)
		skillDir := filepath.Dir(s.Location)
		if err := os.MkdirAll(filepath.Join(skillDir, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skillDir, "docs", "a.md"), []byte("inside"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("docs", filepath.Join(skillDir, "references")); err != nil {
			t.Fatal(err)
		}
		out, res, err := runProbe(t, s, &ScriptRun{}, "read", "/skill/references/a.md")
		if err != nil || res.ExitCode != 0 || out != "inside" {
			t.Errorf("reading through a link inside the skill: %q, %v, %v", out, res, err)
		}
	})
}

// protectedFixture is a workspace holding a project's skills, as with
// --workspace . and .agents/skills: skill b (a module and SKILL.md) and a
// symlink "alias" to its scripts folder, committed in the project.
func protectedFixture(t *testing.T) (ws, skillB string) {
	t.Helper()
	ws = t.TempDir()
	skillB = filepath.Join(ws, ".agents", "skills", "b")
	if err := os.MkdirAll(filepath.Join(skillB, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillB, "scripts", "b.wasm"), []byte("original module"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".agents/skills/b/scripts", filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
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
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if res.ExitCode != 1 || !strings.Contains(strings.ToLower(out), "read-only file system") {
			t.Errorf("%q: exit %d, %q; want EROFS", args, res.ExitCode, out)
		}
	}
	if got, err := os.ReadFile(filepath.Join(skillB, "scripts", "b.wasm")); err != nil || string(got) != "original module" {
		t.Errorf("skill b's module is now %q, %v", got, err)
	}
	for _, p := range []string{"scripts/new.wasm", "more"} {
		if _, err := os.Lstat(filepath.Join(skillB, p)); err == nil {
			t.Errorf("%s was created in skill b", p)
		}
	}
	audit.Has(t, "deny fs.open_write /workspace/alias/b.wasm", "protected folder "+skillB)
	audit.Has(t, "deny fs.rename /workspace/.agents -> /workspace/moved", "protected folder")

	// The rest of the workspace is writable, next to the skills too.
	out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}, Protected: []string{skillB}},
		"write", "/workspace/.agents/notes.txt", "fine")
	if err != nil || res.ExitCode != 0 {
		t.Errorf("writing next to the skills: %q, %v, %v", out, res, err)
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
	if err != nil {
		t.Fatal(err)
	}
	out, res, err := runProbe(t, s, &ScriptRun{Services: host.Services{Workspace: ws}}, "write", "/workspace/probe/scripts/probe.wasm", "evil")
	if err != nil || res.ExitCode != 1 || !strings.Contains(strings.ToLower(out), "read-only file system") {
		t.Errorf("overwriting its own module: %q, %v, %v; want EROFS", out, res, err)
	}
	if after, _ := os.ReadFile(module); !bytes.Equal(before, after) {
		t.Error("the skill's module changed")
	}
}
