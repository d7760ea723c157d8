package yamlmod

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
)

func requirePython(t *testing.T) {
	t.Helper()
	if _, err := scripts.InstalledInterpreters("")(context.Background(), "python"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", err)
		}
		t.Skipf("%v; run `make python`", err)
	}
}

// gitTool is a tool in the ADR's layout: tool.yaml and one wrapper.py
// whose class (a BaseTool, imported from the package above it as the ADR
// has it) implements every action with invoke(action, params).
const gitToolYAML = `tool:
  id: notes
  actions:
    - name: add
      description: Appends a note.
      parameters:
        - {name: text, type: string, required: true}
    - name: count
      description: Counts the words of a text.
      parameters:
        - {name: text, type: string, required: true}
    - name: shout
      description: Upper-cases a text, asynchronously.
      parameters:
        - {name: text, type: string, default: "hi"}
    - name: own
      description: Has a script of its own, which wins over the wrapper.
`

const gitWrapper = `from ..base import BaseTool
import asyncio

class NotesTool(BaseTool):
    def invoke(self, action, params):
        if action == "add":
            with open("/workspace/notes.txt", "a") as f:
                f.write(params["text"] + "\n")
            return {"added": params["text"]}
        if action == "count":
            return {"words": len(params["text"].split())}
        if action == "shout":
            return self._shout(params["text"])
        raise ValueError("unknown action " + action)

    async def _shout(self, text):
        await asyncio.sleep(0)
        return text.upper()
`

func TestWrapperTool(t *testing.T) {
	requirePython(t)
	dir := writeModules(t, map[string]string{
		"tools/notes/tool.yaml":  gitToolYAML,
		"tools/notes/wrapper.py": gitWrapper,
		"tools/notes/own.sh":     `echo own-script "$1"`,
	})
	ws := t.TempDir()
	ws0 := []capabilities.Path{{Root: capabilities.RootWorkspace}}
	grant := capabilities.Set{Read: ws0, Write: ws0}
	set, reg := registry(t, dir, grant, &scripts.ToolOptions{Services: host.Services{Workspace: ws}})
	tool := set.Tool("notes")
	require.NotNil(t, tool)
	for _, a := range tool.Actions {
		want := WrapperFile
		if a.Name == "own" {
			want = "own.sh"
		}
		assert.Equal(t, want, a.Script, a.Name)
	}

	res := call(t, reg, "notes__count", `{"text": "one two three"}`)
	require.False(t, res.IsError, res.Content)
	assert.JSONEq(t, `{"words": 3}`, string(res.Structured))

	res = call(t, reg, "notes__add", `{"text": "first"}`)
	require.False(t, res.IsError, res.Content)
	b, err := os.ReadFile(ws + "/notes.txt")
	require.NoError(t, err)
	assert.Equal(t, "first\n", string(b))

	res = call(t, reg, "notes__shout", `{}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "HI\n", res.Content, "a coroutine's result, with the parameter's default")

	res = call(t, reg, "notes__own", `{}`)
	require.False(t, res.IsError, res.Content)
	assert.Equal(t, "own-script own\n", res.Content)
}

// TestWrapperBad: a wrapper that raises, one without a class to call and
// one that does not import are results with IsError saying why; the
// host goes on.
func TestWrapperBad(t *testing.T) {
	requirePython(t)
	yaml := `tool:
  id: %s
  actions:
    - {name: go, description: Goes.}
`
	dir := writeModules(t, map[string]string{
		"tools/raises/tool.yaml":   fmt.Sprintf(yaml, "raises"),
		"tools/raises/wrapper.py":  "class T:\n    def invoke(self, action, params):\n        raise RuntimeError('broken on purpose')\n",
		"tools/noclass/tool.yaml":  fmt.Sprintf(yaml, "noclass"),
		"tools/noclass/wrapper.py": "X = 1\n",
		"tools/syntax/tool.yaml":   fmt.Sprintf(yaml, "syntax"),
		"tools/syntax/wrapper.py":  "def (:\n",
	})
	_, reg := registry(t, dir, capabilities.Set{}, nil)
	for name, want := range map[string]string{
		"raises__go":  "broken on purpose",
		"noclass__go": "wants one class with an invoke(action, params) method",
		"syntax__go":  "SyntaxError",
	} {
		res := call(t, reg, name, `{}`)
		assert.True(t, res.IsError, name)
		assert.Contains(t, res.Content, want, name)
	}
}
