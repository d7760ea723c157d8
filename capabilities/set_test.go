package capabilities

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetDecodeTOML(t *testing.T) {
	const src = `
read    = ["skill", "workspace"]
write   = ["workspace/out"]
env     = ["LANG"]
net     = ["api.example.com", "*.example.org:443"]
tools   = ["workspace_read"]
mcp     = ["github/*"]
skills  = ["pdf-extract"]
memory  = "64MiB"
timeout = "10s"
output  = "1MiB"
`
	var got Set
	md, err := toml.Decode(src, &got)
	require.NoError(t, err)
	assert.Empty(t, md.Undecoded(), "undecoded keys")
	want := Set{
		Read:    []Path{{Root: RootSkill}, {Root: RootWorkspace}},
		Write:   []Path{{Root: RootWorkspace, Sub: "out"}},
		Env:     []string{"LANG"},
		Net:     []HostPattern{{Host: "api.example.com"}, {Host: "example.org", Port: 443, Wildcard: true}},
		Tools:   []string{"workspace_read"},
		MCP:     []string{"github/*"},
		Skills:  []string{"pdf-extract"},
		Memory:  64 * MiB,
		Timeout: Duration(10 * time.Second),
		Output:  MiB,
	}
	assert.Equal(t, want, got, "decoded Set")
	assert.NoError(t, got.Validate(), "Validate()")
	assert.False(t, got.IsZero(), "IsZero() for a full set")

	b, err := json.Marshal(got)
	require.NoError(t, err)
	const wantJSON = `{"read":["skill","workspace"],"write":["workspace/out"],"env":["LANG"],` +
		`"net":["api.example.com","*.example.org:443"],"tools":["workspace_read"],"mcp":["github/*"],` +
		`"skills":["pdf-extract"],"memory":"64MiB","timeout":"10s","output":"1MiB"}`
	assert.Equal(t, wantJSON, string(b), "json.Marshal")
	var back Set
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, got, back, "JSON round trip")
}

func TestSetDecodeTOMLErrors(t *testing.T) {
	tests := []struct {
		src     string
		wantErr string // substring of the toml error
	}{
		{`read = ["/etc"]`, `invalid path "/etc": absolute paths are not allowed`},
		{`net = ["https://x.com"]`, `invalid host pattern "https://x.com"`},
		{`memory = "lots"`, `invalid size "lots"`},
		{`timeout = "forever"`, `invalid duration "forever"`},
		{`output = 0`, `invalid size "0": must be positive`},
	}
	for _, tt := range tests {
		var s Set
		_, err := toml.Decode(tt.src, &s)
		assert.ErrorContains(t, err, tt.wantErr, "toml.Decode(%q)", tt.src)
		var pe toml.ParseError
		if assert.ErrorAs(t, err, &pe, "toml.Decode(%q): want a toml.ParseError", tt.src) {
			assert.Equal(t, 1, pe.Position.Line, "toml.Decode(%q): line of the error", tt.src)
		}
	}
}

