package capabilities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const flagsDeclared = `
read    = ["skill", "workspace/data"]
write   = ["workspace/out"]
env     = ["LANG", "TZ"]
net     = ["api.example.com", "*.example.org:443"]
tools   = ["workspace_read"]
mcp     = ["github/*"]
skills  = ["pdf-extract"]
memory  = "64MiB"
timeout = "10s"
`

// flag parses one flag as the CLI would hand it over.
func flag(s string) FlagGrant {
	s = strings.TrimPrefix(s, "--allow-")
	kind, value, ok := strings.Cut(s, "=")
	return FlagGrant{Kind: kind, Value: value, HasValue: ok}
}

func TestGrantFromFlags(t *testing.T) {
	tests := []struct {
		name  string
		all   bool
		flags []string
		want  string // granted, in TOML
		eff   string // effective, in TOML; same as want when empty
	}{
		{name: "no flags"},
		{name: "all", all: true, want: flagsDeclared},
		{name: "all and a value", all: true, flags: []string{"--allow-read=workspace/data"}, want: flagsDeclared},
		{name: "no value grants the declared kind", flags: []string{"--allow-read"},
			want: `read = ["skill", "workspace/data"]`},
		{name: "value", flags: []string{"--allow-read=workspace/data"}, want: `read = ["workspace/data"]`},
		{name: "value narrower than declared", flags: []string{"--allow-read=workspace/data/in"}, want: `read = ["workspace/data/in"]`},
		{name: "value wider than declared", flags: []string{"--allow-read=workspace"},
			want: `read = ["workspace"]`, eff: `read = ["workspace/data"]`},
		{name: "comma list", flags: []string{"--allow-env=LANG,TZ"}, want: `env = ["LANG", "TZ"]`},
		{name: "flags add up", flags: []string{"--allow-env=TZ", "--allow-env=LANG", "--allow-env=TZ", "--allow-write"},
			want: `env = ["LANG", "TZ"]
write = ["workspace/out"]`},
		{name: "value and no value", flags: []string{"--allow-env=TZ", "--allow-env"}, want: `env = ["LANG", "TZ"]`},
		{name: "net", flags: []string{"--allow-net=API.example.com:443,a.example.org"},
			want: `net = ["a.example.org", "api.example.com:443"]`,
			eff:  `net = ["a.example.org:443", "api.example.com:443"]`},
		{name: "every kind", flags: []string{"--allow-tools=workspace_read", "--allow-mcp=github/create_issue", "--allow-skills=pdf-extract", "--allow-write=workspace/out"},
			want: `tools = ["workspace_read"]
mcp = ["github/create_issue"]
skills = ["pdf-extract"]
write = ["workspace/out"]`},
		{name: "no value, net", flags: []string{"--allow-net"},
			want: `net = ["api.example.com", "*.example.org:443"]`},
	}
	declared := parseSet(t, flagsDeclared)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var flags []FlagGrant
			for _, f := range tt.flags {
				flags = append(flags, flag(f))
			}
			got, err := GrantFromFlags(declared, tt.all, flags)
			require.NoError(t, err, "GrantFromFlags")
			want := Merge(parseSet(t, tt.want), Set{})
			assert.Equal(t, want, got, "granted")
			eff := tt.eff
			if eff == "" {
				eff = tt.want
			}
			wantEff := Merge(parseSet(t, eff), Set{})
			wantEff.Memory, wantEff.Timeout = declared.Memory, declared.Timeout // declared limits always apply
			assert.Equal(t, wantEff, Effective(declared, got), "effective")
		})
	}
}

func TestGrantFromFlagsUndeclaredKind(t *testing.T) {
	got, err := GrantFromFlags(Set{}, false, []FlagGrant{flag("--allow-net"), flag("--allow-read")})
	assert.NoError(t, err, "GrantFromFlags(nothing declared, --allow-net --allow-read)")
	assert.True(t, got.IsZero(), "GrantFromFlags(nothing declared, --allow-net --allow-read) = %+v; want zero", got)
	got, err = GrantFromFlags(Set{}, true, nil)
	assert.NoError(t, err, "GrantFromFlags(nothing declared, -A)")
	assert.True(t, got.IsZero(), "GrantFromFlags(nothing declared, -A) = %+v; want zero", got)
}

