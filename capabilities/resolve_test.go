package capabilities

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
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
	if err != nil {
		t.Fatal(err)
	}
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
			if err != nil {
				t.Fatal(err)
			}
			if got := Describe(res.Effective); got != tc.eff {
				t.Errorf("effective %s, want %s", got, tc.eff)
			}
			if got := Describe(res.Missing); got != tc.missing {
				t.Errorf("missing %s, want %s", got, tc.missing)
			}
			if !slices.Equal(res.Sources, tc.sources) {
				t.Errorf("sources %q, want %q", res.Sources, tc.sources)
			}
			if tc.unbound != errors.Is(res.Unbound, ErrNotBound) {
				t.Errorf("unbound %v, want one: %v", res.Unbound, tc.unbound)
			}
			if got := Describe(Effective(declared, res.Granted)); got != tc.eff {
				t.Errorf("Effective(declared, Granted) = %s, not the resolution's %s", got, tc.eff)
			}
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
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.r, err, tc.want)
		}
		if !res.Effective.IsZero() || !res.Granted.IsZero() {
			t.Errorf("%+v: a failed resolution grants %s", tc.r, Describe(res.Granted))
		}
	}
}

// TestResolverWorkspace: the operator's own tools get the read and write
// flags, -A and the policy's default over the workspace; nothing else.
func TestResolverWorkspace(t *testing.T) {
	pol, err := ParsePolicy([]byte("[default]\nread = [\"workspace/docs\"]\nenv = [\"HOME\"]\n[skills.x]\nwrite = [\"workspace\"]\n"), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
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
		if got := Describe(tc.r.Workspace()); got != tc.want {
			t.Errorf("%+v: Workspace() = %s, want %s", tc.r, got, tc.want)
		}
	}
}

// TestResolutionAllow: a yes at the prompt grants what was missing and
// nothing beyond the declaration.
func TestResolutionAllow(t *testing.T) {
	declared := parseSet(t, `env = ["LANG"]`)
	res, err := (&Resolver{}).Resolve(SkillRef{Name: "x"}, declared)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Why(), "not granted: env=LANG (add --allow-env=LANG)") {
		t.Errorf("Why() = %q", res.Why())
	}
	res = res.Allow(Set{Env: []string{"LANG", "HOME"}}, "the prompt")
	if got := Describe(res.Effective); got != "env=LANG" {
		t.Errorf("after Allow: %s", got)
	}
	if !res.Missing.IsZero() || res.Why() != "granted env=LANG (by the prompt)" {
		t.Errorf("after Allow: missing %s, why %q", Describe(res.Missing), res.Why())
	}
}

func TestKinds(t *testing.T) {
	want := []string{"read", "write", "env", "net", "tools", "mcp", "skills"}
	if got := Kinds(); !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want %q", got, want)
	}
	Kinds()[0] = "x"
	if Kinds()[0] != "read" {
		t.Error("Kinds returns the package's own slice")
	}
}
