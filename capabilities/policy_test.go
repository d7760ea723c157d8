package capabilities

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadPolicy(t *testing.T) {
	p, err := LoadPolicy("testdata/policy/valid.toml")
	if err != nil {
		t.Fatal(err)
	}
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
		if diff := cmp.Diff(parseSet(t, tt.want), p.For(tt.skill)); diff != "" {
			t.Errorf("For(%q) mismatch (-want +got):\n%s", tt.skill, diff)
		}
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
		if err == nil {
			t.Errorf("%s: no error; policy %+v", tt.file, p)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("%s: error mismatch (-want +got):\n%s", tt.file, diff)
		}
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
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if err == nil {
				t.Fatalf("no error; policy %+v", p)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n got: %s\nwant: %s...", err, tt.want)
			}
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
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxPolicyProblems+1 || !strings.HasSuffix(lines[len(lines)-1], "more problems not shown") {
		t.Errorf("%d lines, last %q; want %d problems and a count of the rest", len(lines), lines[len(lines)-1], maxPolicyProblems)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Default.Net) != 2 || len(p.Default.Tools) != 3 || len(p.Default.Env) != 1 {
		t.Errorf("policy = %+v", p.Default)
	}
}

func TestParsePolicyEmpty(t *testing.T) {
	p, err := ParsePolicy(nil, "empty.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s := p.For("x"); !s.IsZero() {
		t.Errorf("empty policy grants %s", Describe(s))
	}
}

func TestLoadPolicyFileErrors(t *testing.T) {
	_, err := LoadPolicy(filepath.Join(t.TempDir(), "missing.toml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadPolicy(missing) = %v, want fs.ErrNotExist", err)
	}

	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, []byte(strings.Repeat("\n", maxPolicySize+10)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPolicy(big); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("LoadPolicy(big) = %v, want a size error", err)
	}
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
	if diff := cmp.Diff(want, p.For("s")); diff != "" {
		t.Errorf("For mismatch (-want +got):\n%s", diff)
	}

	// The result shares no memory with the policy.
	got := p.For("other")
	got.Read[0] = Path{Root: RootSkill}
	got.Env[0] = "X"
	if p.Default.Read[0].Root != RootWorkspace || p.Default.Env[0] != "LANG" {
		t.Errorf("modifying For's result changed the policy: %+v", p.Default)
	}

	var nilPolicy *Policy
	if s := nilPolicy.For("s"); !s.IsZero() {
		t.Errorf("nil Policy grants %s", Describe(s))
	}
}

// FuzzParsePolicy checks that no input panics or takes long, and that a
// policy that parses grants only valid sets.
func FuzzParsePolicy(f *testing.F) {
	files, _ := filepath.Glob("testdata/policy/*.toml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
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
			if err := s.Validate(); err != nil {
				t.Errorf("parsed policy holds an invalid set: %v", err)
			}
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
	if err != nil {
		t.Fatal(err)
	}
	ng, err := p.Native(SkillRef{Name: "pdf", Folder: "pdf"})
	if err != nil || ng == nil || len(ng.Path) != 2 || ng.Path[1] != "/bin" {
		t.Fatalf("pdf: %+v %v", ng, err)
	}
	if ng, err := p.Native(SkillRef{Name: "other", Folder: "other"}); ng != nil || err != nil {
		t.Fatalf("other has no native grant: %+v %v", ng, err)
	}
	if ng, err := p.Native(SkillRef{Name: "pdf", Folder: "impostor"}); ng != nil || err == nil {
		t.Fatalf("a skill claiming the name in another folder gets no native grant: %+v %v", ng, err)
	}
	if g := p.For("pdf"); len(g.Read) != 1 {
		t.Fatalf("the rest of the table still grants: %+v", g)
	}
	for src, want := range map[string]string{
		"[default]\nnative = true\n":                           "policy.toml:2: default.native: the native tier is granted per skill",
		"[skills.a]\nnative = \"yes\"\n":                       "policy.toml:2: skills.a.native: expected true or false",
		"[skills.a]\nnative = true\nnative_path = [\"bin\"]\n": "policy.toml:3: skills.a.native_path: \"bin\" is not an absolute",
		"[skills.a]\nnative_path = [\"/bin\"]\n":               "native_path without native = true grants nothing",
	} {
		_, err := ParsePolicy([]byte(src), "policy.toml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}