func TestGrantFromFlagsErrors(t *testing.T) {
	tests := []struct {
		flags []string
		want  string
	}{
		{[]string{"--allow-read=../x"},
			`--allow-read=../x: invalid path "../x": must start with "skill" or "workspace"; write "skill", "workspace", or a sub-path such as "workspace/data"`},
		{[]string{"--allow-read=workspace/../x"},
			`--allow-read=workspace/../x: invalid path "workspace/../x": ".." segments are not allowed`},
		{[]string{"--allow-read=/etc"},
			`--allow-read=/etc: invalid path "/etc": absolute paths are not allowed; write "skill", "workspace", or a sub-path such as "workspace/data"`},
		{[]string{"--allow-read=workspace/x"},
			`--allow-read=workspace/x grants nothing: the skill declares read = skill, workspace/data`},
		{[]string{"--allow-read=workspace/database"},
			`--allow-read=workspace/database grants nothing: the skill declares read = skill, workspace/data`},
		{[]string{"--allow-write=workspace/data"},
			`--allow-write=workspace/data grants nothing: the skill declares write = workspace/out`},
		{[]string{"--allow-env=1BAD"},
			`--allow-env=1BAD: "1BAD" is not a valid environment variable name (letters, digits and _, not starting with a digit)`},
		{[]string{"--allow-env=HOME"},
			`--allow-env=HOME grants nothing: the skill declares env = LANG, TZ`},
		{[]string{"--allow-env="},
			`--allow-env=: empty value; write --allow-env to grant all the skill declares for env, or name what to grant, as in --allow-env=LANG`},
		{[]string{"--allow-env=LANG,,TZ"},
			`--allow-env=LANG,,TZ: empty value between commas`},
		{[]string{"--allow-net=https://api.example.com"},
			`--allow-net=https://api.example.com: invalid host pattern "https://api.example.com": a URL is not a host pattern; drop the scheme and any path, write host[:port], such as "api.example.com", "*.example.org:443" or "[::1]:8080"`},
		{[]string{"--allow-net=example.org"},
			`--allow-net=example.org grants nothing: the skill declares net = api.example.com, *.example.org:443`},
		{[]string{"--allow-net=api.example.com:443,a.example.org:80"},
			`--allow-net=a.example.org:80 grants nothing: the skill declares net = api.example.com, *.example.org:443`},
		{[]string{"--allow-mcp=github"},
			`--allow-mcp=github: "github" is not a valid MCP pattern; write "server/tool" or "server/*"`},
		{[]string{"--allow-mcp=gitlab/*"},
			`--allow-mcp=gitlab/* grants nothing: the skill declares mcp = github/*`},
		{[]string{"--allow-tools=has space"},
			`--allow-tools=has space: "has space" is not a valid tool name (non-empty, no spaces)`},
		{[]string{"--allow-skills=other"},
			`--allow-skills=other grants nothing: the skill declares skills = pdf-extract`},
		{[]string{"--allow-memory=1GiB"},
			`--allow-memory=1GiB: unknown capability kind "memory"; use one of read, write, env, net, tools, mcp, skills`},
		{[]string{"--allow-env=HOME", "--allow-read=../x"},
			"--allow-env=HOME grants nothing: the skill declares env = LANG, TZ\n" +
				`--allow-read=../x: invalid path "../x": must start with "skill" or "workspace"; write "skill", "workspace", or a sub-path such as "workspace/data"`},
	}
	declared := parseSet(t, flagsDeclared)
	for _, tt := range tests {
		var flags []FlagGrant
		for _, f := range tt.flags {
			flags = append(flags, flag(f))
		}
		got, err := GrantFromFlags(declared, false, flags)
		if !assert.Error(t, err, "GrantFromFlags(%q) = %s, want an error", tt.flags, Describe(got)) {
			continue
		}
		assert.EqualError(t, err, tt.want, "GrantFromFlags(%q)", tt.flags)
		assert.True(t, got.IsZero(), "GrantFromFlags(%q) = %s with an error, want zero", tt.flags, Describe(got))
	}

	_, err := GrantFromFlags(Set{}, false, []FlagGrant{flag("--allow-net=example.com")})
	assert.EqualError(t, err, "--allow-net=example.com grants nothing: the skill declares no net", "GrantFromFlags(nothing declared, --allow-net=example.com)")
}

