package yamlmod

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
)

// The tests share one Runner. Its interpreters are skillrun's: the
// shell is built from this tree on first use (it needs only the go
// command); CPython must be installed (`make python`), or the Python
// test skips, unless REQUIRE_TOOLCHAINS=1.
var sharedRunner = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.BuildingInterpreters("", nil)})
})

func runner(t *testing.T) *scripts.Runner {
	t.Helper()
	r, err := sharedRunner()
	require.NoError(t, err)
	return r
}

// writeModules writes files (slash paths to contents) into a new folder
// and returns it.
func writeModules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

// registry loads dir and serves its tools from a registry, under
// granted, as `skillrun mcp` would.
func registry(t *testing.T, dir string, granted capabilities.Set, o *scripts.ToolOptions) (*Set, *host.Registry) {
	t.Helper()
	set, problems := Load(dir)
	require.Empty(t, problems.Errors())
	reg := host.NewRegistry()
	for _, tool := range set.Tools {
		for _, ht := range tool.HostTools(runner(t), granted, o) {
			require.NoError(t, reg.Add(ht))
		}
	}
	return set, reg
}

func call(t *testing.T, reg *host.Registry, name, input string) *host.ToolResult {
	t.Helper()
	res, err := reg.Call(context.Background(), name, json.RawMessage(input))
	require.NoError(t, err)
	return res
}

// TestActionSchema: an action's parameters become its input schema;
// its description tells what it returns and the tool's constraints.
func TestActionSchema(t *testing.T) {
	set, problems := load(example, fakeInterpreters)
	require.Empty(t, problems)
	tools := set.Tool("text-tools").HostTools(nil, capabilities.Set{}, nil)
	require.Len(t, tools, 2)
	def := tools[1].Definition()
	assert.Equal(t, "text-tools__sort_lines", def.Name)
	assert.Equal(t, Source, def.Source)
	assert.Equal(t, "text-tools", def.Plugin)
	assert.JSONEq(t, `{
		"type": "object",
		"properties": {
			"text": {"type": "string", "description": "the text whose lines to sort"},
			"reverse": {"type": "boolean", "description": "sort from Z to A", "default": false}
		},
		"required": ["text"],
		"additionalProperties": false
	}`, string(def.InputSchema))
	assert.Equal(t, "Sort the lines of a text.\n\nReturns: the lines, sorted, one per line\n\nConstraints:\n"+
		"- Works on plain text; the input is at most a few MiB.\n- Reads nothing but its input; no files, no network.", def.Description)
	// The registry accepts the names and schemas.
	reg := host.NewRegistry()
	for _, tool := range tools {
		require.NoError(t, reg.Add(tool))
	}
}

