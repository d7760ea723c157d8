package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeSkill makes a minimal skill folder named after its last element.
func writeSkill(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	md := "---\nname: " + filepath.Base(dir) + "\ndescription: A decoy.\n---\nx\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
}

// tree lists every path under root.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

// TestResolveSkillsHostileRefs: a plugin-sets entry is a repository
// reference whose parts become folders under the repositories cache and
// words of the clone command skillrun suggests. A reference whose host,
// owner or repository climbs out ("git@../..:owner/repo") used to load
// the skills it reached outside the cache; each must be an error naming
// the reference, pointing nowhere outside the cache, creating nothing.
func TestResolveSkillsHostileRefs(t *testing.T) {
	root := t.TempDir()
	setsFile := filepath.Join(root, "sets", "plugin-sets.yaml")
	repos := filepath.Join(root, "cache", "repos")
	require.NoError(t, os.MkdirAll(filepath.Dir(setsFile), 0o755))
	require.NoError(t, os.WriteFile(setsFile, []byte("sets: []\n"), 0o644))
	// Decoys where the hostile references lead, outside the cache (or,
	// for owner/.., the cache's own host folder). A local path is the
	// file author's to choose (../x/y would load root/x/y if it were
	// there), but is never taken for a repository.
	for _, d := range []string{"owner/repo", "cache/owner/repo", "cache/a/b"} {
		writeSkill(t, filepath.Join(root, d))
	}
	writeSkill(t, filepath.Join(repos, "github.com", "owner", "repo"))
	before := tree(t, root)

	for _, tc := range []struct {
		entry string
		want  string // in the error
	}{
		{"git@../..:owner/repo", `host "../.."`},
		{"git@..:owner/repo", `host ".."`},
		{"git@-oProxyCommand=x:owner/repo", `host "-oProxyCommand=x"`},
		{"git@host/..:owner/repo", `host "host/.."`},
		{"https://../a/b", `host ".."`},
		{"https://../../a/b", `host ".."`},
		{"http://a..b/o/r", `host "a..b"`},
		{"https://h:22/o/r", `host "h:22"`},
		{"https://[fe80::1%25eth0]/o/r", `host "[fe80::1%25eth0]"`},
		{"https://github.com/owner/..", `repository ".."`},
		{"https://github.com/../repo", `owner ".."`},
		{"https://github.com/owner/-upload-pack=x", `repository "-upload-pack=x"`},
		{"https://github.com/owner/.hidden", `repository ".hidden"`},
		{"https://github.com/owner/a..b", `repository "a..b"`},
		{"https://github.com/o/r/../../x", `"o/r/../../x" is not owner/repo`},
		{"git@github.com:owner/../..", `"owner/../.." is not owner/repo`},
		{"owner/..", `repository ".."`},
		{"owner/../..", "not a repository reference"},
		{"../x/y", "not a repository reference"},
		{"-oProxyCommand=x/y", "not a repository reference"},
		{"own_er/repo", `owner "own_er"`},
		{strings.Repeat("a", 40) + "/r", "owner"},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			set := &PluginSet{Name: "arm", Skills: []string{tc.entry}}
			got, err := ResolveSkills(set, setsFile, repos)
			require.Error(t, err, "resolved %v", got)
			msg := err.Error()
			assert.Contains(t, msg, `skill "`+tc.entry+`"`)
			assert.Contains(t, msg, tc.want)
			for _, outside := range []string{"owner/repo", "cache/owner", "cache/a"} {
				assert.NotContains(t, msg, filepath.Join(root, outside), "the error points outside the cache")
			}
		})
	}
	assert.Equal(t, before, tree(t, root), "something was created")
}

// TestResolveSkillsRepoRefs: the reference forms that are valid resolve
// inside the cache, or say the clone command with a folder inside it.
func TestResolveSkillsRepoRefs(t *testing.T) {
	root := t.TempDir()
	setsFile := filepath.Join(root, "plugin-sets.yaml")
	repos := filepath.Join(root, "repos")
	writeSkill(t, filepath.Join(repos, "github.com", "owner", "repo"))
	writeSkill(t, filepath.Join(repos, "git.example.org", "team-1", "my.skills_2"))
	writeSkill(t, filepath.Join(repos, "10.0.0.7", "o", "r"))
	for _, entry := range []string{"owner/repo", "owner/repo.git", "https://github.com/owner/repo", "git@github.com:owner/repo.git",
		"https://git.example.org/team-1/my.skills_2/", "git@10.0.0.7:o/r"} {
		got, err := ResolveSkills(&PluginSet{Name: "arm", Skills: []string{entry}}, setsFile, repos)
		require.NoError(t, err, entry)
		require.Len(t, got, 1, entry)
		assert.True(t, strings.HasPrefix(got[0].Location, repos+string(filepath.Separator)), "%s: %s", entry, got[0].Location)
	}
	_, err := ResolveSkills(&PluginSet{Name: "arm", Skills: []string{"git@[::1]:o/r"}}, setsFile, repos)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `host "["`)
	_, err = ResolveSkills(&PluginSet{Name: "arm", Skills: []string{"https://[::1]/o/r"}}, setsFile, repos)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "clone it first: git clone https://[::1]/o/r "+filepath.Join(repos, "[::1]", "o", "r"))
}
