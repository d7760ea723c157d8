package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
)

func ptr[T any](v T) *T { return &v }

func TestParseDefinition(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Definition
	}{
		{
			name: "all keys",
			in: "---\nname: reviewer\ndescription: Reviews.\nmodel: claude-sonnet-4-5\ntemperature: 0.2\n" +
				"reasoning_effort: high\ntools:\n  - workspace_read\n  - workspace_list\n---\n\nYou review.\n\n",
			want: &Definition{
				Name: "reviewer", Description: "Reviews.", Model: "claude-sonnet-4-5",
				Temperature: ptr(0.2), ReasoningEffort: "high",
				Tools:  []string{"workspace_read", "workspace_list"},
				Prompt: "You review.",
			},
		},
		{
			name: "name only",
			in:   "---\nname: a\n---\n",
			want: &Definition{Name: "a"},
		},
		{
			name: "integer temperature",
			in:   "---\nname: a\ntemperature: 2\n---\n",
			want: &Definition{Name: "a", Temperature: ptr(2.0)},
		},
		{
			name: "zero temperature is set, not default",
			in:   "---\nname: a\ntemperature: 0\n---\n",
			want: &Definition{Name: "a", Temperature: ptr(0.0)},
		},
		{
			name: "flow list of tools",
			in:   "---\nname: a\ntools: [x, y]\n---\n",
			want: &Definition{Name: "a", Tools: []string{"x", "y"}},
		},
		{
			name: "comma separated tools",
			in:   "---\nname: a\ntools: x, y z\n---\n",
			want: &Definition{Name: "a", Tools: []string{"x", "y", "z"}},
		},
		{
			name: "empty list is no tools",
			in:   "---\nname: a\ntools: []\n---\n",
			want: &Definition{Name: "a", Tools: []string{}},
		},
		{
			name: "empty string is no tools",
			in:   "---\nname: a\ntools: \"\"\n---\n",
			want: &Definition{Name: "a", Tools: []string{}},
		},
		{
			name: "CRLF and byte-order mark",
			in:   "\xEF\xBB\xBF---\r\nname: a\r\n---\r\nHello.\r\n",
			want: &Definition{Name: "a", Prompt: "Hello."},
		},
		{
			name: "body containing ---",
			in:   "---\nname: a\n---\nOne\n---\nTwo\n",
			want: &Definition{Name: "a", Prompt: "One\n---\nTwo"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDefinition([]byte(tt.in), "a.md", SourceUser, "")
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Source, tt.want.File = SourceUser, "a.md"
			assert.Equal(t, tt.want, got)
			if (tt.want.Tools == nil) != (got.Tools == nil) {
				t.Errorf("Tools nil = %v, want %v", got.Tools == nil, tt.want.Tools == nil)
			}
		})
	}
}

func TestParseDefinitionErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		line  int
		field string
		want  string // substring of the message
	}{
		{"unknown key", "---\nname: a\nmodle: x\n---\n", 3, "modle", `unknown key "modle" (did you mean "model"?)`},
		{"unknown key far from any", "---\nname: a\ncolor: blue\n---\n", 3, "color", `unknown key "color"; an agent definition has the keys name, description`},
		{"missing name", "---\ndescription: d\n---\n", 1, "name", "name is required"},
		{"empty frontmatter", "---\n---\nbody\n", 2, "", "must be a YAML mapping"},
		{"null name", "---\nname:\n---\n", 2, "name", "name has no value"},
		{"uppercase name", "---\nname: Reviewer\n---\n", 2, "name", "lowercase letters"},
		{"underscore name", "---\nname: code_review\n---\n", 2, "name", "lowercase letters"},
		{"leading hyphen", "---\nname: -a\n---\n", 2, "name", "lowercase letters"},
		{"double hyphen", "---\nname: a--b\n---\n", 2, "name", "single hyphens"},
		{"long name", "---\nname: " + strings.Repeat("a", 65) + "\n---\n", 2, "name", "the limit is 64"},
		{"list name", "---\nname:\n  - a\n---\n", 3, "name", "single value"},
		{"temperature too high", "---\nname: a\ntemperature: 2.5\n---\n", 3, "temperature", "out of range"},
		{"negative temperature", "---\nname: a\ntemperature: -0.1\n---\n", 3, "temperature", "out of range"},
		{"NaN temperature", "---\nname: a\ntemperature: .nan\n---\n", 3, "temperature", "out of range"},
		{"infinite temperature", "---\nname: a\ntemperature: .inf\n---\n", 3, "temperature", "out of range"},
		{"string temperature", "---\nname: a\ntemperature: hot\n---\n", 3, "temperature", "must be a number"},
		{"quoted temperature", "---\nname: a\ntemperature: \"0.5\"\n---\n", 3, "temperature", "must be a number"},
		{"bad effort", "---\nname: a\nreasoning_effort: extreme\n---\n", 3, "reasoning_effort", `"extreme" must be one of minimal, low, medium, high`},
		{"effort case", "---\nname: a\nreasoning_effort: High\n---\n", 3, "reasoning_effort", "must be one of"},
		{"empty model", "---\nname: a\nmodel: \"\"\n---\n", 3, "model", "model name"},
		{"empty description", "---\nname: a\ndescription: \"\"\n---\n", 3, "description", "description is empty"},
		{"long description", "---\nname: a\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", 3, "description", "the limit is 1024"},
		{"tools mapping", "---\nname: a\ntools:\n  x: y\n---\n", 4, "tools", "list of tool names"},
		{"tools nested list", "---\nname: a\ntools:\n  - [x]\n---\n", 4, "tools", "list of tool names"},
		{"tools null", "---\nname: a\ntools:\n---\n", 3, "tools", "tools has no value"},
		{"tool listed twice", "---\nname: a\ntools:\n  - x\n  - x\n---\n", 5, "tools", `tool "x" is listed twice`},
		{"tool name with space", "---\nname: a\ntools:\n  - \"x y\"\n---\n", 4, "tools", `"x y" is not a tool name`},
		{"duplicate key", "---\nname: a\nname: b\n---\n", 3, "name", `duplicate key "name" (first defined on line 2)`},
		{"explicit tag", "---\nname: !!str a\n---\n", 2, "name", "explicit YAML tag"},
		{"anchor", "---\nname: &n a\ndescription: *n\n---\n", 2, "", "anchors and aliases"},
		{"merge key", "---\nname: a\nx: &b {y: 1}\nz:\n  <<: *b\n---\n", 3, "", "anchors and aliases"},
		{"no frontmatter", "name: a\n", 1, "", "must start with YAML frontmatter"},
		{"unclosed", "---\nname: a\n", 1, "", "not closed"},
		{"syntax", "---\nname: a\ndescription: [\n---\n", 0, "", "invalid YAML"},
		{"not a mapping", "---\n- a\n---\n", 2, "", "must be a YAML mapping"},
		{"invalid UTF-8", "---\nname: \xff\n---\n", 0, "", "not valid UTF-8"},
		{"oversize", "---\nname: a\n---\n" + strings.Repeat("x", maxFileSize), 0, "", "the limit is 256 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDefinition([]byte(tt.in), "agents/a.md", SourceUser, "")
			if err == nil {
				t.Fatalf("no error; got %+v", d)
			}
			if d != nil {
				t.Errorf("got a definition with the error: %+v", d)
			}
			de, ok := errors.AsType[*DefinitionError](err)
			if !ok {
				t.Fatalf("error %v (%T) is not a *DefinitionError", err, err)
			}
			if tt.line != 0 && de.Line != tt.line {
				t.Errorf("Line = %d, want %d (%v)", de.Line, tt.line, err)
			}
			if de.Field != tt.field {
				t.Errorf("Field = %q, want %q (%v)", de.Field, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			prefix := "agents/a.md: "
			if de.Line > 0 {
				prefix = fmt.Sprintf("agents/a.md:%d: ", de.Line)
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
		})
	}
}

// TestParseDefinitionReportsEveryProblem checks that one pass reports all
// the problems of a file, each with its own line.
func TestParseDefinitionReportsEveryProblem(t *testing.T) {
	in := "---\nname: A\ntemperature: 3\nreasoning_effort: max\ncolour: red\n---\n"
	_, err := ParseDefinition([]byte(in), "a.md", SourceUser, "")
	want := []string{
		`a.md:2: name "A" must be lowercase`,
		"a.md:3: temperature 3 is out of range",
		`a.md:4: reasoning_effort "max" must be one of`,
		`a.md:5: unknown key "colour"`,
	}
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

// TestParseDefinitionAliasBomb checks that a billion-laughs document is
// refused without expanding it: the node tree keeps aliases unexpanded and
// the first anchor is an error, so this returns at once.
func TestParseDefinitionAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	_, err := ParseDefinition([]byte(b.String()), "bomb.md", SourceUser, "")
	de, ok := errors.AsType[*DefinitionError](err)
	if !ok || de.Line != 3 || !strings.Contains(de.Message, "anchors and aliases") {
		t.Fatalf("alias bomb not refused at line 3: %v", err)
	}
}

func TestParseDefinitionOrigin(t *testing.T) {
	tests := []struct {
		name   string
		src    Source
		plugin string
		ok     bool
	}{
		{"user", SourceUser, "", true},
		{"builtin", SourceBuiltin, "", true},
		{"plugin", SourcePlugin, "pdf", true},
		{"plugin without name", SourcePlugin, "", false},
		{"user with plugin", SourceUser, "pdf", false},
		{"plugin name with colon", SourcePlugin, "a:b", false},
		{"unknown source", Source(7), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDefinition([]byte("---\nname: a\n---\n"), "a.md", tt.src, tt.plugin)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok = %v", err, tt.ok)
			}
			if tt.ok && (d.Source != tt.src || d.Plugin != tt.plugin) {
				t.Errorf("Source, Plugin = %v, %q; want %v, %q", d.Source, d.Plugin, tt.src, tt.plugin)
			}
		})
	}
}

