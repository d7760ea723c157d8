package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/tomlx"
)

func readManifestTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "manifest", name))
	require.NoError(t, err)
	return data
}

// TestParseManifestFull decodes the skill.toml example of DESIGN.md
// ("Contracts users (and tests) rely on") and checks every field.
func TestParseManifestFull(t *testing.T) {
	m, ps := ParseManifest(readManifestTestdata(t, "full.toml"), "stats/skill.toml")
	require.Empty(t, ps, "problems")
	want := &Manifest{
		Version:  1,
		Triggers: []string{"csv", "statistics"},
		Capabilities: capabilities.Set{
			Read:  []capabilities.Path{{Root: capabilities.RootSkill}, {Root: capabilities.RootWorkspace}},
			Write: []capabilities.Path{{Root: capabilities.RootWorkspace, Sub: "out"}},
			Env:   []string{"LANG"},
			Net: []capabilities.HostPattern{
				{Host: "api.example.com"},
				{Host: "example.org", Port: 443, Wildcard: true},
			},
			Tools:   []string{"workspace_read"},
			MCP:     []string{"github/*"},
			Skills:  []string{"pdf-extract"},
			Memory:  64 * capabilities.MiB,
			Timeout: capabilities.Duration(10 * time.Second),
			Output:  capabilities.MiB,
		},
		Scripts: map[string]*Script{
			"stats": {
				Name:        "stats",
				Kind:        KindWASI,
				Description: "Summarise a CSV file",
				Module:      "scripts/stats.wasm",
				Build:       &Build{Lang: "go", Dir: "src/stats"},
				InputSchema: "schemas/stats.input.json",
			},
		},
	}
	assert.Equal(t, want, m, "ParseManifest")
	assert.Equal(t, []string{"stats"}, m.ScriptNames(), "ScriptNames()")
}

func TestParseManifestKinds(t *testing.T) {
	m, ps := ParseManifest(readManifestTestdata(t, "kinds.toml"), "kinds/skill.toml")
	require.Empty(t, ps, "problems")
	want := &Manifest{
		Version: 1,
		Scripts: map[string]*Script{
			"convert": {
				Name: "convert", Kind: KindExtism,
				Description:  "Convert a document with an Extism plugin",
				Plugin:       "plugins/convert.wasm",
				Export:       "convert",
				Build:        &Build{Lang: "rust", Dir: "src/convert"},
				InputSchema:  "schemas/convert.input.json",
				OutputSchema: "schemas/convert.output.json",
			},
			"hello": {Name: "hello", Kind: KindExtism, Plugin: "plugins/hello.wasm", Export: defaultExport},
			"report": {
				Name: "report", Kind: KindSource,
				Source: "scripts/report.py",
				Args:   []string{"--format", "markdown"},
				Capabilities: capabilities.Set{
					Read:    []capabilities.Path{{Root: capabilities.RootWorkspace, Sub: "data"}},
					Write:   []capabilities.Path{{Root: capabilities.RootWorkspace, Sub: "out"}},
					Timeout: capabilities.Duration(90 * time.Second),
				},
			},
			"count-words": {
				Name: "count-words", Kind: KindWASI,
				Module: "bin/count_words.wasm",
				Build:  &Build{Lang: "c", Dir: "."},
			},
		},
	}
	assert.Equal(t, want, m, "ParseManifest")
	assert.Equal(t, []string{"convert", "count-words", "hello", "report"}, m.ScriptNames(), "ScriptNames()")
}

