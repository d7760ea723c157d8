package capabilities

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChecks(t *testing.T) {
	s := parseSet(t, `
read   = ["skill", "workspace/data"]
write  = ["workspace/out"]
env    = ["LANG"]
net    = ["api.example.com", "*.example.org:443", "[::1]:8080"]
tools  = ["workspace_read"]
mcp    = ["github/*", "slack/post"]
skills = ["pdf-extract"]
`)
	path := func(s string) Path { return mustPath(t, s) }
	tests := []struct {
		name string
		err  error
		want string // "" for allowed
	}{
		{"read skill", s.CheckRead(path("skill/references/a.md")), ""},
		{"read granted dir", s.CheckRead(path("workspace/data")), ""},
		{"read below granted dir", s.CheckRead(path("workspace/data/in/a.csv")), ""},
		{"read through write", s.CheckRead(path("workspace/out/report.txt")), ""},
		{"read sibling prefix", s.CheckRead(path("workspace/database")),
			"read workspace/database denied: not granted (add --allow-read=workspace/database)"},
		{"read workspace root", s.CheckRead(path("workspace")),
			"read workspace denied: not granted (add --allow-read=workspace)"},
		{"read escape", s.CheckRead(Path{Root: RootWorkspace, Sub: "data/../../etc"}),
			`read workspace/data/../../etc denied: invalid path "workspace/data/../../etc": ".." segments are not allowed`},
		{"read zero path", s.CheckRead(Path{}),
			"read Root(0) denied: invalid path: unknown root Root(0)"},
		{"write granted", s.CheckWrite(path("workspace/out/report.txt")), ""},
		{"write read-only", s.CheckWrite(path("workspace/data/in.csv")),
			"write workspace/data/in.csv denied: not granted (add --allow-write=workspace/data/in.csv)"},
		{"write skill", s.CheckWrite(path("skill")),
			"write skill denied: not granted (add --allow-write=skill)"},
		{"write escape", s.CheckWrite(Path{Root: RootWorkspace, Sub: "out/.."}),
			`write workspace/out/.. denied: invalid path "workspace/out/..": ".." segments are not allowed`},
		{"env", s.CheckEnv("LANG"), ""},
		{"env other", s.CheckEnv("HOME"), "env HOME denied: not granted (add --allow-env=HOME)"},
		{"env case", s.CheckEnv("lang"), "env lang denied: not granted (add --allow-env=lang)"},
		{"net any port", s.CheckNet("api.example.com", 443), ""},
		{"net case and dot", s.CheckNet("API.Example.com.", 8443), ""},
		{"net wildcard", s.CheckNet("a.example.org", 443), ""},
		{"net wildcard port", s.CheckNet("a.example.org", 80),
			"net a.example.org:80 denied: not granted (add --allow-net=a.example.org)"},
		{"net apex", s.CheckNet("example.org", 443),
			"net example.org:443 denied: not granted (add --allow-net=example.org)"},
		{"net other", s.CheckNet("Evil.COM.", 443),
			"net Evil.COM.:443 denied: not granted (add --allow-net=evil.com)"},
		{"net IPv6", s.CheckNet("::1", 8080), ""},
		{"net IPv6 port", s.CheckNet("::1", 22), "net [::1]:22 denied: not granted (add '--allow-net=[::1]:22')"},
		{"net IPv4", s.CheckNet("10.0.0.1", 22), "net 10.0.0.1:22 denied: not granted (add --allow-net=10.0.0.1:22)"},
		{"net default port", s.CheckNet("api.example.net", 443), "net api.example.net:443 denied: not granted (add --allow-net=api.example.net)"},
		{"tool", s.CheckTool("workspace_read"), ""},
		{"tool other", s.CheckTool("shell"), "tools shell denied: not granted (add --allow-tools=shell)"},
		{"mcp wildcard", s.CheckMCP("github", "create_issue"), ""},
		{"mcp tool", s.CheckMCP("slack", "post"), ""},
		{"mcp other tool", s.CheckMCP("slack", "delete"),
			"mcp slack/delete denied: not granted (add --allow-mcp=slack/delete)"},
		{"mcp other server", s.CheckMCP("gitlab", "x"), "mcp gitlab/x denied: not granted (add --allow-mcp=gitlab/x)"},
		{"mcp slash", s.CheckMCP("github", "a/b"),
			`mcp github/a/b denied: server and tool names must be non-empty and hold no "/"`},
		{"mcp empty", s.CheckMCP("", "x"), `mcp /x denied: server and tool names must be non-empty and hold no "/"`},
		{"skill", s.CheckSkill("pdf-extract"), ""},
		{"skill other", s.CheckSkill("rm-rf"), "skills rm-rf denied: not granted (add --allow-skills=rm-rf)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				assert.NoError(t, tt.err, "denied")
				return
			}
			require.Error(t, tt.err, "allowed, want %s", tt.want)
			assert.EqualError(t, tt.err, tt.want)
			_, ok := errors.AsType[*DeniedError](tt.err)
			assert.True(t, ok, "error is %T, want *DeniedError", tt.err)
			assert.ErrorIs(t, tt.err, ErrDenied)
			assert.ErrorIs(t, tt.err, fs.ErrPermission)
		})
	}
}

func TestZeroSetDeniesEverything(t *testing.T) {
	var s Set
	for _, err := range []error{
		s.CheckRead(Path{Root: RootSkill}),
		s.CheckRead(Path{Root: RootWorkspace}),
		s.CheckWrite(Path{Root: RootWorkspace}),
		s.CheckEnv("PATH"),
		s.CheckNet("localhost", 80),
		s.CheckTool("shell"),
		s.CheckMCP("github", "x"),
		s.CheckSkill("x"),
	} {
		assert.ErrorIs(t, err, ErrDenied, "zero Set allowed a use")
	}
}

func TestDeniedErrorMessage(t *testing.T) {
	tests := []struct {
		err  *DeniedError
		want string
	}{
		{&DeniedError{Kind: "net", Value: "api.example.com:443", Skill: "csv-stats", Script: "stats"},
			"csv-stats:stats: net api.example.com:443 denied: not granted (add --allow-net=api.example.com)"},
		{&DeniedError{Kind: "env", Value: "HOME", Skill: "csv-stats"},
			"csv-stats: env HOME denied: not granted (add --allow-env=HOME)"},
		{&DeniedError{Kind: "env", Value: "HOME", Script: "stats"},
			"stats: env HOME denied: not granted (add --allow-env=HOME)"},
		{&DeniedError{Kind: "net", Value: "evil.com:443", Skill: "csv-stats", Script: "stats", Undeclared: true},
			`csv-stats:stats: net evil.com:443 denied: the skill does not declare it (its skill.toml would need net = ["evil.com"])`},
		{&DeniedError{Kind: "read", Value: "workspace/x", Reason: "the workspace is not mounted"},
			"read workspace/x denied: the workspace is not mounted"},
		{&DeniedError{Kind: "net", Value: "[fe80::1]:443"},
			"net [fe80::1]:443 denied: not granted (add '--allow-net=[fe80::1]')"},
	}
	for _, tt := range tests {
		assert.EqualError(t, tt.err, tt.want, "Error()")
	}
}

func TestErrDenied(t *testing.T) {
	assert.ErrorIs(t, ErrDenied, fs.ErrPermission, "ErrDenied does not wrap fs.ErrPermission")
	wrapped := &fs.PathError{Op: "open", Path: "/workspace/x", Err: &DeniedError{Kind: "read", Value: "workspace/x"}}
	assert.ErrorIs(t, wrapped, ErrDenied, "a wrapped denial does not match ErrDenied")
}