func TestSetValidate(t *testing.T) {
	many := func(f func(i int) string) []string {
		out := make([]string, maxListLen+1)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	tests := []struct {
		name string
		set  Set
		want []string // every KeyError, in order
	}{
		{name: "zero", set: Set{}},
		{name: "valid", set: Set{
			Env:    []string{"LANG", "_X", "a1", "HTTP_PROXY"},
			Tools:  []string{"workspace_read", "mcp__github__search"},
			MCP:    []string{"github/*", "github/search_issues", "my-server/x.y"},
			Skills: []string{"pdf-extract"},
		}},
		{name: "env names", set: Set{Env: []string{"1BAD", "", "A-B", "A B", "É", "OK"}}, want: []string{
			`env: "1BAD" is not a valid environment variable name (letters, digits and _, not starting with a digit)`,
			`env: "" is not a valid environment variable name (letters, digits and _, not starting with a digit)`,
			`env: "A-B" is not a valid environment variable name (letters, digits and _, not starting with a digit)`,
			`env: "A B" is not a valid environment variable name (letters, digits and _, not starting with a digit)`,
			`env: "É" is not a valid environment variable name (letters, digits and _, not starting with a digit)`,
		}},
		{name: "tool names", set: Set{Tools: []string{"", "two words", "tab\there", "ok"}}, want: []string{
			`tools: "" is not a valid tool name (non-empty, no spaces)`,
			`tools: "two words" is not a valid tool name (non-empty, no spaces)`,
			`tools: "tab\there" is not a valid tool name (non-empty, no spaces)`,
		}},
		{name: "mcp patterns", set: Set{MCP: []string{
			"github", "github/", "/search", "*/*", "*/search", "github/a/b", "github/search*", "git hub/x", "", "github/*",
		}}, want: []string{
			`mcp: "github" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "github/" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "/search" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "*/*" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "*/search" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "github/a/b" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "github/search*" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "git hub/x" is not a valid MCP pattern; write "server/tool" or "server/*"`,
			`mcp: "" is not a valid MCP pattern; write "server/tool" or "server/*"`,
		}},
		{name: "skill names", set: Set{Skills: []string{"", "pdf extract", "pdf-extract"}}, want: []string{
			`skills: "" is not a valid skill name (non-empty, no spaces)`,
			`skills: "pdf extract" is not a valid skill name (non-empty, no spaces)`,
		}},
		{name: "duplicates", set: Set{
			Read:   []Path{{Root: RootWorkspace}, {Root: RootWorkspace, Sub: "a"}, {Root: RootWorkspace}, {Root: RootWorkspace}},
			Write:  []Path{{Root: RootWorkspace, Sub: "out"}, {Root: RootWorkspace, Sub: "out"}},
			Env:    []string{"LANG", "LANG"},
			Net:    []HostPattern{{Host: "a.com"}, {Host: "a.com", Port: 443}, {Host: "a.com"}},
			Tools:  []string{"t", "t"},
			MCP:    []string{"s/*", "s/*"},
			Skills: []string{"x", "x"},
		}, want: []string{
			`read: "workspace" is listed more than once`,
			`write: "workspace/out" is listed more than once`,
			`env: "LANG" is listed more than once`,
			`net: "a.com" is listed more than once`,
			`tools: "t" is listed more than once`,
			`mcp: "s/*" is listed more than once`,
			`skills: "x" is listed more than once`,
		}},
		{name: "too long", set: Set{
			Env:   many(func(i int) string { return fmt.Sprintf("V%d", i) }),
			Tools: many(func(i int) string { return fmt.Sprintf("t%d", i) }),
		}, want: []string{
			`env: 257 entries; the limit is 256`,
			`tools: 257 entries; the limit is 256`,
		}},
		{name: "values built in Go", set: Set{
			Read:    []Path{{}, {Root: RootWorkspace, Sub: "../x"}, {Root: RootSkill, Sub: "a/"}},
			Net:     []HostPattern{{}, {Host: "A.com"}},
			Memory:  -1,
			Timeout: Duration(48 * time.Hour),
			Output:  2 * TiB,
		}, want: []string{
			`read: invalid path: unknown root Root(0)`,
			`read: invalid path "workspace/../x": ".." segments are not allowed`,
			`read: invalid path "skill/a/": sub-path must not end in a slash`,
			`net: invalid host pattern: empty host without wildcard`,
			`net: invalid host pattern "A.com": not in canonical form (lowercase host, IPv6 without brackets)`,
			`memory: -1 bytes: must be positive`,
			`timeout: 48h0m0s is longer than the limit of 24h0m0s`,
			`output: 2TiB is larger than the limit of 1TiB`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set.Validate()
			var got []string
			if err != nil {
				joined, ok := err.(interface{ Unwrap() []error })
				require.True(t, ok, "Validate() = %T, want an errors.Join result", err)
				for _, e := range joined.Unwrap() {
					ke, ok := errors.AsType[*KeyError](e)
					if !assert.True(t, ok, "error %q is %T, want *KeyError", e, e) {
						continue
					}
					assert.True(t, strings.HasPrefix(e.Error(), ke.Key+": "), "error %q does not start with its key %q", e, ke.Key)
					got = append(got, e.Error())
				}
			}
			assert.Equal(t, tt.want, got, "Validate()")
		})
	}
}

func TestSetIsZero(t *testing.T) {
	assert.True(t, (Set{}).IsZero(), "Set{}.IsZero()")
	for _, s := range []Set{
		{Read: []Path{{Root: RootSkill}}},
		{Write: []Path{{Root: RootWorkspace}}},
		{Env: []string{"A"}},
		{Net: []HostPattern{{Wildcard: true}}},
		{Tools: []string{"t"}},
		{MCP: []string{"s/t"}},
		{Skills: []string{"x"}},
		{Memory: 1},
		{Timeout: 1},
		{Output: 1},
	} {
		assert.False(t, s.IsZero(), "%+v.IsZero()", s)
	}
}
