package skills

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(ss []*Skill) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestDiscoverPrecedence(t *testing.T) {
	base := t.TempDir()
	project := testkit.WriteTree(t, filepath.Join(base, "project", ".agents", "skills"), map[string]string{
		"pdf/SKILL.md": skillMD("pdf", "project pdf"),
		"csv/SKILL.md": skillMD("csv", "project csv"),
	})
	user := testkit.WriteTree(t, filepath.Join(base, "home", ".agents", "skills"), map[string]string{
		"pdf/SKILL.md":  skillMD("pdf", "user pdf"),
		"docx/SKILL.md": skillMD("docx", "user docx"),
	})
	explicit := testkit.WriteTree(t, filepath.Join(base, "mine", "csv"), map[string]string{"SKILL.md": skillMD("csv", "explicit csv")})

	// Given lowest first, the higher origin still wins.
	d := Discover([]Root{{user, OriginUser}, {project, OriginProject}, {explicit, OriginPath}}, nil)
	require.Empty(t, d.Failed)
	got := map[string]string{}
	for _, s := range d.Skills {
		got[s.Name] = s.Description + " (" + string(s.Origin) + ")"
	}
	assert.Equal(t, map[string]string{
		"pdf":  "project pdf (project)",
		"csv":  "explicit csv (path)",
		"docx": "user docx (user)",
	}, got)
	// Each shadowed skill is reported once, naming the winner.
	var shadowed []string
	for _, p := range d.Problems {
		if p.Code == "name-collision" {
			shadowed = append(shadowed, p.File)
			assert.Equal(t, Warning, p.Severity)
		}
	}
	assert.ElementsMatch(t, []string{
		filepath.Join(resolved(t, user), "pdf", "SKILL.md"),
		filepath.Join(resolved(t, project), "csv", "SKILL.md"),
	}, shadowed)
}

func resolved(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

func TestDiscoverLayout(t *testing.T) {
	root := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"a/SKILL.md":              skillMD("a", "d"),
		"group/b/SKILL.md":        skillMD("b", "d"),
		"a/nested/SKILL.md":       skillMD("nested", "not found: inside a skill"),
		".hidden/h/SKILL.md":      skillMD("h", "d"),
		"node_modules/n/SKILL.md": skillMD("n", "d"),
		"x/y/z/too-deep/SKILL.md": skillMD("too-deep", "d"),
		"broken/SKILL.md":         "no frontmatter",
		"nodesc/SKILL.md":         "---\nname: nodesc\n---\n",
		"mismatch-dir/SKILL.md":   skillMD("mismatch", "loads with a warning"),
		"notes/readme.txt":        "not a skill",
	})
	d := Discover([]Root{{root, OriginPath}}, nil)
	assert.Equal(t, []string{"a", "b", "mismatch"}, names(d.Skills))
	require.Len(t, d.Failed, 2)
	assert.Contains(t, d.Failed[0].Dir, "broken")
	assert.Contains(t, d.Failed[1].Dir, "nodesc")
}

func TestDiscoverMissingRootIsSilent(t *testing.T) {
	d := Discover([]Root{{filepath.Join(t.TempDir(), "none"), OriginUser}}, nil)
	assert.Empty(t, d.Skills)
	assert.Empty(t, d.Problems)
}

func TestDefaultRoots(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_CONFIG_HOME", "/home/u/.config")
	roots := DefaultRoots("/p")
	assert.Equal(t, []Root{
		{"/p/.agents/skills", OriginProject},
		{"/p/.claude/skills", OriginProject},
		{"/home/u/.agents/skills", OriginUser},
		{"/home/u/.claude/skills", OriginUser},
		{"/home/u/.config/skillrun/skills", OriginUser},
	}, roots)
}

func TestFindSkills(t *testing.T) {
	root := testkit.WriteTree(t, t.TempDir(), map[string]string{"a/SKILL.md": skillMD("a", "d")})
	f := FindSkills(root)
	require.NoError(t, f.Err)
	assert.Equal(t, []string{filepath.Join(root, "a")}, f.Paths)
	f = FindSkills(filepath.Join(root, "a", "SKILL.md"))
	assert.Equal(t, []string{filepath.Join(root, "a")}, f.Paths)
	f = FindSkills(filepath.Join(root, "none"))
	assert.ErrorIs(t, f.Err, os.ErrNotExist)
}
