//go:build unix

package fsguard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a root folder holding a protected folder p/q/skill, links to
// it and around it, and a plain folder "free":
//
//	root/p/q/skill/mod.wasm
//	root/free/
//	root/alias   -> p/q/skill
//	root/up      -> free/..      (the root, by a detour)
//	root/loop    -> loop
//	root/out     -> /
func fixture(t *testing.T) (dir, skill string, root *os.Root) {
	t.Helper()
	dir = t.TempDir()
	skill = filepath.Join(dir, "p", "q", "skill")
	for _, err := range []error{
		os.MkdirAll(skill, 0o755),
		os.Mkdir(filepath.Join(dir, "free"), 0o755),
		os.WriteFile(filepath.Join(skill, "mod.wasm"), []byte("m"), 0o644),
		os.Symlink("p/q/skill", filepath.Join(dir, "alias")),
		os.Symlink("free/..", filepath.Join(dir, "up")),
		os.Symlink("loop", filepath.Join(dir, "loop")),
		os.Symlink("/", filepath.Join(dir, "out")),
	} {
		require.NoError(t, err)
	}
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return dir, skill, root
}

func TestGuardCheck(t *testing.T) {
	dir, skill, root := fixture(t)
	g, err := New(root, dir, []string{skill, filepath.Join(dir, "missing"), t.TempDir()})
	require.NoError(t, err, "New")
	require.NotNil(t, g, "New; want a guard")
	tests := []struct {
		name    string
		follow  bool
		want    string // the resolved path, "" for a refusal
		wantErr error
	}{
		{"p/q/skill/mod.wasm", true, "", ErrProtected},
		{"p/q/skill/new/deeper.wasm", false, "", ErrProtected},
		{"alias/mod.wasm", true, "", ErrProtected},
		{"up/p/q/skill/mod.wasm", false, "", ErrProtected},
		{"free/../p/q/skill", false, "", ErrProtected}, // the folder itself
		{"p/q", false, "", ErrProtected},               // an ancestor
		{"p", false, "", ErrProtected},
		{"alias", false, "alias", nil}, // the link itself, not its target
		{"alias", true, "", ErrProtected},
		{"p/other.txt", false, "p/other.txt", nil},
		{"up/free/x", false, "free/x", nil},
		{"free/new/x", false, "free/new/x", nil},
		{"loop/x", false, "", syscall.ELOOP},
		{"out/etc/passwd", false, "", errEscapes},
		{"../x", false, "", errEscapes},
	}
	for _, tt := range tests {
		got, err := g.Check(root, tt.name, tt.follow)
		assert.Equal(t, tt.want, got, "Check(%q, follow=%v)", tt.name, tt.follow)
		if tt.wantErr == nil {
			assert.NoError(t, err, "Check(%q, follow=%v)", tt.name, tt.follow)
		} else {
			assert.ErrorIs(t, err, tt.wantErr, "Check(%q, follow=%v)", tt.name, tt.follow)
		}
	}
	_, err = g.Check(root, "alias/mod.wasm", true)
	assert.ErrorIs(t, err, fs.ErrPermission, "a refusal does not match fs.ErrPermission")
}

// TestGuardNothingListed: with no protected folder in the root, a Guard
// still refuses changes to skill folders but allows everything else, and a
// nil Guard allows everything.
func TestGuardNothingListed(t *testing.T) {
	dir, _, root := fixture(t)
	for _, protected := range [][]string{nil, {t.TempDir()}, {filepath.Join(dir, "nope")}} {
		g, err := New(root, dir, protected)
		require.NoError(t, err, "New(%v)", protected)
		require.NotNil(t, g, "New(%v); want a guard", protected)
		got, err := g.Check(root, "alias/mod.wasm", true)
		assert.NoError(t, err, "New(%v): Check", protected)
		assert.Equal(t, "p/q/skill/mod.wasm", got, "New(%v): Check; want the resolved path", protected)
	}
	var g *Guard
	got, err := g.Check(root, "alias/mod.wasm", true)
	assert.NoError(t, err, "nil guard Check")
	assert.Equal(t, "alias/mod.wasm", got, "nil guard Check")
}

