package capabilities

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolve: the resolver adds policy, flags, -A and limits up the way
// the CLI documents, and a skill never gets more than it declares.
func TestResolve(t *testing.T) {
	pol, err := ParsePolicy([]byte(`
[default]
read = ["workspace"]
[skills.deploy]
env = ["API_TOKEN"]
timeout = "20s"
`), "/etc/skillrun/policy.toml")
	require.NoError(t, err)
	declared := parseSet(t, `
read    = ["skill", "workspace/data"]
write   = ["workspace/out"]
env     = ["API_TOKEN", "LANG"]
timeout = "30s"
`)
	deploy := SkillRef{Name: "deploy", Path: "/skills/deploy", Folder: "deploy"}
	for _, tc := range []struct {
		name         string
		r            *Resolver
		ref          SkillRef
		eff, missing string
		sources      []string
		unbound      bool
	}{
		{"nil resolver grants nothing", nil, deploy,
			"timeout=30s", "read=skill,workspace/data, write=workspace/out, env=API_TOKEN,LANG", nil, false},
		{"zero resolver grants nothing", &Resolver{}, deploy,
			"timeout=30s", "read=skill,workspace/data, write=workspace/out, env=API_TOKEN,LANG", nil, false},
		{"policy table by identity", &Resolver{Policy: pol}, deploy,
			"read=workspace/data, env=API_TOKEN, timeout=20s", "write=workspace/out",
			[]string{`policy [skills."deploy"]`}, false},
		{"policy table not this skill's: default only", &Resolver{Policy: pol},
			SkillRef{Name: "deploy", Path: "/repo/zz-helper", Folder: "zz-helper"},
			"read=workspace/data, timeout=30s", "write=workspace/out, env=API_TOKEN,LANG",
			[]string{"policy [default]"}, true},
		{"-A is the declaration, nothing more", &Resolver{All: true}, deploy,
			"read=skill,workspace/data, write=workspace/out, env=API_TOKEN,LANG, timeout=30s", "nothing",
			[]string{"-A"}, false},
		{"flags narrow, limits replace the policy's", &Resolver{Policy: pol, Timeout: Duration(5 * time.Second),
			Flags: []FlagGrant{{Kind: "write"}, {Kind: "env", Value: "LANG", HasValue: true}}}, deploy,
			"read=workspace/data, write=workspace/out, env=API_TOKEN,LANG, timeout=5s", "nothing",
			[]string{`policy [skills."deploy"]`, "--allow-write", "--allow-env=LANG", "--timeout=5s"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.r.Resolve(tc.ref, declared)
			require.NoError(t, err)
			assert.Equal(t, tc.eff, Describe(res.Effective), "effective")
			assert.Equal(t, tc.missing, Describe(res.Missing), "missing")
			if len(tc.sources) == 0 {
				assert.Empty(t, res.Sources, "sources")
			} else {
				assert.Equal(t, tc.sources, res.Sources, "sources")
			}
			assert.Equal(t, tc.unbound, errors.Is(res.Unbound, errNotBound), "unbound: %v", res.Unbound)
			assert.Equal(t, tc.eff, Describe(Effective(declared, res.Granted)), "Effective(declared, Granted), not the resolution's")
		})
	}
}

// TestResolveErrors: a bad flag or limit is an error naming it, and
// grants nothing.
func TestResolveErrors(t *testing.T) {
	declared := parseSet(t, `read = ["workspace/data"]`)
	for _, tc := range []struct {
		r    Resolver
		want string
	}{
		{Resolver{Flags: []FlagGrant{{Kind: "read", Value: "workspace/x", HasValue: true}}}, "--allow-read=workspace/x grants nothing"},
		{Resolver{Flags: []FlagGrant{{Kind: "disk"}}}, `unknown capability kind "disk"`},
		{Resolver{Timeout: Duration(-time.Second)}, "--timeout must be positive"},
	} {
		res, err := tc.r.Resolve(SkillRef{Name: "x"}, declared)
		assert.ErrorContains(t, err, tc.want, "%+v", tc.r)
		assert.True(t, res.Effective.IsZero(), "%+v: a failed resolution grants %s", tc.r, Describe(res.Effective))
		assert.True(t, res.Granted.IsZero(), "%+v: a failed resolution grants %s", tc.r, Describe(res.Granted))
	}
}

// TestResolverWorkspace: the operator's own tools get the read and write
// flags, -A and the policy's default over the workspace; nothing else.
func TestResolverWorkspace(t *testing.T) {
	pol, err := ParsePolicy([]byte("[default]\nread = [\"workspace/docs\"]\nenv = [\"HOME\"]\n[skills.x]\nwrite = [\"workspace\"]\n"), "p.toml")
	require.NoError(t, err)
	for _, tc := range []struct {
		r    *Resolver
		want string
	}{
		{nil, "nothing"},
		{&Resolver{}, "nothing"},
		{&Resolver{Policy: pol}, "read=workspace/docs"},
		{&Resolver{All: true}, "read=workspace, write=workspace"},
		{&Resolver{Flags: []FlagGrant{{Kind: "write", Value: "workspace/out", HasValue: true}, {Kind: "env", Value: "TOKEN", HasValue: true}}}, "write=workspace/out"},
		{&Resolver{Flags: []FlagGrant{{Kind: "read", Value: "skill", HasValue: true}}}, "nothing"},
	} {
		assert.Equal(t, tc.want, Describe(tc.r.Workspace()), "%+v: Workspace()", tc.r)
	}
}

// TestResolutionAllow: a yes at the prompt grants what was missing and
// nothing beyond the declaration.
func TestResolutionAllow(t *testing.T) {
	declared := parseSet(t, `env = ["LANG"]`)
	res, err := (&Resolver{}).Resolve(SkillRef{Name: "x"}, declared)
	require.NoError(t, err)
	assert.Contains(t, res.Why(), "not granted: env=LANG (add --allow-env=LANG)", "Why()")
	res = res.Allow(Set{Env: []string{"LANG", "HOME"}}, "the prompt")
	assert.Equal(t, "env=LANG", Describe(res.Effective), "after Allow: effective")
	assert.True(t, res.Missing.IsZero(), "after Allow: missing %s", Describe(res.Missing))
	assert.Equal(t, "granted env=LANG (by the prompt)", res.Why(), "after Allow: Why()")
}

func TestKinds(t *testing.T) {
	want := []string{"read", "write", "env", "net", "tools", "mcp", "skills"}
	assert.Equal(t, want, Kinds(), "Kinds()")
	Kinds()[0] = "x"
	assert.Equal(t, "read", Kinds()[0], "Kinds returns the package's own slice")
}
