package capabilities

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePath(t *testing.T) {
	const forms = `write "skill", "workspace", or a sub-path such as "workspace/data"`
	tests := []struct {
		in      string
		want    Path
		wantErr string // exact error text; "" means success
	}{
		{in: "skill", want: Path{Root: RootSkill}},
		{in: "workspace", want: Path{Root: RootWorkspace}},
		{in: "workspace/data", want: Path{Root: RootWorkspace, Sub: "data"}},
		{in: "skill/references", want: Path{Root: RootSkill, Sub: "references"}},
		{in: "workspace/a/b/c", want: Path{Root: RootWorkspace, Sub: "a/b/c"}},
		{in: "workspace/.cache", want: Path{Root: RootWorkspace, Sub: ".cache"}},
		{in: "workspace/a..b", want: Path{Root: RootWorkspace, Sub: "a..b"}},
		{in: "workspace/données", want: Path{Root: RootWorkspace, Sub: "données"}},
		// One trailing slash names the same directory and is dropped.
		{in: "workspace/", want: Path{Root: RootWorkspace}},
		{in: "workspace/data/", want: Path{Root: RootWorkspace, Sub: "data"}},

		{in: "", wantErr: `invalid path "": empty; ` + forms},
		{in: "/workspace", wantErr: `invalid path "/workspace": absolute paths are not allowed; ` + forms},
		{in: "/etc/passwd", wantErr: `invalid path "/etc/passwd": absolute paths are not allowed; ` + forms},
		{in: "home", wantErr: `invalid path "home": must start with "skill" or "workspace"; ` + forms},
		{in: "Workspace", wantErr: `invalid path "Workspace": must start with "skill" or "workspace"; ` + forms},
		{in: "skills", wantErr: `invalid path "skills": must start with "skill" or "workspace"; ` + forms},
		{in: "workspaces/data", wantErr: `invalid path "workspaces/data": must start with "skill" or "workspace"; ` + forms},
		{in: "./workspace", wantErr: `invalid path "./workspace": must start with "skill" or "workspace"; ` + forms},
		{in: "../workspace", wantErr: `invalid path "../workspace": must start with "skill" or "workspace"; ` + forms},
		{in: "C:/workspace", wantErr: `invalid path "C:/workspace": must start with "skill" or "workspace"; ` + forms},
		{in: "workspace/..", wantErr: `invalid path "workspace/..": ".." segments are not allowed`},
		{in: "workspace/../skill", wantErr: `invalid path "workspace/../skill": ".." segments are not allowed`},
		{in: "workspace/a/../../etc", wantErr: `invalid path "workspace/a/../../etc": ".." segments are not allowed`},
		{in: "workspace/.", wantErr: `invalid path "workspace/.": "." segments are not allowed`},
		{in: "workspace/./data", wantErr: `invalid path "workspace/./data": "." segments are not allowed`},
		{in: "workspace//x", wantErr: `invalid path "workspace//x": empty path segment`},
		{in: "workspace//", wantErr: `invalid path "workspace//": empty path segment`},
		{in: "workspace/data//", wantErr: `invalid path "workspace/data//": empty path segment`},
		{in: `workspace\data`, wantErr: `invalid path "workspace\\data": contains a backslash; use "/" between segments`},
		{in: "workspace/a\x00b", wantErr: `invalid path "workspace/a\x00b": contains a control character`},
		{in: "workspace/a\nb", wantErr: `invalid path "workspace/a\nb": contains a control character`},
		{in: "workspace/\xff", wantErr: `invalid path "workspace/\xff": not valid UTF-8`},
		{in: "workspace/" + strings.Repeat("a", maxPathLen), wantErr: `invalid path "workspace/` + strings.Repeat("a", maxPathLen) + `": longer than 1024 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := unmarshalCase(t, tt.in, tt.want, tt.wantErr)
			if !ok {
				return
			}
			assert.NoError(t, got.validate(), "parsed path %#v does not validate", got)
		})
	}
}

func TestPathString(t *testing.T) {
	tests := []struct {
		p         Path
		text      string
		guestPath string
	}{
		{Path{Root: RootSkill}, "skill", "/skill"},
		{Path{Root: RootWorkspace}, "workspace", "/workspace"},
		{Path{Root: RootWorkspace, Sub: "data"}, "workspace/data", "/workspace/data"},
		{Path{Root: RootSkill, Sub: "references/api"}, "skill/references/api", "/skill/references/api"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.text, tt.p.String(), "%#v.String()", tt.p)
		text, err := tt.p.MarshalText()
		if assert.NoError(t, err, "%#v.MarshalText()", tt.p) {
			assert.Equal(t, tt.text, string(text), "%#v.MarshalText()", tt.p)
		}
		assert.Equal(t, tt.guestPath, tt.p.GuestPath(), "%#v.GuestPath()", tt.p)
	}
	assert.Equal(t, "Root(0)", Root(0).String(), "Root(0).String()")
}

func TestPathContains(t *testing.T) {
	tests := []struct {
		p, other string
		want     bool
	}{
		{"workspace", "workspace", true},
		{"workspace", "workspace/data", true},
		{"workspace", "workspace/data/in", true},
		{"workspace/data", "workspace/data", true},
		{"workspace/data", "workspace/data/in", true},
		{"workspace/data", "workspace/database", false},
		{"workspace/data", "workspace/dat", false},
		{"workspace/data", "workspace", false},
		{"workspace/data/in", "workspace/data", false},
		{"skill", "workspace", false},
		{"workspace", "skill", false},
		{"skill/data", "workspace/data", false},
		{"skill", "skill/references", true},
	}
	for _, tt := range tests {
		p, other := mustPath(t, tt.p), mustPath(t, tt.other)
		assert.Equal(t, tt.want, p.Contains(other), "%q.Contains(%q)", tt.p, tt.other)
	}
}

func TestPathJSON(t *testing.T) {
	b, err := json.Marshal([]Path{{Root: RootWorkspace, Sub: "data"}, {Root: RootSkill}})
	require.NoError(t, err)
	assert.Equal(t, `["workspace/data","skill"]`, string(b), "json.Marshal")
}

func mustPath(t *testing.T, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	require.NoError(t, err)
	return p
}

// FuzzParsePath checks that a path that parses prints back to text that
// parses to the same path, and that a parsed path never escapes its root.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"skill", "workspace", "workspace/data", "skill/references/",
		"workspace/../x", "workspace//x", "/abs", `a\b`, "workspace/.", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		text := p.String()
		q, err := ParsePath(text)
		require.NoError(t, err, "ParsePath(%q) = %#v, but its String %q does not parse", s, p, text)
		if q != p {
			t.Fatalf("ParsePath(%q) = %#v, but ParsePath(%q) = %#v", s, p, text, q)
		}
		for seg := range strings.SplitSeq(p.Sub, "/") {
			if seg == ".." || seg == "." || (seg == "" && p.Sub != "") {
				t.Fatalf("ParsePath(%q) = %#v: bad segment %q", s, p, seg)
			}
		}
		if !p.Contains(p) {
			t.Fatalf("%#v does not contain itself", p)
		}
	})
}
