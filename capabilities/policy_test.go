package capabilities

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadPolicy(t *testing.T) {
	p, err := LoadPolicy("testdata/policy/valid.toml")
	require.NoError(t, err)
	tests := []struct {
		skill string
		want  string
	}{
		{"any-skill", `read = ["workspace"]
env = ["LANG", "TZ"]
timeout = "30s"`},
		// The skill's table replaces read, adds write and memory, keeps the
		// default env and timeout.
		{"csv-stats", `read = ["workspace/data"]
write = ["workspace/out"]
env = ["LANG", "TZ"]
memory = "64MiB"
timeout = "30s"`},
		// env = [] withdraws the default env grant.
		{"untrusted", `read = ["workspace"]
timeout = "30s"`},
	}
	for _, tt := range tests {
		assert.Equal(t, parseSet(t, tt.want), p.For(tt.skill), "For(%q)", tt.skill)
	}
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"unknown-key.toml", `testdata/policy/unknown-key.toml:3: unknown key "default.reed" (did you mean "read"?); the keys are read, write, env, net, tools, mcp, skills, memory, timeout, output
testdata/policy/unknown-key.toml:7: unknown key "skills.csv-stats.Net" (did you mean "net"?); the keys are read, write, env, net, tools, mcp, skills, memory, timeout, output`},
		{"unknown-table.toml", `testdata/policy/unknown-table.toml:1: unknown key "defaults"; a policy has a [default] table and [skills.NAME] tables`},
		{"bad-values.toml", `testdata/policy/bad-values.toml:2: default.read: invalid path "../etc": must start with "skill" or "workspace"; write "skill", "workspace", or a sub-path such as "workspace/data"
testdata/policy/bad-values.toml:3: default.env: "LANG" is listed more than once
testdata/policy/bad-values.toml:4: default.timeout: invalid duration "30": write a number with a unit, such as "10s" or "1m30s"
testdata/policy/bad-values.toml:7: skills.csv-stats.net: expected an array of strings, found a string
testdata/policy/bad-values.toml:8: skills.csv-stats.memory: invalid size "lots": must start with a whole number, such as "64MiB"
testdata/policy/bad-values.toml:10: skills."has space": "has space" is not a valid skill name (non-empty, no spaces)`},
	}
	for _, tt := range tests {
		p, err := LoadPolicy(filepath.Join("testdata/policy", tt.file))
		if !assert.Error(t, err, "%s: no error; policy %+v", tt.file, p) {
			continue
		}
		assert.Equal(t, tt.want, err.Error(), "%s: error", tt.file)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"invalid TOML", "[default]\nread = [\"workspace\"\n", "p.toml:2: invalid TOML: expected a comma"},
		{"default not a table", "default = 1\n", "p.toml:1: default: expected a table, found an integer"},
		{"skills not a table", `skills = ["a"]`, "p.toml:1: skills: expected a table, found an array"},
		{"skill not a table", "[skills]\nfoo = 1\n", "p.toml:2: skills.foo: expected a table, found an integer"},
		{"wrong type in array", "[default]\nenv = [1, 2]\n", "p.toml:2: default.env: expected an array of strings, found an array containing an integer"},
		{"env name", "[default]\nenv = [\"A B\"]\n", `p.toml:2: default.env: "A B" is not a valid environment variable name (letters, digits and _, not starting with a digit)`},
		{"mcp pattern", "[skills.x]\nmcp = [\"github\"]\n", `p.toml:2: skills.x.mcp: "github" is not a valid MCP pattern; write "server/tool" or "server/*"`},
		{"same key in two tables", "[default]\nenv = [\"1\"]\n[skills.a]\nenv = [\"2\"]\n",
			"p.toml:2: default.env: \"1\" is not a valid environment variable name (letters, digits and _, not starting with a digit)\n" +
				"p.toml:4: skills.a.env: \"2\" is not a valid environment variable name (letters, digits and _, not starting with a digit)"},
		{"unknown key, case", "[default]\nTimeout = \"1s\"\n", `p.toml:2: unknown key "default.Timeout" (did you mean "timeout"?)`},
		{"unknown key, dotted", "default.reed = [\"skill\"]\n", `p.toml:1: unknown key "default.reed" (did you mean "read"?)`},
		{"unknown key, swapped", "[default]\nwirte = []\n", `p.toml:2: unknown key "default.wirte" (did you mean "write"?)`},
		{"unknown key, far", "[default]\nfilesystem = []\n", `p.toml:2: unknown key "default.filesystem"; the keys are`},
		{"deep dots", "a" + strings.Repeat(".a", 40000) + " = 1\n", "p.toml:1: policy nests keys, arrays or tables too deeply"},
		{"deep inline tables", "x = " + strings.Repeat("{a=", 30000) + "1" + strings.Repeat("}", 30000) + "\n",
			"p.toml:1: policy nests keys, arrays or tables too deeply"},
		{"deep arrays", "\n\nx = " + strings.Repeat("[\n", 100) + strings.Repeat("]", 100) + "\n",
			"p.toml:11: policy nests keys, arrays or tables too deeply"},
		{"too large", "# " + strings.Repeat("x", maxPolicySize) + "\n", "p.toml: policy is larger than the limit of 256 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Without the nesting bounds, the deep cases take minutes.
			start := time.Now()
			p, err := ParsePolicy([]byte(tt.src), "p.toml")
			assert.LessOrEqual(t, time.Since(start), 10*time.Second, "took too long")
			require.Error(t, err, "no error; policy %+v", p)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), "error:\n got: %s\nwant: %s...", err, tt.want)
		})
	}
}

func TestParsePolicyManyProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("[default]\n")
	for i := 0; b.Len() < maxPolicySize-100; i++ {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	_, err := ParsePolicy([]byte(b.String()), "p.toml")
	require.Error(t, err, "no error")
	lines := strings.Split(err.Error(), "\n")
	assert.Len(t, lines, maxPolicyProblems+1, "want %d problems and a count of the rest", maxPolicyProblems)
	assert.True(t, strings.HasSuffix(lines[len(lines)-1], "more problems not shown"), "last line %q; want a count of the rest", lines[len(lines)-1])
}

func TestParsePolicyScanner(t *testing.T) {
	// Dots, brackets and braces inside strings and comments do not count
	// towards the nesting bounds.
	src := `# a comment with [[[[[[[[[[ and ......................................
[default]
net = ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h", 'x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d']
tools = ["""[[[[[[[[[[{{{{{{{{{""", '''...................................''', "esc\"[[[[[[[[[[[["]
env = [ # a comment ]]]]]]]]]]]]
  "A", # {{{{{{{{{{{{{{{{{
]
`
	p, err := ParsePolicy([]byte(src), "p.toml")
	require.NoError(t, err)
	assert.Len(t, p.Default.Net, 2, "policy = %+v", p.Default)
	assert.Len(t, p.Default.Tools, 3, "policy = %+v", p.Default)
	assert.Len(t, p.Default.Env, 1, "policy = %+v", p.Default)
}

func TestParsePolicyEmpty(t *testing.T) {
	p, err := ParsePolicy(nil, "empty.toml")
	require.NoError(t, err)
	s := p.For("x")
	assert.True(t, s.IsZero(), "empty policy grants %s", Describe(s))
}

func TestLoadPolicyFileErrors(t *testing.T) {
	_, err := LoadPolicy(filepath.Join(t.TempDir(), "missing.toml"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "LoadPolicy(missing)")

	big := filepath.Join(t.TempDir(), "big.toml")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("\n", maxPolicySize+10)), 0o600))
	_, err = LoadPolicy(big)
	assert.ErrorContains(t, err, "larger than the limit", "LoadPolicy(big)")
}

func TestPolicyForGoValue(t *testing.T) {
	// A Policy built in Go code: a skill's non-empty keys replace the
	// default's.
	p := &Policy{
		Default: parseSet(t, `read = ["workspace"]
env = ["LANG"]
timeout = "30s"`),
		Skills: map[string]Set{"s": parseSet(t, `read = ["skill"]
timeout = "5s"`)},
	}
	want := parseSet(t, `read = ["skill"]
env = ["LANG"]
timeout = "5s"`)
	assert.Equal(t, want, p.For("s"), "For")

	// The result shares no memory with the policy.
	got := p.For("other")
	got.Read[0] = Path{Root: RootSkill}
	got.Env[0] = "X"
	assert.Equal(t, RootWorkspace, p.Default.Read[0].Root, "modifying For's result changed the policy: %+v", p.Default)
	assert.Equal(t, "LANG", p.Default.Env[0], "modifying For's result changed the policy: %+v", p.Default)

	var nilPolicy *Policy
	s := nilPolicy.For("s")
	assert.True(t, s.IsZero(), "nil Policy grants %s", Describe(s))
}

// FuzzParsePolicy checks that no input panics or takes long, and that a
// policy that parses grants only valid sets.
func FuzzParsePolicy(f *testing.F) {
	files, _ := filepath.Glob("testdata/policy/*.toml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("a.b.c.d = 1\nx = [[[{a={b=1}}]]]\n'''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, err := ParsePolicy(data, "p.toml")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %v", d)
		}
		if err != nil {
			return
		}
		for _, s := range append([]Set{p.Default, p.For("x")}, mapValues(p.Skills)...) {
			assert.NoError(t, s.Validate(), "parsed policy holds an invalid set")
		}
	})
}

func mapValues[K comparable, V any](m map[K]V) []V {
	var vs []V
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// TestPolicyNative: native = true in a skill's own table grants it the
// native tier, bound to that skill; [default] cannot; bad values are
// errors with their lines.
func TestPolicyNative(t *testing.T) {
	p, err := ParsePolicy([]byte(`
[skills."pdf"]
native = true
native_path = ["/usr/bin", "/bin"]
read = ["workspace"]

[skills."other"]
read = ["workspace"]
`), "policy.toml")
	require.NoError(t, err)
	ng, err := p.Native(SkillRef{Name: "pdf", Folder: "pdf"})
	require.NoError(t, err, "pdf")
	require.NotNil(t, ng, "pdf")
	require.Len(t, ng.Path, 2, "pdf: %+v", ng)
	require.Equal(t, "/bin", ng.Path[1], "pdf: %+v", ng)
	ng, err = p.Native(SkillRef{Name: "other", Folder: "other"})
	require.NoError(t, err, "other")
	require.Nil(t, ng, "other has no native grant")
	ng, err = p.Native(SkillRef{Name: "pdf", Folder: "impostor"})
	require.Error(t, err, "a skill claiming the name in another folder")
	require.Nil(t, ng, "a skill claiming the name in another folder gets no native grant")
	g := p.For("pdf")
	require.Len(t, g.Read, 1, "the rest of the table still grants: %+v", g)
	for src, want := range map[string]string{
		"[default]\nnative = true\n":                           "policy.toml:2: default.native: the native tier is granted per skill",
		"[skills.a]\nnative = \"yes\"\n":                       "policy.toml:2: skills.a.native: expected true or false",
		"[skills.a]\nnative = true\nnative_path = [\"bin\"]\n": "policy.toml:3: skills.a.native_path: \"bin\" is not an absolute",
		"[skills.a]\nnative_path = [\"/bin\"]\n":               "native_path without native = true grants nothing",
	} {
		_, err := ParsePolicy([]byte(src), "policy.toml")
		assert.ErrorContains(t, err, want, "%q", src)
	}
}