// unlistedGuard opens dir as a root and returns it with its Guard, which
// lists no protected folder.
func unlistedGuard(t *testing.T, dir string) (*os.Root, *Guard) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	g, err := New(root, dir, nil)
	require.NoError(t, err)
	return root, g
}

// TestGuardSkillFolders: any folder holding a SKILL.md (or skill.md) is
// protected without being listed: nothing in it may change, and neither it
// nor a folder holding it may be renamed; folders beside it stay free, and
// a new skill folder can be written until its SKILL.md exists (issue 11,
// finding 4: one skill rewriting another's module).
func TestGuardSkillFolders(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"skills/victim/SKILL.md", "skills/victim/scripts/run.wasm", "skills/lower/skill.md", "skills/deep/a/b/c/SKILL.md", "free/x.txt", "new/scripts/run.wasm"} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	require.NoError(t, os.Symlink("skills/victim", filepath.Join(dir, "alias")))
	root, g := unlistedGuard(t, dir)
	tests := []struct {
		name    string
		follow  bool
		refused bool
	}{
		{"skills/victim/scripts/run.wasm", true, true},
		{"skills/victim/SKILL.md", true, true},
		{"skills/victim/new.txt", false, true},
		{"alias/scripts/run.wasm", true, true},
		{"skills/victim", false, true}, // renaming the skill folder
		{"skills", false, true},        // or a folder holding one
		{"skills/deep/a", false, true}, // however deep it lies
		{"skills/lower/scripts/x", false, true},
		{"skills/other.txt", false, false},
		{"free/x.txt", true, false},
		{"free", false, false},
		{"new/scripts/run.wasm", true, false}, // no SKILL.md yet
		{"new/SKILL.md", false, false},
	}
	for _, tt := range tests {
		_, err := g.Check(root, tt.name, tt.follow)
		if tt.refused {
			assert.ErrorIs(t, err, ErrProtected, "Check(%q); want it refused", tt.name)
		} else {
			assert.NoError(t, err, "Check(%q); want it allowed", tt.name)
		}
	}
	var pe *ProtectedError
	_, err := g.Check(root, "skills/victim/scripts/run.wasm", true)
	if assert.ErrorAs(t, err, &pe) {
		assert.Equal(t, filepath.Join(dir, "skills", "victim"), pe.Dir, "the refusal; want the skill folder named")
	}
}

// TestGuardSearchBound: a folder too large to search for skill folders
// cannot be renamed (fail closed), one within the bound can.
func TestGuardSearchBound(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"big", "small"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	for i := range MaxSearch + 1 {
		f, err := os.Create(filepath.Join(dir, "big", strconv.Itoa(i)))
		require.NoError(t, err)
		f.Close()
	}
	root, g := unlistedGuard(t, dir)
	_, err := g.Check(root, "big", false)
	assert.ErrorIs(t, err, ErrTooLarge, "renaming a folder of %d entries", MaxSearch+1)
	assert.ErrorIs(t, err, fs.ErrPermission, "renaming a folder of %d entries", MaxSearch+1)
	_, err = g.Check(root, "small", false)
	assert.NoError(t, err, "renaming a small folder")
}

// TestGuardRootInside: a root that is a protected folder, or inside one,
// allows no change at all.
func TestGuardRootInside(t *testing.T) {
	dir, skill, _ := fixture(t)
	for _, sub := range []string{"", "p"} {
		inner, err := os.OpenRoot(filepath.Join(skill, sub))
		if sub != "" {
			require.NoError(t, os.Mkdir(filepath.Join(skill, sub), 0o755))
			inner, err = os.OpenRoot(filepath.Join(skill, sub))
		}
		require.NoError(t, err)
		defer inner.Close()
		g, err := New(inner, filepath.Join(skill, sub), []string{filepath.Join(dir, "alias")})
		require.NoError(t, err)
		_, err = g.Check(inner, "x", false)
		assert.ErrorIs(t, err, ErrProtected, "root %q inside the protected folder: Check", sub)
	}
}

