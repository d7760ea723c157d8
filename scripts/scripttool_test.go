package scripts

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modeSchema = `{"type":"object","properties":{"mode":{"type":"string"}},"required":["mode"],"additionalProperties":false}`

// TestScriptTool: a skill script as a registry tool. The registry checks
// the input against the script's schema before the script runs; the
// result is the script's output, or an error result when it fails.
func TestScriptTool(t *testing.T) {
	r := sharedRunner(t)
	s := writeSkill(t, "me", `version = 1
[scripts.hostcall]
description = "Call every host function"
module = "scripts/hostcall.wasm"
input_schema = "schemas/in.json"
[scripts.echo]
module = "scripts/hostile.wasm"
args = ["echo"]
`, map[string][]byte{
		"scripts/hostcall.wasm": testkit.Wasm(t, "hostcall"),
		"scripts/hostile.wasm":  testkit.Wasm(t, "hostile"),
		"schemas/in.json":       []byte(modeSchema),
	})
	reg := host.NewRegistry()
	tool := ScriptTool(r, s, "hostcall", capabilities.Set{}, nil)
	require.NoError(t, reg.Add(tool))
	require.NoError(t, reg.Add(ScriptTool(r, s, "echo", capabilities.Set{}, nil)))

	def := tool.Definition()
	assert.Equal(t, "me__hostcall", def.Name)
	assert.Equal(t, "Call every host function", def.Description)
	assert.JSONEq(t, modeSchema, string(def.InputSchema))
	assert.Equal(t, host.SourceSkill, def.Source)
	assert.Equal(t, "me", def.Plugin)
	echoDef, _ := reg.Lookup("me__echo")
	assert.Equal(t, "The me skill, for tests.", echoDef.Definition().Description)
	assert.JSONEq(t, string(commandLineSchema), string(echoDef.Definition().InputSchema), "no input_schema: a command-line tool")

	ctx := context.Background()
	res, err := reg.Call(ctx, "me__hostcall", json.RawMessage(`{"mode":"all"}`))
	require.NoError(t, err)
	assert.Equal(t, &host.ToolResult{Content: "hello from the guest"}, res)

	// Bad input never reaches the script.
	res, err = reg.Call(ctx, "me__hostcall", json.RawMessage(`{"mode":5}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "tool me__hostcall: invalid input: at /mode:")

	// A failing script is an error result with what it said.
	res, err = reg.Call(ctx, "me__hostcall", json.RawMessage(`{"mode":"nope"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "me:hostcall exited with status 1")
	assert.Contains(t, res.Content, "unknown mode nope")

	// The input is also stdin; with no output, stdout is the content.
	res, err = reg.Call(ctx, "me__echo", json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, &host.ToolResult{Content: `{"a":1}`}, res)

	// A command-line tool: "args" follow the manifest's args, "stdin" is
	// the standard input.
	res, err = reg.Call(ctx, "me__echo", json.RawMessage(`{"args":["x"],"stdin":"from stdin"}`))
	require.NoError(t, err)
	assert.Equal(t, &host.ToolResult{Content: "arg: \"x\"\nfrom stdin"}, res)
	res, err = reg.Call(ctx, "me__echo", json.RawMessage(`{"args":"x"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError, "args must be a list of strings")
	assert.Contains(t, res.Content, "/args")

	// A cancelled call is a host failure.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = reg.Call(cctx, "me__hostcall", json.RawMessage(`{"mode":"all"}`))
	assert.Error(t, err)
}

// TestScriptToolSandboxError: a sandbox failure (here a module that is
// not there) is an error result naming it, not a host error.
func TestScriptToolSandboxError(t *testing.T) {
	r := sharedRunner(t)
	s := writeSkill(t, "gone", "version = 1\n[scripts.x]\nmodule = \"scripts/x.wasm\"\ninput_schema = \"schemas/missing.json\"\n",
		map[string][]byte{"scripts/x.wasm": []byte("not wasm")})
	tool := ScriptTool(r, s, "x", capabilities.Set{}, nil)
	res, err := tool.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "input schema cannot be read")

	s = writeSkill(t, "bad", "version = 1\n[scripts.x]\nmodule = \"scripts/x.wasm\"\n",
		map[string][]byte{"scripts/x.wasm": []byte("not wasm")})
	res, err = ScriptTool(r, s, "x", capabilities.Set{}, nil).Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "bad:x failed:")
}

// TestScriptToolGrantHook: ToolOptions.Grant sees what the script
// declares and decides each call: a refusal is returned without running,
// a grant is what the run gets.
func TestScriptToolGrantHook(t *testing.T) {
	r := sharedRunner(t)
	s := writeSkill(t, "hook", "version = 1\n[capabilities]\nenv = [\"HOOK_VAR\"]\n[scripts.env]\nmodule = \"scripts/hostile.wasm\"\nargs = [\"env\"]\n",
		map[string][]byte{"scripts/hostile.wasm": testkit.Wasm(t, "hostile")})
	t.Setenv("HOOK_VAR", "visible")
	var seen []capabilities.Set
	refuse := true
	tool := ScriptTool(r, s, "env", capabilities.Set{}, &ToolOptions{
		Grant: func(_ context.Context, declared capabilities.Set) (capabilities.Set, *host.ToolResult, error) {
			seen = append(seen, declared)
			if refuse {
				return capabilities.Set{}, host.ErrorResult("refused by the hook"), nil
			}
			return capabilities.Set{Env: []string{"HOOK_VAR"}}, nil, nil
		}})
	assert.True(t, tool.Definition().Parallel)
	res, err := tool.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, host.ErrorResult("refused by the hook"), res)
	refuse = false
	res, err = tool.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.False(t, res.IsError, res.Content)
	assert.Contains(t, res.Content, "HOOK_VAR=visible")
	require.Len(t, seen, 2)
	assert.Equal(t, []string{"HOOK_VAR"}, seen[0].Env)
}