func TestSourceString(t *testing.T) {
	for src, want := range map[Source]string{SourceBuiltin: "builtin", SourcePlugin: "plugin", SourceUser: "user", 9: "Source(9)"} {
		if got := src.String(); got != want {
			t.Errorf("Source(%d).String() = %q, want %q", int(src), got, want)
		}
	}
	if !(SourceBuiltin < SourcePlugin && SourcePlugin < SourceUser) {
		t.Error("sources are not ordered by precedence")
	}
}

func TestLoadDir(t *testing.T) {
	dir := filepath.Join("testdata", "agents")
	defs, errs := LoadDir(dir, SourcePlugin, "review-pack")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.QualifiedName()+" "+d.File+" "+d.PoolKey())
	}
	want := []string{
		"review-pack:planner " + filepath.Join(dir, "planner.md") + " plugin-review-pack-planner",
		"review-pack:reviewer " + filepath.Join(dir, "reviewer.md") + " plugin-review-pack-reviewer",
	}
	assert.Equal(t, want, got)
}

func TestLoadDirErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.md", "---\nname: good\n---\nHi.\n")
	write("bad.md", "---\nname: bad\nmodle: x\n---\n")
	write("big.md", "---\nname: big\n---\n"+strings.Repeat("x", 2*maxFileSize))
	write("notes.txt", "not an agent")
	write(".hidden.md", "---\nbogus: 1\n---\n")
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}

	defs, errs := LoadDir(dir, SourceUser, "")
	if len(defs) != 1 || defs[0].Name != "good" {
		t.Errorf("defs = %v, want only good", defs)
	}
	if len(errs) != 2 {
		t.Fatalf("errs = %v, want 2", errs)
	}
	for i, want := range []string{filepath.Join(dir, "bad.md") + ":3: unknown key", filepath.Join(dir, "big.md") + ": agent definition is"} {
		if !strings.HasPrefix(errs[i].Error(), want) {
			t.Errorf("errs[%d] = %q, want prefix %q", i, errs[i], want)
		}
	}

	_, errs = LoadDir(filepath.Join(dir, "missing"), SourceUser, "")
	if len(errs) != 1 || !errors.Is(errs[0], fs.ErrNotExist) {
		t.Errorf("missing dir: errs = %v, want one matching fs.ErrNotExist", errs)
	}
}

func TestLoadFSTooManyFiles(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range maxDirFiles + 1 {
		fsys[fmt.Sprintf("a%d.md", i)] = &fstest.MapFile{Data: []byte("---\nname: a\n---\n")}
	}
	defs, errs := loadFS(fsys, SourceUser, "")
	if defs != nil || len(errs) != 1 || !strings.Contains(errs[0].Error(), "the limit is 1000") {
		t.Errorf("loadFS = %d defs, %v; want the directory refused", len(defs), errs)
	}
}

func TestBuiltin(t *testing.T) {
	defs := Builtin()
	if len(defs) != 1 {
		t.Fatalf("Builtin() = %d definitions, want 1", len(defs))
	}
	g := defs[0]
	if g.Name != "general" || g.Source != SourceBuiltin || g.Tools != nil || g.Prompt == "" || g.File != "builtin/general.md" {
		t.Errorf("general = %+v", g)
	}
	// Each call returns new values.
	g.Name = "changed"
	if Builtin()[0].Name != "general" {
		t.Error("Builtin returned shared definitions")
	}
}