func TestOpenRoot(t *testing.T) {
	dir, skill, _ := fixture(t)
	_, err := OpenRoot(dir, "out", false, nil)
	assert.Error(t, err, "OpenRoot through a link to / succeeded")
	_, err = OpenRoot(dir, "alias/new", true, []string{skill})
	assert.ErrorIs(t, err, ErrProtected, "creating a folder in a protected folder")
	_, err = os.Stat(filepath.Join(skill, "new"))
	assert.Error(t, err, "the folder was created")
	r, err := OpenRoot(dir, "free/made", true, []string{skill})
	require.NoError(t, err)
	r.Close()
	r, err = OpenRoot(dir, "alias", false, nil) // a link inside is fine
	require.NoError(t, err)
	defer r.Close()
	_, err = r.Stat("mod.wasm")
	assert.NoError(t, err)
}

func TestOpenFileSpecial(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	_, err = OpenFile(root, "fifo", os.O_RDONLY, 0)
	assert.ErrorIs(t, err, ErrSpecial, "OpenFile(fifo)")
	f, err := OpenFile(root, "f", os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	var flags int
	rc, _ := f.SyscallConn()
	_ = rc.Control(func(fd uintptr) {
		r, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(r)
	})
	assert.Zero(t, flags&syscall.O_NONBLOCK, "O_NONBLOCK left set on a regular file")
}

// TestGuardModuleFolders: the other modules whose code or instructions
// run later with grants of their own are protected like skill folders: a
// YAML tool module (the attack: a shell command rewrote
// mods/tools/greet/hello.sh and the next greet__hello call ran it), a YAML
// skill module, an agents folder of YAML agents, and every
// .AchillesSkills folder of Markdown skills.
func TestGuardModuleFolders(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"mods/tools/greet/tool.yaml", "mods/tools/greet/hello.sh",
		"mods/tools/old/tool.yml", "mods/tools/old/run.sh",
		"mods/skills/report/skill.yaml", "mods/skills/report/executor.py",
		"mods/agents/helper.yaml",
		"proj/.AchillesSkills/notes.tskill.md", "proj/.AchillesSkills/plan/oskill.md",
		"data/agents/readme.txt", // an agents folder holding no agent
		"data/free.txt",
	} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	root, g := unlistedGuard(t, dir)
	for _, tt := range []struct {
		name    string
		follow  bool
		refused bool
	}{
		{"mods/tools/greet/hello.sh", true, true},
		{"mods/tools/greet/tool.yaml", true, true},
		{"mods/tools/greet/new.sh", false, true},
		{"mods/tools/old/run.sh", true, true},
		{"mods/tools/greet", false, true}, // renaming the module
		{"mods/tools", false, true},       // or a folder holding one
		{"mods", false, true},
		{"mods/skills/report/executor.py", true, true},
		{"mods/agents/helper.yaml", true, true},
		{"mods/agents/new.yaml", false, true},
		{"proj/.AchillesSkills/notes.tskill.md", true, true},
		{"proj/.AchillesSkills/new.cskill.md", false, true},
		{"proj/.AchillesSkills/plan/oskill.md", true, true},
		{"proj", false, true},
		{"data/agents/readme.txt", true, false},
		{"data/agents/notes.txt", false, false},
		{"data/free.txt", true, false},
		{"data", false, false},
	} {
		_, err := g.Check(root, tt.name, tt.follow)
		if tt.refused {
			assert.ErrorIs(t, err, ErrProtected, "Check(%q); want it refused", tt.name)
		} else {
			assert.NoError(t, err, "Check(%q); want it allowed", tt.name)
		}
	}
	// A root that is itself a .AchillesSkills folder.
	ms := filepath.Join(dir, "proj", ".AchillesSkills")
	msRoot, msGuard := unlistedGuard(t, ms)
	_, err := msGuard.Check(msRoot, "notes.tskill.md", true)
	assert.ErrorIs(t, err, ErrProtected, "writing into a .AchillesSkills root; want refused")
}