// TestActionRunShell runs the example's shell actions in the sandbox,
// with nothing granted: the input on stdin, the result on stdout, the
// defaults filled in, and the input checked against the schema first.
func TestActionRunShell(t *testing.T) {
	_, reg := registry(t, example, capabilities.Set{}, nil)

	res := call(t, reg, "text-tools__count_words", `{"text": "one two  three\nfour"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "{\"words\": 4}\n", res.Content)
	assert.JSONEq(t, `{"words": 4}`, string(res.Structured))

	res = call(t, reg, "text-tools__sort_lines", `{"text": "pear\napple\nfig"}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "apple\nfig\npear\n", res.Content)
	assert.Nil(t, res.Structured, "text is not structured")

	res = call(t, reg, "text-tools__sort_lines", `{"text": "pear\napple\nfig", "reverse": true}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "pear\nfig\napple\n", res.Content)

	res = call(t, reg, "text-tools__sort_lines", `{"text": "x", "order": "up"}`)
	require.True(t, res.IsError)
	assert.Contains(t, res.Content, "invalid input")
}

// TestActionArgument: a script learns its action from its argument and
// gets the defaults of the parameters the caller left out.
func TestActionArgument(t *testing.T) {
	dir := writeModules(t, map[string]string{
		"tools/echo/tool.yaml": `tool:
  id: echo
  actions:
    - name: show
      description: Shows its argument and input.
      parameters:
        - {name: n, type: integer, default: 3}
        - {name: tags, type: array, default: [a, b]}
`,
		"tools/echo/scripts/show.sh": `echo "action=$1 argc=$#"; cat`,
	})
	_, reg := registry(t, dir, capabilities.Set{}, nil)
	res := call(t, reg, "echo__show", `{"n": 5}`)
	require.False(t, res.IsError, res.Content)
	first, rest, _ := strings.Cut(res.Content, "\n")
	assert.Equal(t, "action=show argc=1", first)
	assert.JSONEq(t, `{"n": 5, "tags": ["a", "b"]}`, rest)
}

// TestActionRunPython runs a Python action.
func TestActionRunPython(t *testing.T) {
	if _, err := scripts.InstalledInterpreters("")(context.Background(), "python"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", err)
		}
		t.Skipf("%v; run `make python`", err)
	}
	dir := writeModules(t, map[string]string{
		"tools/calc/tool.yaml": `tool:
  id: calc
  requires: [python3]
  actions:
    - name: double
      description: Doubles n.
      parameters:
        - {name: n, type: number, required: true}
`,
		"tools/calc/double.py": `import json, sys
d = json.load(sys.stdin)
print(json.dumps({"action": sys.argv[1], "result": d["n"] * 2}))
`,
	})
	set, reg := registry(t, dir, capabilities.Set{}, nil)
	assert.True(t, set.Tool("calc").Requires()[0].Met)
	res := call(t, reg, "calc__double", `{"n": 21}`)
	require.False(t, res.IsError, res.Content)
	assert.JSONEq(t, `{"action": "double", "result": 42}`, string(res.Structured))
}

// TestActionContained: an action's script sees its own folder read-only
// and nothing else of the host; the workspace only as granted; and a
// script that loops forever is stopped at its timeout with a clear
// error, the host unharmed.
func TestActionContained(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs an action's script until its timeout (2 s); the full suite runs it")
	}
	dir := writeModules(t, map[string]string{
		"tools/evil/tool.yaml": `tool:
  id: evil
  actions:
    - {name: snoop, description: Reads what it should not.}
    - {name: deface, description: Writes into its own folder.}
    - {name: spin, description: Never ends.}
    - {name: secret, description: Reads the workspace.}
`,
		"tools/evil/snoop.sh": `cat /etc/passwd 2>/dev/null || echo no-etc
cat /skill/../../../../etc/passwd 2>/dev/null || echo no-dotdot
cat ../tool.yaml 2>/dev/null || echo no-sibling
ls /
`,
		"tools/evil/deface.sh":  `echo pwned > /skill/snoop.sh`,
		"tools/evil/spin.sh":    `while :; do :; done`,
		"tools/evil/secret.sh":  `cat /workspace/secret.txt`,
		"tools/other/tool.yaml": "tool:\n  id: other\n  actions:\n    - {name: x, description: x}\n",
		"tools/other/x.sh":      "echo x\n",
	})
	ws := writeModules(t, map[string]string{"secret.txt": "s3cret\n"})
	svc := &scripts.ToolOptions{Services: host.Services{Workspace: ws}}
	_, reg := registry(t, dir, capabilities.Set{Timeout: capabilities.Duration(2 * time.Second)}, svc)

	res := call(t, reg, "evil__snoop", `{}`)
	require.False(t, res.IsError, res.Content)
	assert.NotContains(t, res.Content, "root:")
	assert.Contains(t, res.Content, "no-etc\nno-dotdot\n")
	assert.NotContains(t, res.Content, "other", "the sibling tool's folder is not there")
	assert.NotContains(t, res.Content, "workspace", "nothing granted: no workspace")

	res = call(t, reg, "evil__deface", `{}`)
	assert.True(t, res.IsError, res.Content)
	b, err := os.ReadFile(filepath.Join(dir, "tools", "evil", "snoop.sh"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "pwned")

	res = call(t, reg, "evil__secret", `{}`)
	assert.True(t, res.IsError, "deny by default: %s", res.Content)
	assert.NotContains(t, res.Content, "s3cret")

	start := time.Now()
	res = call(t, reg, "evil__spin", `{}`)
	require.True(t, res.IsError)
	assert.Contains(t, res.Content, "evil:spin failed")
	assert.Contains(t, res.Content, "timed out")
	assert.Less(t, time.Since(start), 15*time.Second)

	// Granting the workspace read access, the same script reads it.
	read := capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
	_, reg = registry(t, dir, read, svc)
	res = call(t, reg, "evil__secret", `{}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "s3cret\n", res.Content)
}

// TestActionGrantHook: a session's Grant hook sees what the action's
// script declares and may refuse the call without running it.
func TestActionGrantHook(t *testing.T) {
	var declared capabilities.Set
	o := &scripts.ToolOptions{Grant: func(_ context.Context, d capabilities.Set) (capabilities.Set, *host.ToolResult, error) {
		declared = d
		return capabilities.Set{}, host.ErrorResult("refused by the operator"), nil
	}}
	_, reg := registry(t, example, capabilities.Set{}, o)
	res := call(t, reg, "text-tools__count_words", `{"text": "a"}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "refused by the operator", res.Content)
	assert.Equal(t, "read=skill,workspace, write=workspace", capabilities.Describe(declared))
}