func TestFlagGrantString(t *testing.T) {
	for _, f := range []string{"--allow-read", "--allow-env=LANG,TZ", "--allow-env="} {
		assert.Equal(t, f, flag(f).String(), "FlagGrant.String()")
	}
}

func TestFlagFor(t *testing.T) {
	tests := []struct{ kind, value, want string }{
		{"read", "workspace", "--allow-read=workspace"},
		{"read", "workspace/data/in.csv", "--allow-read=workspace/data/in.csv"},
		{"env", "", "--allow-env"},
		{"env", "LANG,TZ", "--allow-env=LANG,TZ"},
		{"net", "api.example.com:443", "--allow-net=api.example.com:443"},
		{"net", "*.example.org", "'--allow-net=*.example.org'"},
		{"net", "[::1]", "'--allow-net=[::1]'"},
		{"mcp", "github/*", "'--allow-mcp=github/*'"},
		{"read", "workspace/it's here", `'--allow-read=workspace/it'\''s here'`},
		{"read", "workspace/a b", "'--allow-read=workspace/a b'"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FlagFor(tt.kind, tt.value), "FlagFor(%q, %q)", tt.kind, tt.value)
	}
}

func TestFlagsAndDescribe(t *testing.T) {
	s := parseSet(t, flagsDeclared)
	wantFlags := []string{
		"--allow-read=skill,workspace/data",
		"--allow-write=workspace/out",
		"--allow-env=LANG,TZ",
		"'--allow-net=api.example.com,*.example.org:443'",
		"--allow-tools=workspace_read",
		"'--allow-mcp=github/*'",
		"--allow-skills=pdf-extract",
	}
	assert.Equal(t, wantFlags, Flags(s), "Flags")
	assert.Nil(t, Flags(Set{Timeout: 1}), "Flags(limits only), want none")

	tests := []struct{ set, want string }{
		{``, "nothing"},
		{`read = ["workspace"]
env = ["LANG"]`, "read=workspace, env=LANG"},
		{flagsDeclared + `output = "1MiB"`, "read=skill,workspace/data, write=workspace/out, env=LANG,TZ, " +
			"net=api.example.com,*.example.org:443, tools=workspace_read, mcp=github/*, skills=pdf-extract, " +
			"memory=64MiB, timeout=10s, output=1MiB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Describe(parseSet(t, tt.set)), "Describe(%q)", tt.set)
	}
}

// A flag that names something the skill declares, the way Flags names it,
// grants exactly that: Flags(Missing(d, g)) tells the user what to add.
func TestFlagsRoundTrip(t *testing.T) {
	declared := parseSet(t, flagsDeclared)
	var flags []FlagGrant
	for _, f := range Flags(declared) {
		flags = append(flags, flag(strings.Trim(f, "'")))
	}
	got, err := GrantFromFlags(declared, false, flags)
	require.NoError(t, err)
	declared.Memory, declared.Timeout = 0, 0
	assert.Equal(t, Merge(declared, Set{}), got, "granting Flags(declared)")
}

func TestNotGrantedAndAlsoDeclared(t *testing.T) {
	host, err := ParseHostPattern("*.example.org:443")
	require.NoError(t, err)
	missing := Set{Read: []Path{{Root: RootWorkspace}}, Net: []HostPattern{host}}
	for _, c := range []struct{ got, want string }{
		{NotGranted("csv:stats", missing), "csv:stats needs read=workspace, net=*.example.org:443: not granted; add --allow-read=workspace '--allow-net=*.example.org:443' (or -A to grant all the skill declares)"},
		{AlsoDeclared("csv:stats", missing), "csv:stats also declares read=workspace, net=*.example.org:443, not granted (add --allow-read=workspace '--allow-net=*.example.org:443' to grant it)"},
	} {
		assert.Equal(t, c.want, c.got)
	}
}
