package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadDir(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), map[string]string{
		"SKILL.md":             skillMD("pdf", "Read PDFs."),
		"references/guide.md":  "guide",
		"scripts/extract.wasm": "\x00asm",
	})
	s, err := LoadDir(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, "pdf", s.Name)
	assert.Equal(t, "Read PDFs.", s.Description)
	assert.Equal(t, "SKILL.md", s.FileName)
	real, _ := filepath.EvalSymlinks(dir)
	assert.Equal(t, filepath.Join(real, "SKILL.md"), s.Location)
	assert.Nil(t, s.Manifest)
	assert.Empty(t, s.Problems)
}

func TestLoadLowercaseSkillMD(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), map[string]string{"skill.md": skillMD("pdf", "d")})
	s, err := LoadDir(dir, &LoadOptions{Strict: true})
	require.NoError(t, err)
	assert.Equal(t, "skill.md", s.FileName)
}

func TestLoadPathForms(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), map[string]string{"SKILL.md": skillMD("pdf", "d")})
	for _, p := range []string{dir, filepath.Join(dir, "SKILL.md")} {
		s, err := Load(p, nil)
		require.NoError(t, err, p)
		assert.Equal(t, "pdf", s.Name)
	}
	_, err := Load(filepath.Join(dir, "missing"), nil)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	other := filepath.Join(t.TempDir(), "notes.txt")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	_, err = Load(other, nil)
	assert.ErrorContains(t, err, "not a skill directory, SKILL.md file or .zip archive")
}

func TestLoadMissingSkillMD(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadDir(dir, nil)
	var le *LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, codeSkillFileMissing, le.Problems[0].Code)
	assert.Contains(t, err.Error(), "missing required file: SKILL.md")
}

func TestLoadStrictVersusLenient(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "other-dir"), map[string]string{"SKILL.md": skillMD("pdf", "d")})

	s, err := LoadDir(dir, nil)
	require.NoError(t, err, "lenient load must accept a name/directory mismatch")
	require.Len(t, s.Problems, 1)
	assert.Equal(t, Warning, s.Problems[0].Severity)
	assert.Equal(t, codeNameDirMismatch, s.Problems[0].Code)

	s, err = LoadDir(dir, &LoadOptions{Strict: true})
	var le *LoadError
	require.ErrorAs(t, err, &le)
	require.NotNil(t, s, "strict failure still returns what was parsed")
	assert.Equal(t, codeNameDirMismatch, le.Problems.Errors()[0].Code)
	assert.Contains(t, err.Error(), `SKILL.md:2: directory name "other-dir" must match skill name "pdf"`)
}

func TestLoadNeverWritesSkillDir(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), map[string]string{"SKILL.md": skillMD("pdf", "d")})
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := LoadDir(dir, &LoadOptions{Strict: true})
	require.NoError(t, err)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1)
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"skills/pdf/SKILL.md":            {Data: []byte(skillMD("pdf", "d"))},
		"skills/pdf/references/forms.md": {Data: []byte("forms")},
	}
	s, err := LoadFS(fsys, "skills/pdf", &LoadOptions{Strict: true})
	require.NoError(t, err)
	assert.Equal(t, "skills/pdf/SKILL.md", s.Location)
	data, err := s.ReadResource("references/forms.md")
	require.NoError(t, err)
	assert.Equal(t, "forms", string(data))

	_, err = LoadFS(fsys, "../x", nil)
	assert.ErrorIs(t, err, fs.ErrInvalid)

	// The root of an fs.FS has no name: DirName supplies it.
	root := fstest.MapFS{"SKILL.md": {Data: []byte(skillMD("pdf", "d"))}}
	_, err = LoadFS(root, ".", &LoadOptions{Strict: true, DirName: "pdf"})
	require.NoError(t, err)
	_, err = LoadFS(root, ".", &LoadOptions{Strict: true, DirName: "other"})
	require.Error(t, err)
}

