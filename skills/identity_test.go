package skills

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSymlinkOutsideMakesSkillInvalid: a skill shipping a link that leads
// out of its folder is invalid for validate and refused by the loaders
// (issue 11, finding 1); links that stay inside are fine.
func TestSymlinkOutsideMakesSkillInvalid(t *testing.T) {
	tests := []struct {
		name   string
		link   string // slash path in the skill
		target string
		want   string // in the problem; "" means the skill is valid
	}{
		{"root", "references", "/", `symlink "references" points to "/", an absolute path outside the skill folder`},
		{"sibling", "x", "../other", `symlink "x" points to "../other", which is "../other" relative to the skill folder: outside it`},
		{"deep climb", "docs/up", "../../..", `which is "../.." relative to the skill folder`},
		{"chain", "docs/hop", "../via", `symlink "docs/hop" (to "../via") cannot be followed inside the skill folder`},
		{"inside", "docs/alias.md", "forms.md", ""},
		{"inside via dotdot", "docs/back.md", "../SKILL.md", ""},
		{"dangling inside", "docs/later.md", "missing.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			testkit.WriteTree(t, base, map[string]string{"other/secret.txt": "host secret"})
			dir := testkit.WriteTree(t, filepath.Join(base, "pdf"), map[string]string{
				"SKILL.md":      skillMD("pdf", "Read PDFs."),
				"docs/forms.md": "# Forms\n",
			})
			if tt.name == "chain" {
				// via -> . and hop -> ../via/.. are inside as written
				// ("docs/../via/.." is "."), but the real walk
				// goes to via's target, the skill folder, then above it.
				require.NoError(t, os.Symlink(".", filepath.Join(dir, "via")))
				tt.target = "../via/.."
				tt.want = `symlink "docs/hop" (to "../via/..") cannot be followed inside the skill folder`
			}
			require.NoError(t, os.Symlink(tt.target, filepath.Join(dir, filepath.FromSlash(tt.link))))
			for _, strict := range []bool{true, false} {
				s, err := Load(dir, &LoadOptions{Strict: strict})
				if tt.want == "" {
					require.NoError(t, err)
					require.NotNil(t, s)
					continue
				}
				var le *LoadError
				require.True(t, errors.As(err, &le), "strict=%v: want a LoadError, got %v", strict, err)
				var found bool
				for _, p := range le.Problems {
					if p.Code == codeSymlinkOutside && p.Severity == Error {
						found = true
						assert.Contains(t, p.Message, tt.want)
						assert.Equal(t, filepath.Join(dir, filepath.FromSlash(tt.link)), p.File, "the problem names the link")
					}
				}
				assert.True(t, found, "strict=%v: no %s error in %v", strict, codeSymlinkOutside, le.Problems)
			}
		})
	}
}

var time0 = time.Unix(1, 0)

func TestDigest(t *testing.T) {
	files := map[string]string{
		"SKILL.md":            skillMD("pdf", "Read PDFs."),
		"references/forms.md": "# Forms\n",
		"scripts/run.py":      "print(1)\n",
	}
	a := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), files)
	b := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), files)
	digest := func(dir string) string {
		t.Helper()
		s, err := LoadDir(dir, nil)
		require.NoError(t, err)
		d, err := s.Digest()
		require.NoError(t, err)
		require.Regexp(t, `^sha256:[0-9a-f]{64}$`, d)
		return d
	}
	da := digest(a)
	assert.Equal(t, da, digest(b), "the same files in another place have the same digest")
	require.NoError(t, os.Chtimes(filepath.Join(b, "SKILL.md"), time0, time0))
	assert.Equal(t, da, digest(b), "times are not content")

	testkit.WriteTree(t, b, map[string]string{"scripts/run.py": "print(2)\n"})
	assert.NotEqual(t, da, digest(b), "a changed file changes the digest")
	c := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), files)
	require.NoError(t, os.Rename(filepath.Join(c, "scripts/run.py"), filepath.Join(c, "scripts/run2.py")))
	assert.NotEqual(t, da, digest(c), "a renamed file changes the digest")
	d := testkit.WriteTree(t, filepath.Join(t.TempDir(), "pdf"), files)
	require.NoError(t, os.Symlink("forms.md", filepath.Join(d, "references/alias.md")))
	assert.NotEqual(t, da, digest(d), "an added link changes the digest")

	// A zip of the same files has the same digest as the folder.
	var zipped []zipTestEntry
	for _, name := range sortedKeys(files) {
		zipped = append(zipped, zipTestEntry{name: name, body: files[name]})
	}
	data := zipTestArchive(t, zipped, nil)
	s, err := LoadZipReader(bytes.NewReader(data), int64(len(data)), "pdf.zip", nil)
	require.NoError(t, err)
	dz, err := s.Digest()
	require.NoError(t, err)
	assert.Equal(t, da, dz)
}

