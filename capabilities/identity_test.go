package capabilities

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPolicyGrantIdentity: a table by name goes to the skill the operator
// meant, never to whoever claims the name (issue 11, finding 14).
func TestPolicyGrantIdentity(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	real := filepath.Join(home, ".agents", "skills", "deploy")
	require.NoError(t, os.MkdirAll(real, 0o755))
	link := filepath.Join(home, "deploy-link")
	require.NoError(t, os.Symlink(real, link))
	hostile := filepath.Join(home, "repo", ".agents", "skills", "zz-helper")
	const digest = "sha256:" + "ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01"
	byName, err := ParsePolicy([]byte(`
[default]
read = ["workspace"]
[skills.deploy]
env = ["API_TOKEN"]
`), filepath.Join(home, "policy.toml"))
	require.NoError(t, err)
	pinned, err := ParsePolicy([]byte(`
[default]
read = ["workspace"]
[skills.deploy]
path = "~/.agents/skills/deploy"
env = ["API_TOKEN"]
[skills.pinned]
path = "deploy-link"
digest = "`+digest+`"
env = ["API_TOKEN"]
`), filepath.Join(home, "policy.toml"))
	require.NoError(t, err)
	assert.Equal(t, real, pinned.Identities["deploy"].Path, "~/ path")
	assert.Equal(t, link, pinned.Identities["pinned"].Path, "relative path (from the policy's folder)")
	digestOf := func(d string) func() (string, error) { return func() (string, error) { return d, nil } }
	token := Set{Read: []Path{{Root: RootWorkspace}}, Env: []string{"API_TOKEN"}}
	def := Set{Read: []Path{{Root: RootWorkspace}}}
	tests := []struct {
		name    string
		policy  *Policy
		ref     SkillRef
		want    Set
		wantErr string // substring; "" means no error
	}{
		{"by name, folder matches, alone", byName,
			SkillRef{Name: "deploy", Path: real, Folder: "deploy"}, token, ""},
		{"by name, folder differs (the attack)", byName,
			SkillRef{Name: "deploy", Path: hostile, Folder: "zz-helper"}, def, `its folder is named "zz-helper", not "deploy"`},
		{"by name, a rival claims it", byName,
			SkillRef{Name: "deploy", Path: real, Folder: "deploy", Rivals: []string{hostile}}, def, `1 other skills claim the name "deploy" ("` + hostile},
		{"by name, the rival itself", byName,
			SkillRef{Name: "deploy", Path: hostile, Folder: "deploy", Rivals: []string{real}}, def, "pin the one meant"},
		{"look-alike name gets no table", byName,
			SkillRef{Name: "ｄeploy", Path: hostile, Folder: "ｄeploy"}, def, ""},
		{"other skill gets the default", byName,
			SkillRef{Name: "csv", Path: hostile, Folder: "csv"}, def, ""},
		{"pinned, at the path, despite a rival", pinned,
			SkillRef{Name: "deploy", Path: real, Folder: "deploy", Rivals: []string{hostile}}, token, ""},
		{"pinned, elsewhere", pinned,
			SkillRef{Name: "deploy", Path: hostile, Folder: "deploy"}, def, `the policy pins it to path "` + real},
		{"pinned with digest, through a link, same digest", pinned,
			SkillRef{Name: "pinned", Path: real, Folder: "deploy", Digest: digestOf(digest)}, token, ""},
		{"pinned with digest, changed files", pinned,
			SkillRef{Name: "pinned", Path: real, Folder: "deploy", Digest: digestOf("sha256:00")}, def, "its files changed"},
		{"pinned with digest, no digest", pinned,
			SkillRef{Name: "pinned", Path: real, Folder: "deploy"}, def, "has none"},
		{"nil policy", nil, SkillRef{Name: "deploy", Path: real, Folder: "deploy"}, Set{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.policy.Grant(tt.ref)
			assert.Equal(t, tt.want, got, "grant")
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else if assert.ErrorContains(t, err, tt.wantErr) {
				assert.ErrorIs(t, err, errNotBound)
			}
		})
	}
}

func TestPolicyIdentityErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"[skills.a]\npath = 3\n", `p.toml:2: skills.a.path: expected a string, found an integer`},
		{"[skills.a]\npath = \"\"\n", `p.toml:2: skills.a.path: "" is not a path`},
		{"[skills.a]\npath = \"/x\"\ndigest = \"md5:00\"\n", `p.toml:3: skills.a.digest: "md5:00" is not a digest`},
		{"[skills.a]\ndigest = \"sha256:" + strings.Repeat("0", 64) + "\"\n", "a digest pins a skill only with its path"},
	}
	for _, tt := range tests {
		_, err := ParsePolicy([]byte(tt.src), "p.toml")
		assert.ErrorContains(t, err, tt.want, "%q", tt.src)
	}
}