func TestLoadOversizeSkillMD(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "big"), map[string]string{
		"SKILL.md": skillMD("big", "d") + strings.Repeat("x", maxSkillFileSize),
	})
	_, err := LoadDir(dir, nil)
	var le *LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, codeTooLarge, le.Problems[0].Code)
}

func TestLoadManifest(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "csv"), map[string]string{
		"SKILL.md":   skillMD("csv", "d"),
		"skill.toml": "version = 1\ntriggers = [\"csv\"]\n[scripts.stats]\nmodule = \"scripts/stats.wasm\"\n",
	})
	s, err := LoadDir(dir, &LoadOptions{Strict: true})
	require.NoError(t, err)
	require.NotNil(t, s.Manifest)
	assert.Equal(t, []string{"csv"}, s.Triggers())
	assert.Equal(t, "scripts/stats.wasm", s.Manifest.Scripts["stats"].Module)
}

func TestLoadBrokenManifestIsFatal(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "csv"), map[string]string{
		"SKILL.md":   skillMD("csv", "d"),
		"skill.toml": "version = 1\n[scripts.stats]\nmodle = \"x.wasm\"\n",
	})
	for _, strict := range []bool{false, true} {
		_, err := LoadDir(dir, &LoadOptions{Strict: strict})
		var le *LoadError
		require.ErrorAs(t, err, &le, "strict=%v", strict)
		assert.Contains(t, err.Error(), "skill.toml:3")
	}
}

// TestLoadManifestSymlinkEscape: a module path that is lexically fine but
// is a symlink leading outside the skill folder is refused at load.
func TestLoadManifestSymlinkEscape(t *testing.T) {
	outside := testkit.WriteTree(t, t.TempDir(), map[string]string{"evil.wasm": "\x00asm"})
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "csv"), map[string]string{
		"SKILL.md":   skillMD("csv", "d"),
		"skill.toml": "version = 1\n[scripts.stats]\nmodule = \"scripts/stats.wasm\"\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil.wasm"), filepath.Join(dir, "scripts", "stats.wasm")))
	_, err := LoadDir(dir, nil)
	var le *LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, codeManifestPathOutside, le.Problems.Errors()[0].Code)
	assert.Contains(t, err.Error(), "path leads outside the skill folder")
}

func TestEscapeMessagePinned(t *testing.T) {
	// isEscape matches os.Root's message; this pins it across Go releases.
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "link")))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	_, err = root.Open("link/passwd")
	require.Error(t, err)
	assert.True(t, isEscape(err), "os.Root escape error changed: %v", err)
	assert.False(t, isEscape(fs.ErrNotExist))
	assert.False(t, isEscape(nil))
	assert.True(t, errors.Is(ErrOutsideSkill, fs.ErrPermission))
}

// TestLoadSkillFileLinkOut: a SKILL.md that is a symbolic link leading out
// of its folder is refused (skillrun never reads outside a skill), and the
// problem says what it is instead of "missing".
func TestLoadSkillFileLinkOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "SKILL.md")
	require.NoError(t, os.WriteFile(outside, []byte("---\nname: linked\ndescription: d\n---\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "linked")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if err := os.Symlink(outside, filepath.Join(dir, "SKILL.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	_, err := LoadDir(dir, &LoadOptions{Strict: true})
	var le *LoadError
	require.ErrorAs(t, err, &le)
	require.Len(t, le.Problems, 1)
	assert.Equal(t, codeSkillFileMissing, le.Problems[0].Code)
	assert.Contains(t, le.Problems[0].Message, "SKILL.md is a symbolic link to "+fmt.Sprintf("%q", outside)+", which leads out of the skill folder")

	// A folder named SKILL.md is said to be one.
	dir2 := filepath.Join(t.TempDir(), "odd")
	require.NoError(t, os.MkdirAll(filepath.Join(dir2, "SKILL.md"), 0o755))
	_, err = LoadDir(dir2, nil)
	require.ErrorAs(t, err, &le)
	assert.Contains(t, le.Problems[0].Message, "SKILL.md is not a regular file (d")
}