// TestDiscoverRivals: a project skill claiming the user's skill's name,
// or a look-alike of it, is a collision recorded on the kept skill (so no
// grant by name goes to either), and the warning shows both names as
// written, escaped (issue 11, finding 14).
func TestDiscoverRivals(t *testing.T) {
	base := t.TempDir()
	project := testkit.WriteTree(t, filepath.Join(base, "repo", ".agents", "skills"), map[string]string{
		"zz-helper/SKILL.md": skillMD("deploy", "Deploys, honestly."),
		"lookalike/SKILL.md": skillMD("ｄeploy\u200b", "Also deploys."),
		"other/SKILL.md":     skillMD("other", "Unrelated."),
	})
	user := testkit.WriteTree(t, filepath.Join(base, "home", ".agents", "skills"), map[string]string{
		"deploy/SKILL.md": skillMD("deploy", "The user's own deploy."),
	})
	d := Discover([]Root{{project, OriginProject}, {user, OriginUser}}, nil)
	var names []string
	for _, s := range d.Skills {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"ｄeploy\u200b", "other"}, names, "one skill per name, the project's first (lexical order)")
	kept := d.Skills[0]
	assert.Len(t, kept.Rivals, 2)
	assert.Contains(t, kept.Rivals, filepath.Join(project, "zz-helper"))
	assert.Contains(t, kept.Rivals, filepath.Join(user, "deploy"))
	assert.Empty(t, d.Skills[1].Rivals)
	ref := kept.Ref()
	assert.Equal(t, filepath.Join(project, "lookalike"), ref.Path)
	assert.Equal(t, "lookalike", ref.Folder)

	var msgs []string
	for _, p := range d.Problems {
		if p.Code == "name-collision" {
			msgs = append(msgs, p.Error())
		}
	}
	require.Len(t, msgs, 2, "%v", d.Problems)
	all := strings.Join(msgs, "\n")
	assert.Contains(t, all, `"ｄeploy\u200b"`, "the look-alike is shown as written, its zero-width space escaped")
	assert.NotContains(t, all, "\u200b")
	assert.Contains(t, all, filepath.Join(user, "deploy", "SKILL.md"))
}

// TestProblemErrorIsTerminalSafe: a folder or key name with escape codes
// reaches the terminal escaped.
func TestProblemErrorIsTerminalSafe(t *testing.T) {
	dir := testkit.WriteTree(t, filepath.Join(t.TempDir(), "x\x1b[2Jy"), map[string]string{
		"SKILL.md": "---\nname: deploy\ndescription: d\n\"evil\x1b[?7l\": 1\n---\n",
	})
	_, err := Load(dir, &LoadOptions{Strict: true})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\x1b")
	assert.Contains(t, err.Error(), `x\x1b[2Jy`)
}

func TestZipCaseDuplicates(t *testing.T) {
	for _, pair := range [][2]string{
		{"SKILL.md", "skill.md"},
		{"pdf/SKILL.md", "pdf/Skill.MD"},
		{"scripts/run.py", "Scripts/run.py"},
		{"café.md", "cafe\u0301.md"},
	} {
		data := zipTestArchive(t, []zipTestEntry{
			{name: "SKILL.md", body: skillMD("pdf", "d")},
			{name: pair[0], body: "one"},
			{name: pair[1], body: "two"},
		}, nil)
		if pair[0] == "SKILL.md" {
			data = zipTestArchive(t, []zipTestEntry{{name: pair[0], body: skillMD("pdf", "d")}, {name: pair[1], body: "two"}}, nil)
		}
		_, err := LoadZipReader(bytes.NewReader(data), int64(len(data)), "pdf.zip", nil)
		require.ErrorIs(t, err, errUnsafeZip, "%q and %q", pair[0], pair[1])
		assert.Contains(t, err.Error(), "only in case")
	}
}
