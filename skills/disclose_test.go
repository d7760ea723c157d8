package skills

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadedSkill(t *testing.T) (*Skill, string) {
	t.Helper()
	base := t.TempDir()
	testkit.WriteTree(t, base, map[string]string{"secret.txt": "host secret"})
	dir := testkit.WriteTree(t, filepath.Join(base, "pdf"), map[string]string{
		"SKILL.md":            skillMD("pdf", "Read PDFs."),
		"references/forms.md": "# Forms\n",
		"assets/logo.svg":     "<svg/>",
		".git/config":         "hidden",
		"big.bin":             strings.Repeat("x", maxResourceSize+1),
	})
	require.NoError(t, os.Symlink("forms.md", filepath.Join(dir, "references", "inside.md")))
	s, err := LoadDir(dir, nil)
	require.NoError(t, err)
	// Links leading out make a skill invalid when it loads (links_test.go);
	// these are planted after loading, as a skill changed on disk would
	// be, and reading must still refuse them.
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "references", "escape.md")))
	require.NoError(t, os.Symlink(base, filepath.Join(dir, "up")))
	return s, dir
}

func TestActivate(t *testing.T) {
	s, _ := loadedSkill(t)
	act, err := s.Activate()
	require.NoError(t, err)
	assert.Equal(t, "pdf", act.Name)
	assert.Equal(t, "# pdf\n", act.Body)
	// Hidden dirs are skipped; a symlink is listed only if it stays inside.
	assert.Equal(t, []string{"SKILL.md", "assets/logo.svg", "big.bin", "references/forms.md", "references/inside.md"}, act.Files)
	assert.False(t, act.Truncated)
}

func TestReadResource(t *testing.T) {
	s, _ := loadedSkill(t)
	data, err := s.ReadResource("references/forms.md")
	require.NoError(t, err)
	assert.Equal(t, "# Forms\n", string(data))

	data, err = s.ReadResource("references/inside.md")
	require.NoError(t, err, "a symlink within the skill is followed")
	assert.Equal(t, "# Forms\n", string(data))

	data, err = s.ReadResource("./references//forms.md")
	require.NoError(t, err, "redundant separators are cleaned")
	assert.Equal(t, "# Forms\n", string(data))
}

func TestReadResourceAttacks(t *testing.T) {
	s, dir := loadedSkill(t)
	tests := []struct {
		name, path string
		outside    bool // errors.Is(err, ErrOutsideSkill)
		target     error
	}{
		{"dotdot", "../secret.txt", true, fs.ErrPermission},
		{"nested dotdot", "references/../../secret.txt", true, fs.ErrPermission},
		{"dotdot that stays inside is still refused", "references/../SKILL.md", true, fs.ErrPermission},
		{"absolute", "/etc/passwd", true, fs.ErrPermission},
		{"absolute to the skill itself", filepath.Join(dir, "SKILL.md"), true, fs.ErrPermission},
		{"windows drive", "C:/Windows/win.ini", true, fs.ErrPermission},
		{"backslash", `references\..\..\secret.txt`, true, fs.ErrPermission},
		{"nul byte", "SKILL.md\x00.png", true, fs.ErrPermission},
		{"symlink file escape", "references/escape.md", true, fs.ErrPermission},
		{"symlink dir escape", "up/secret.txt", true, fs.ErrPermission},
		{"empty", "", false, fs.ErrInvalid},
		{"dot", ".", false, fs.ErrInvalid},
		{"missing", "references/none.md", false, fs.ErrNotExist},
		{"directory", "references", false, nil},
		{"oversize", "big.bin", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := s.ReadResource(tt.path)
			require.Error(t, err)
			assert.Nil(t, data)
			assert.Equal(t, tt.outside, errors.Is(err, ErrOutsideSkill), "ErrOutsideSkill: %v", err)
			if tt.target != nil {
				assert.ErrorIs(t, err, tt.target)
			}
			var pe *fs.PathError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.path, pe.Path, "the error names the path asked for")
			assert.NotContains(t, err.Error(), "host secret")
		})
	}
}

func TestConstructedSkillHasNoFiles(t *testing.T) {
	s := &Skill{Name: "x"}
	_, err := s.ReadResource("a.md")
	assert.Error(t, err)
	_, err = s.Activate()
	assert.Error(t, err)
}
