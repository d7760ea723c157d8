package capabilities

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
			if err != nil {
				t.Fatalf("GrantFromFlags: %v", err)
			}
			want := Merge(parseSet(t, tt.want), Set{})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("granted mismatch (-want +got):\n%s", diff)
			}
			eff := tt.eff
			if eff == "" {
				eff = tt.want
			}
			wantEff := Merge(parseSet(t, eff), Set{})
			wantEff.Memory, wantEff.Timeout = declared.Memory, declared.Timeout // declared limits always apply
			if diff := cmp.Diff(wantEff, Effective(declared, got)); diff != "" {
				t.Errorf("effective mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrantFromFlagsUndeclaredKind(t *testing.T) {
	got, err := GrantFromFlags(Set{}, false, []FlagGrant{flag("--allow-net"), flag("--allow-read")})
	if err != nil || !got.IsZero() {
		t.Errorf("GrantFromFlags(nothing declared, --allow-net --allow-read) = %+v, %v; want zero, nil", got, err)
	}
	got, err = GrantFromFlags(Set{}, true, nil)
	if err != nil || !got.IsZero() {
		t.Errorf("GrantFromFlags(nothing declared, -A) = %+v, %v; want zero, nil", got, err)
	}
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
		if err == nil {
			t.Errorf("GrantFromFlags(%q) = %s, want an error", tt.flags, Describe(got))
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("GrantFromFlags(%q) error:\n got: %s\nwant: %s", tt.flags, err, tt.want)
		}
		if !got.IsZero() {
			t.Errorf("GrantFromFlags(%q) = %s with an error, want zero", tt.flags, Describe(got))
		}
	}

	_, err := GrantFromFlags(Set{}, false, []FlagGrant{flag("--allow-net=example.com")})
	if want := "--allow-net=example.com grants nothing: the skill declares no net"; err == nil || err.Error() != want {
		t.Errorf("GrantFromFlags(nothing declared, --allow-net=example.com) = %v, want %s", err, want)
	}
}

func TestFlagGrantString(t *testing.T) {
	for _, f := range []string{"--allow-read", "--allow-env=LANG,TZ", "--allow-env="} {
		if got := flag(f).String(); got != f {
			t.Errorf("FlagGrant.String() = %q, want %q", got, f)
		}
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
		if got := FlagFor(tt.kind, tt.value); got != tt.want {
			t.Errorf("FlagFor(%q, %q) = %s, want %s", tt.kind, tt.value, got, tt.want)
		}
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
	if diff := cmp.Diff(wantFlags, Flags(s)); diff != "" {
		t.Errorf("Flags mismatch (-want +got):\n%s", diff)
	}
	if got := Flags(Set{Timeout: 1}); got != nil {
		t.Errorf("Flags(limits only) = %q, want none", got)
	}

	tests := []struct{ set, want string }{
		{``, "nothing"},
		{`read = ["workspace"]
env = ["LANG"]`, "read=workspace, env=LANG"},
		{flagsDeclared + `output = "1MiB"`, "read=skill,workspace/data, write=workspace/out, env=LANG,TZ, " +
			"net=api.example.com,*.example.org:443, tools=workspace_read, mcp=github/*, skills=pdf-extract, " +
			"memory=64MiB, timeout=10s, output=1MiB"},
	}
	for _, tt := range tests {
		if got := Describe(parseSet(t, tt.set)); got != tt.want {
			t.Errorf("Describe(%q) =\n %s\nwant\n %s", tt.set, got, tt.want)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	declared.Memory, declared.Timeout = 0, 0
	if diff := cmp.Diff(Merge(declared, Set{}), got); diff != "" {
		t.Errorf("granting Flags(declared) mismatch (-want +got):\n%s", diff)
	}
}

func TestNotGrantedAndAlsoDeclared(t *testing.T) {
	host, err := ParseHostPattern("*.example.org:443")
	if err != nil {
		t.Fatal(err)
	}
	missing := Set{Read: []Path{{Root: RootWorkspace}}, Net: []HostPattern{host}}
	for _, c := range []struct{ got, want string }{
		{NotGranted("csv:stats", missing), "csv:stats needs read=workspace, net=*.example.org:443: not granted; add --allow-read=workspace '--allow-net=*.example.org:443' (or -A to grant all the skill declares)"},
		{AlsoDeclared("csv:stats", missing), "csv:stats also declares read=workspace, net=*.example.org:443, not granted (add --allow-read=workspace '--allow-net=*.example.org:443' to grant it)"},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Error(diff)
		}
	}
}