// TestParseManifestErrorsFile checks that one file with many mistakes
// yields every problem, each at its line, in line order.
func TestParseManifestErrorsFile(t *testing.T) {
	const file = "bad/skill.toml"
	m, ps := ParseManifest(readManifestTestdata(t, "errors.toml"), file)
	require.NotNil(t, m, "ParseManifest returned no manifest for a file that is valid TOML")
	want := Problems{
		{File: file, Line: 2, Field: "version", Message: "version 2 is not supported; this skillrun reads version 1"},
		{File: file, Line: 3, Field: "triggers", Message: "triggers: entry 1 is empty"},
		{File: file, Line: 6, Field: "capabilities.env", Message: `capabilities.env: "1BAD" is not a valid environment variable name (letters, digits and _, not starting with a digit)`},
		{File: file, Line: 6, Field: "capabilities.env", Message: `capabilities.env: "LANG" is listed more than once`},
		{File: file, Line: 7, Field: "capabilities.netz", Message: `unknown key "capabilities.netz"; did you mean "net"?`},
		{File: file, Line: 8, Field: "capabilities.memory", Message: `capabilities.memory: invalid size "64XB": unknown unit "XB"; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{File: file, Line: 10, Field: `scripts."Bad Name"`, Message: `script name "Bad Name" must match ^[a-z0-9][a-z0-9_-]{0,63}$, since it becomes a tool name`},
		{File: file, Line: 11, Field: `scripts."Bad Name".module`, Message: `scripts."Bad Name".module: "../escape.wasm" leads outside the skill folder (".." is not allowed)`},
		{File: file, Line: 13, Field: "scripts.stats", Message: `script "stats" needs one of module (a WASI program), plugin (an Extism plugin) or source (a script file)`},
		{File: file, Line: 14, Field: "scripts.stats.modle", Message: `unknown key "scripts.stats.modle"; did you mean "module"?`},
		{File: file, Line: 15, Field: "scripts.stats.export", Message: "scripts.stats.export: export applies only to plugin scripts"},
		{File: file, Line: 17, Field: "scripts.both", Message: `script "both" sets module and source; set exactly one of module, plugin or source`},
		{File: file, Line: 20, Field: "scripts.both.build.lang", Message: `scripts.both.build.lang: "zig" is not supported; use one of go, c, rust`},
		{File: file, Line: 20, Field: "scripts.both.build.dir", Message: `scripts.both.build.dir: "/abs" is absolute; write a path relative to the skill folder`},
		{File: file, Line: 23, Field: "scripts.both.capabilities.net", Message: `scripts.both.capabilities.net: invalid host pattern "https://example.com": a URL is not a host pattern; drop the scheme and any path, write host[:port], such as "api.example.com", "*.example.org:443" or "[::1]:8080"`},
		{File: file, Line: 24, Field: "scripts.both.capabilities.mcp", Message: `scripts.both.capabilities.mcp: "github" is not a valid MCP pattern; write "server/tool" or "server/*"`},
	}
	assert.Equal(t, want, ps, "problems")
	for _, p := range ps {
		assert.Equal(t, Error, p.Severity, "severity of problem %q", p.Message)
	}
}

// wantProblem is a problem as the rule tests assert it: exact field and
// line, and a part of the message.
type wantProblem struct {
	field string
	line  int
	msg   string
}

func checkProblems(t *testing.T, file string, ps Problems, want []wantProblem) {
	t.Helper()
	if !assert.Len(t, ps, len(want), "problems") {
		return
	}
	for i, p := range ps {
		w := want[i]
		assert.Equal(t, w.field, p.Field, "problem %d: field", i)
		assert.Equal(t, w.line, p.Line, "problem %d: line", i)
		assert.Contains(t, p.Message, w.msg, "problem %d: message", i)
		assert.Equal(t, file, p.File, "problem %d: file", i)
		assert.Equal(t, Error, p.Severity, "problem %d: severity", i)
	}
}

func TestParseManifestRules(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []wantProblem
	}{
		// Empty and minimal manifests.
		{name: "empty", src: ""},
		{name: "comments only", src: "# nothing to run yet\n"},
		{name: "version 1", src: "version = 1\n"},

		// version
		{name: "version 2", src: "version = 2", want: []wantProblem{
			{"version", 1, "version 2 is not supported; this skillrun reads version 1"}}},
		{name: "version 0", src: "\nversion = 0", want: []wantProblem{
			{"version", 2, "version 0 is not supported"}}},
		{name: "version string", src: `version = "1"`, want: []wantProblem{
			{"version", 1, "version: expected an integer, found a string"}}},

		// triggers
		{name: "triggers ok", src: `triggers = ["csv", "a b", "` + strings.Repeat("x", 64) + `"]`},
		{name: "trigger empty", src: `triggers = ["csv", " "]`, want: []wantProblem{
			{"triggers", 1, "triggers: entry 2 is empty"}}},
		{name: "trigger too long", src: "triggers = [\n  \"" + strings.Repeat("x", 65) + "\",\n]", want: []wantProblem{
			{"triggers", 1, `is longer than 64 characters`}}},
		{name: "too many triggers", src: "triggers = [" + strings.Repeat(`"t",`, 65) + "]", want: []wantProblem{
			{"triggers", 1, "triggers: 65 entries; the limit is 64"}}},
		{name: "triggers not strings", src: "triggers = [\"a\", 1]", want: []wantProblem{
			{"triggers", 1, "triggers: expected an array of strings, found an array containing an integer"}}},
		{name: "triggers string", src: `triggers = "csv"`, want: []wantProblem{
			{"triggers", 1, "triggers: expected an array of strings, found a string"}}},

		// unknown keys
		{name: "unknown top-level key", src: "version = 1\nname = \"x\"", want: []wantProblem{
			{"name", 2, `unknown key "name"`}}},
		{name: "unknown table with suggestion", src: "[script.stats]\nmodule = \"a.wasm\"", want: []wantProblem{
			{"script", 1, `unknown key "script"; did you mean "scripts"?`}}},
		{name: "wrong case gets a suggestion", src: "Version = 1", want: []wantProblem{
			{"Version", 1, `unknown key "Version"; did you mean "version"?`}}},
		{name: "unknown capability", src: "[capabilities]\nread = [\"skill\"]\nreed = [\"skill\"]", want: []wantProblem{
			{"capabilities.reed", 3, `unknown key "capabilities.reed"; did you mean "read"?`}}},
		{name: "unknown script key", src: "[scripts.stats]\nmodule = \"a.wasm\"\nmodle = \"b.wasm\"", want: []wantProblem{
			{"scripts.stats.modle", 3, `unknown key "scripts.stats.modle"; did you mean "module"?`}}},
		{name: "unknown key far from any", src: "[scripts.stats]\nmodule = \"a.wasm\"\ncolour = \"red\"", want: []wantProblem{
			{"scripts.stats.colour", 3, `unknown key "scripts.stats.colour"`}}},
		{name: "unknown dotted key", src: "scripts.stats.module = \"a.wasm\"\nscripts.stats.modle = \"b\"", want: []wantProblem{
			{"scripts.stats.modle", 2, `unknown key "scripts.stats.modle"; did you mean "module"?`}}},
		{name: "unknown key in inline table", src: "[scripts.stats]\nmodule = \"a.wasm\"\nbuild = { lang = \"go\", dir = \"src\", flags = \"-O\" }", want: []wantProblem{
			{"scripts.stats.build.flags", 3, `unknown key "scripts.stats.build.flags"`}}},
		{name: "unknown key in per-script capabilities", src: "[scripts.stats]\nmodule = \"a.wasm\"\n\n[scripts.stats.capabilities]\nnetwork = [\"x.com\"]", want: []wantProblem{
			{"scripts.stats.capabilities.network", 5, `unknown key "scripts.stats.capabilities.network"`}}},
		{name: "children of an unknown table are not reported", src: "[extra]\na = 1\nb = 2\n[extra.sub]\nc = 3", want: []wantProblem{
			{"extra", 1, `unknown key "extra"`}}},

		// tables of the wrong type
		{name: "capabilities not a table", src: `capabilities = "all"`, want: []wantProblem{
			{"capabilities", 1, "capabilities: expected a table, found a string"}}},
		{name: "scripts as array of tables", src: "[[scripts]]\nmodule = \"a.wasm\"", want: []wantProblem{
			{"scripts", 1, "scripts: expected a table, found an array of tables"}}},
		{name: "script not a table", src: "[scripts]\nstats = \"a.wasm\"", want: []wantProblem{
			{"scripts.stats", 2, "scripts.stats: expected a table, found a string"}}},
		{name: "build not a table", src: "[scripts.s]\nmodule = \"a.wasm\"\nbuild = \"go\"", want: []wantProblem{
			{"scripts.s.build", 3, "scripts.s.build: expected a table, found a string"}}},

		// script names
		{name: "script name ok", src: "[scripts.a0_-z]\nmodule = \"a.wasm\"\n[scripts.\"" + strings.Repeat("a", 64) + "\"]\nmodule = \"a.wasm\""},
		{name: "script name uppercase", src: "[scripts.Stats]\nmodule = \"a.wasm\"", want: []wantProblem{
			{"scripts.Stats", 1, `script name "Stats" must match ^[a-z0-9][a-z0-9_-]{0,63}$`}}},
		{name: "script name leading dash", src: "[scripts.-x]\nmodule = \"a.wasm\"", want: []wantProblem{
			{"scripts.-x", 1, `script name "-x" must match`}}},
		{name: "script name dot", src: "[scripts.\"a.b\"]\nmodule = \"a.wasm\"", want: []wantProblem{
			{`scripts."a.b"`, 1, `script name "a.b" must match`}}},
		{name: "script name too long", src: "[scripts." + strings.Repeat("a", 65) + "]\nmodule = \"a.wasm\"", want: []wantProblem{
			{"scripts." + strings.Repeat("a", 65), 1, "must match"}}},
		{name: "script name empty", src: "[scripts.\"\"]\nmodule = \"a.wasm\"", want: []wantProblem{
			{`scripts.""`, 1, `script name "" must match`}}},

		// kinds
		{name: "no kind", src: "[scripts.s]\ndescription = \"nothing to run\"", want: []wantProblem{
			{"scripts.s", 1, `script "s" needs one of module (a WASI program), plugin (an Extism plugin) or source (a script file)`}}},
		{name: "module and plugin", src: "[scripts.s]\nmodule = \"a.wasm\"\nplugin = \"b.wasm\"", want: []wantProblem{
			{"scripts.s", 1, `script "s" sets module and plugin; set exactly one of module, plugin or source`}}},
		{name: "all three kinds", src: "[scripts.s]\nmodule = \"a.wasm\"\nplugin = \"b.wasm\"\nsource = \"c.py\"", want: []wantProblem{
			{"scripts.s", 1, `script "s" sets module and plugin and source`}}},
		{name: "empty module still counts", src: "[scripts.s]\nmodule = \"\"", want: []wantProblem{
			{"scripts.s.module", 2, `scripts.s.module: "" is empty; write a path relative to the skill folder`}}},

		// export
		{name: "export with module", src: "[scripts.s]\nmodule = \"a.wasm\"\nexport = \"run\"", want: []wantProblem{
			{"scripts.s.export", 3, "scripts.s.export: export applies only to plugin scripts"}}},
		{name: "export with source", src: "[scripts.s]\nsource = \"a.py\"\nexport = \"main\"", want: []wantProblem{
			{"scripts.s.export", 3, "export applies only to plugin scripts"}}},
		{name: "empty export", src: "[scripts.s]\nplugin = \"a.wasm\"\nexport = \"\"", want: []wantProblem{
			{"scripts.s.export", 3, `scripts.s.export: must not be empty; omit it to call "run"`}}},

		// build
		{name: "build with source", src: "[scripts.s]\nsource = \"a.py\"\nbuild = { lang = \"go\", dir = \"src\" }", want: []wantProblem{
			{"scripts.s.build", 3, "scripts.s.build: build applies only to module or plugin scripts"}}},
		{name: "build as a table", src: "[scripts.s]\nplugin = \"a.wasm\"\n[scripts.s.build]\nlang = \"rust\"\ndir = \"src\""},
		{name: "build lang unknown", src: "[scripts.s]\nmodule = \"a.wasm\"\nbuild = { lang = \"Go\", dir = \"src\" }", want: []wantProblem{
			{"scripts.s.build.lang", 3, `scripts.s.build.lang: "Go" is not supported; use one of go, c, rust`}}},
		{name: "build lang missing", src: "[scripts.s]\nmodule = \"a.wasm\"\n\n[scripts.s.build]\ndir = \"src\"", want: []wantProblem{
			{"scripts.s.build.lang", 4, "scripts.s.build.lang: required; one of go, c, rust"}}},
		{name: "build dir missing", src: "[scripts.s]\nmodule = \"a.wasm\"\nbuild = { lang = \"go\" }", want: []wantProblem{
			{"scripts.s.build.dir", 3, "scripts.s.build.dir: required; the folder of the sources"}}},
		{name: "build dir escapes", src: "[scripts.s]\nmodule = \"a.wasm\"\nbuild = { lang = \"go\", dir = \"src/../../x\" }", want: []wantProblem{
			{"scripts.s.build.dir", 3, `"src/../../x" leads outside the skill folder`}}},
		{name: "build empty table", src: "[scripts.s]\nmodule = \"a.wasm\"\nbuild = {}", want: []wantProblem{
			{"scripts.s.build.lang", 3, "required"},
			{"scripts.s.build.dir", 3, "required"}}},

		// paths
		{name: "absolute module", src: "[scripts.s]\nmodule = \"/usr/bin/x.wasm\"", want: []wantProblem{
			{"scripts.s.module", 2, `scripts.s.module: "/usr/bin/x.wasm" is absolute; write a path relative to the skill folder`}}},
		{name: "windows drive", src: "[scripts.s]\nplugin = 'C:\\x.wasm'", want: []wantProblem{
			{"scripts.s.plugin", 2, `contains a backslash`}}},
		{name: "windows drive slash", src: "[scripts.s]\nplugin = 'c:/x.wasm'", want: []wantProblem{
			{"scripts.s.plugin", 2, `"c:/x.wasm" is absolute`}}},
		{name: "dotdot source", src: "[scripts.s]\nsource = \"../other/x.py\"", want: []wantProblem{
			{"scripts.s.source", 2, `scripts.s.source: "../other/x.py" leads outside the skill folder (".." is not allowed)`}}},
		{name: "dotdot alone", src: "[scripts.s]\nsource = \"..\"", want: []wantProblem{
			{"scripts.s.source", 2, "leads outside the skill folder"}}},
		{name: "dotdot at end", src: "[scripts.s]\nsource = \"a/..\"", want: []wantProblem{
			{"scripts.s.source", 2, "leads outside the skill folder"}}},
		{name: "backslash schema", src: "[scripts.s]\nmodule = \"a.wasm\"\ninput_schema = 'schemas\\in.json'", want: []wantProblem{
			{"scripts.s.input_schema", 3, `scripts.s.input_schema: "schemas\\in.json" contains a backslash; use "/" between folders`}}},
		{name: "nul in output schema", src: "[scripts.s]\nmodule = \"a.wasm\"\noutput_schema = \"a\\u0000b\"", want: []wantProblem{
			{"scripts.s.output_schema", 3, "contains a control character"}}},
		{name: "empty input schema", src: "[scripts.s]\nmodule = \"a.wasm\"\ninput_schema = \"\"", want: []wantProblem{
			{"scripts.s.input_schema", 3, "is empty"}}},
		{name: "unclean module", src: "[scripts.s]\nmodule = \"./bin//a.wasm\"", want: []wantProblem{
			{"scripts.s.module", 2, `is not a clean path (no ".", empty segments or trailing slash); write "bin/a.wasm"`}}},
		{name: "module trailing slash", src: "[scripts.s]\nmodule = \"bin/\"", want: []wantProblem{
			{"scripts.s.module", 2, `write "bin"`}}},
		{name: "module is the skill folder", src: "[scripts.s]\nmodule = \".\"", want: []wantProblem{
			{"scripts.s.module", 2, "names the skill folder itself"}}},
		{name: "dotted names are fine", src: "[scripts.s]\nmodule = \"bin/..a.wasm\"\ninput_schema = \".schemas/in.json\""},
		{name: "args not strings", src: "[scripts.s]\nmodule = \"a.wasm\"\nargs = [1, 2]", want: []wantProblem{
			{"scripts.s.args", 3, "scripts.s.args: expected an array of strings, found an array containing an integer"}}},

		// capabilities
		{name: "capability values", src: "[capabilities]\nread = [\"skill\",\n  \"/etc\"]\ntimeout = \"forever\"\noutput = 0", want: []wantProblem{
			{"capabilities.read", 2, `capabilities.read: invalid path "/etc": absolute paths are not allowed`},
			{"capabilities.timeout", 4, `capabilities.timeout: invalid duration "forever"`},
			{"capabilities.output", 5, `capabilities.output: invalid size "0": must be positive`}}},
		{name: "capability integer size", src: "[capabilities]\nmemory = 65536"},
		{name: "capability wrong type", src: "[capabilities]\nenv = \"LANG\"\nmemory = [\"64MiB\"]", want: []wantProblem{
			{"capabilities.env", 2, "capabilities.env: expected an array of strings, found a string"},
			{"capabilities.memory", 3, `capabilities.memory: expected a size such as "64MiB", found an array`}}},
		{name: "capability lists", src: "[capabilities]\nenv = [\"A-B\"]\ntools = [\"two words\"]\nmcp = [\"*/*\"]\nskills = [\"\"]\nwrite = [\"workspace\", \"workspace/\"]", want: []wantProblem{
			{"capabilities.env", 2, `capabilities.env: "A-B" is not a valid environment variable name`},
			{"capabilities.tools", 3, `capabilities.tools: "two words" is not a valid tool name`},
			{"capabilities.mcp", 4, `capabilities.mcp: "*/*" is not a valid MCP pattern`},
			{"capabilities.skills", 5, `capabilities.skills: "" is not a valid skill name`},
			{"capabilities.write", 6, `capabilities.write: "workspace" is listed more than once`}}},
		{name: "capability list too long", src: "[capabilities]\nenv = [" + strings.Repeat(`"A",`, 257) + "]", want: []wantProblem{
			{"capabilities.env", 2, "capabilities.env: 257 entries; the limit is 256"}}},
		{name: "per-script capabilities inline", src: "[scripts.s]\nmodule = \"a.wasm\"\ncapabilities = { net = [\"a.*.com\"] }", want: []wantProblem{
			{"scripts.s.capabilities.net", 3, `scripts.s.capabilities.net: invalid host pattern "a.*.com"`}}},
		{name: "per-script capabilities dotted", src: "[scripts.s]\nmodule = \"a.wasm\"\ncapabilities.env = [\"9X\"]", want: []wantProblem{
			{"scripts.s.capabilities.env", 3, `scripts.s.capabilities.env: "9X" is not a valid environment variable name`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const file = "t/skill.toml"
			m, ps := ParseManifest([]byte(tt.src), file)
			require.NotNil(t, m, "ParseManifest returned no manifest; problems:\n%v", ps)
			checkProblems(t, file, ps, tt.want)
		})
	}
}

func TestParseManifestUndecodable(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Problem
	}{
		{
			name: "too large",
			src:  "# " + strings.Repeat("x", maxManifestSize),
			want: Problem{File: "f", Message: fmt.Sprintf("skill.toml is %d bytes; the limit is 256 KiB", maxManifestSize+2)},
		},
		{
			name: "invalid UTF-8",
			src:  "version = 1\n\n# caf\xe9\n",
			want: Problem{File: "f", Line: 3, Message: "skill.toml is not valid UTF-8"},
		},
		{
			name: "syntax error",
			src:  "version = 1\n[scripts.stats\nmodule = \"a\"",
			want: Problem{File: "f", Line: 2, Message: "invalid TOML: expected '.' or ']' to end table name, but got '\\n' instead"},
		},
		{
			name: "duplicate key",
			src:  "version = 1\n\nversion = 1\n",
			want: Problem{File: "f", Line: 3, Message: "invalid TOML: Key 'version' has already been defined."},
		},
		{
			name: "two statements on a line",
			src:  "version = 1 triggers = []\n",
			want: Problem{File: "f", Line: 1, Message: "invalid TOML: expected a top-level item to end with a newline, comment, or EOF, but got 't' instead"},
		},
		{
			name: "syntax error after a BOM",
			src:  "\uFEFFversion = 1\n\n[scripts\n",
			want: Problem{File: "f", Line: 3, Message: "invalid TOML: expected '.' or ']' to end table name, but got '\\n' instead"},
		},
		{
			name: "dotted key too deep",
			src:  "version = 1\n" + strings.Repeat("a.", 16) + "b = 1\n",
			want: Problem{File: "f", Line: 2, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "table header too deep",
			src:  "\n\n[" + strings.Repeat("a.", 20000) + "b]\n",
			want: Problem{File: "f", Line: 3, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "header and dotted key together too deep",
			src:  "[a.b.c.d.e.f.g.h]\ni.j.k.l.m.n.o.p.q = 1\n",
			want: Problem{File: "f", Line: 2, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "inline tables too deep",
			src:  "a = " + strings.Repeat("{b=", 50000) + "1" + strings.Repeat("}", 50000) + "\n",
			want: Problem{File: "f", Line: 1, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "arrays too deep",
			src:  "a = [\n" + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "]\n",
			want: Problem{File: "f", Line: 2, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "inline tables in arrays too deep",
			src:  "a = [" + strings.Repeat("{b=[", 20) + "1" + strings.Repeat("]}", 20) + "]\n",
			want: Problem{File: "f", Line: 1, Message: "skill.toml nests keys, arrays or tables more than 16 levels deep"},
		},
		{
			name: "unterminated string",
			src:  "triggers = [\"csv]\n",
			want: Problem{File: "f", Line: 1, Message: "invalid TOML: strings cannot contain newlines"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ps := ParseManifest([]byte(tt.src), "f")
			assert.Nil(t, m, "ParseManifest returned a manifest")
			assert.Equal(t, Problems{tt.want}, ps, "problems")
		})
	}
}

// TestParseManifestNestingLimit checks the largest nesting accepted, so the
// guard against the parser's quadratic cost does not refuse real input.
func TestParseManifestNestingLimit(t *testing.T) {
	for _, src := range []string{
		"[x]\n" + strings.Repeat("a.", 14) + "b = 1\n",
		"x = " + strings.Repeat("[", 16) + strings.Repeat("]", 16) + "\n",
		"x = " + strings.Repeat("{a=", 15) + "1" + strings.Repeat("}", 15) + "\n",
	} {
		m, ps := ParseManifest([]byte(src), "f")
		assert.NotNil(t, m, "ParseManifest(%q): want a manifest", src)
		if assert.Len(t, ps, 1, "ParseManifest(%q): want one problem", src) {
			assert.Contains(t, ps[0].Message, `unknown key "x"`, "ParseManifest(%q)", src)
		}
	}
}

func TestParseManifestMaxSizeAccepted(t *testing.T) {
	src := "version = 1\n# " + strings.Repeat("x", maxManifestSize-len("version = 1\n# ")-1) + "\n"
	require.Len(t, src, maxManifestSize, "test input")
	m, ps := ParseManifest([]byte(src), "f")
	assert.NotNil(t, m, "ParseManifest of a %d-byte file", len(src))
	assert.Empty(t, ps, "ParseManifest of a %d-byte file", len(src))
}

func TestManifestJSON(t *testing.T) {
	m, ps := ParseManifest(readManifestTestdata(t, "full.toml"), "skill.toml")
	require.Empty(t, ps, "problems")
	b, err := json.MarshalIndent(m, "", "  ")
	require.NoError(t, err)
	const want = `{
  "version": 1,
  "triggers": [
    "csv",
    "statistics"
  ],
  "capabilities": {
    "read": [
      "skill",
      "workspace"
    ],
    "write": [
      "workspace/out"
    ],
    "env": [
      "LANG"
    ],
    "net": [
      "api.example.com",
      "*.example.org:443"
    ],
    "tools": [
      "workspace_read"
    ],
    "mcp": [
      "github/*"
    ],
    "skills": [
      "pdf-extract"
    ],
    "memory": "64MiB",
    "timeout": "10s",
    "output": "1MiB"
  },
  "scripts": {
    "stats": {
      "name": "stats",
      "kind": "wasi",
      "description": "Summarise a CSV file",
      "module": "scripts/stats.wasm",
      "build": {
        "lang": "go",
        "dir": "src/stats"
      },
      "input_schema": "schemas/stats.input.json"
    }
  }
}`
	assert.Equal(t, want, string(b), "JSON")
}

func TestScriptNamesNil(t *testing.T) {
	var m *Manifest
	assert.Nil(t, m.ScriptNames(), "nil manifest ScriptNames()")
	assert.Empty(t, (&Manifest{}).ScriptNames(), "empty manifest ScriptNames()")
}

// TestLocateKeysMatchesParser checks the locator against the positions the
// real parser reports for value errors, on every test manifest.
func TestLocateKeysMatchesParser(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "manifest", "*.toml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "test manifests")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var raw map[string]any
		md, err := toml.Decode(string(data), &raw)
		require.NoError(t, err)
		kl, _ := tomlx.LocateKeys(data)
		for _, k := range md.Keys() {
			assert.NotZero(t, kl.Line(k), "%s: key %s not located", f, k)
		}
	}
}

func TestCheckSkillRelPath(t *testing.T) {
	tests := []struct {
		p    string
		dir  bool
		want string // "" = accepted; otherwise a part of the reason
	}{
		{"scripts/stats.wasm", false, ""},
		{"a", false, ""},
		{".hidden/x", false, ""},
		{"a..b/c", false, ""},
		{".", true, ""},
		{".", false, "names the skill folder itself"},
		{"", false, "is empty"},
		{"", true, "is empty"},
		{"/x", false, "is absolute"},
		{"C:/x", false, "is absolute"},
		{`C:\x`, false, "backslash"},
		{`a\b`, false, "backslash"},
		{"a\x00b", false, "control character"},
		{"..", false, "leads outside"},
		{"../a", false, "leads outside"},
		{"a/../b", false, "leads outside"},
		{"a/..", false, "leads outside"},
		{"./a", false, `write "a"`},
		{"a/./b", false, `write "a/b"`},
		{"a//b", false, `write "a/b"`},
		{"a/", true, `write "a"`},
	}
	for _, tt := range tests {
		got := checkSkillRelPath(tt.p, tt.dir)
		if tt.want == "" {
			assert.Empty(t, got, "checkSkillRelPath(%q, %v)", tt.p, tt.dir)
		} else {
			assert.Contains(t, got, tt.want, "checkSkillRelPath(%q, %v)", tt.p, tt.dir)
		}
	}
}

func ExampleParseManifest() {
	const src = `version = 1

[capabilities]
read = ["workspace/data"]
memory = "64MiB"

[scripts.stats]
module = "scripts/stats.wasm"

[scripts.convert]
plugin = "plugins/convert.wasm"
modle = "typo"
`
	m, problems := ParseManifest([]byte(src), "stats/skill.toml")
	for _, name := range m.ScriptNames() {
		s := m.Scripts[name]
		fmt.Printf("%s: kind %s, export %q\n", name, s.Kind, s.Export)
	}
	fmt.Println(m.Capabilities.Read, m.Capabilities.Memory)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// convert: kind extism, export "run"
	// stats: kind wasi, export ""
	// [workspace/data] 64MiB
	// stats/skill.toml:12: unknown key "scripts.convert.modle"; did you mean "module"?
}

func TestManifestDeterministic(t *testing.T) {
	m, ps := ParseManifest([]byte("[scripts.a]\nmodule = \"a.wasm\"\ndeterministic = true\n[scripts.b]\nmodule = \"b.wasm\"\n"), "skill.toml")
	require.Empty(t, ps, "problems")
	assert.True(t, m.Scripts["a"].Deterministic, "deterministic a")
	assert.False(t, m.Scripts["b"].Deterministic, "deterministic b")
	_, ps = ParseManifest([]byte("[scripts.a]\nmodule = \"a.wasm\"\ndeterministic = \"yes\"\n"), "skill.toml")
	if assert.Len(t, ps, 1, "problems") {
		assert.Equal(t, 3, ps[0].Line, "problem line")
		assert.Contains(t, ps[0].Message, "scripts.a.deterministic: expected true or false, found a string", "problem message")
	}
}
