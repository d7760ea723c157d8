package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
)

// fakeServerEnv, set to "1", makes the test binary serve a fake MCP
// server (TestFakeMCPServer), started by a plugin set's mcp_servers.
const fakeServerEnv = "SKILLRUN_BENCH_FAKE_MCP"

// TestFakeMCPServer is not a test: a trial starts it as its MCP server.
func TestFakeMCPServer(t *testing.T) {
	if os.Getenv(fakeServerEnv) != "1" {
		t.Skip("the fake MCP server; started as a subprocess by TestTrialMCPServers")
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "facts", Version: "v1"}, nil)
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "answer", Description: "The answer."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "42"}}}, nil, nil
	})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
	os.Exit(0)
}

// TestTrialMCPServers: a set's MCP servers start for each trial and their
// tools are callable where allowed_tools allows them; a set that has the
// server but not the tool in allowed_tools cannot call it; a server that
// cannot start leaves the trial to go on without it.
func TestTrialMCPServers(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "sets.yaml")
	server := fmt.Sprintf(`
      facts:
        command: %q
        args: ["-test.run=^TestFakeMCPServer$"]
        env: {%s: "1", GORACE: "atexit_sleep_ms=0"}`, exe, fakeServerEnv)
	require.NoError(t, os.WriteFile(file, []byte(`sets:
  - name: with-mcp
    mcp_servers:`+server+`
    allowed_tools: [Bash, "mcp__facts__*"]
  - name: not-allowed
    mcp_servers:`+server+`
    allowed_tools: [Bash]
  - name: broken
    mcp_servers:
      facts:
        command: /nonexistent/mcp-server
    allowed_tools: [Bash, "mcp__facts__*"]
`), 0o644))
	ps, err := LoadPluginSets(file)
	require.NoError(t, err)
	task, err := LoadTask(filepath.Join(exampleTasks, "row-count"))
	require.NoError(t, err)
	plan, err := agent.ParsePlan([]byte(`
[[turn]]
[[turn.call]]
tool = "mcp__facts__answer"
[[turn.call]]
tool = "shell"
input = { command = "tail -n +2 sales.csv | wc -l | tr -d ' ' > answer.txt" }
[[turn]]
text = "done"
`), "plan.toml")
	require.NoError(t, err)
	cfg := &Config{Tasks: []*Task{task}, Sets: ps.Sets, SetsFile: file, Agent: "general", ProviderName: "scripted",
		Model: "scripted", Provider: func(*Task) (agent.Provider, error) { return agent.NewScripted(plan), nil },
		Out: t.TempDir(), RunID: "r", Runner: testRunner(t), Prices: DefaultPrices}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Sets, 3)
	with, notAllowed, broken := sum.Sets[0].Trials[0], sum.Sets[1].Trials[0], sum.Sets[2].Trials[0]
	assert.Equal(t, []string{"mcp__facts__answer", "shell"}, with.ToolsUsed)
	assert.Equal(t, []string{"facts"}, with.PluginSetMCPServers)
	assert.Equal(t, []string{"shell"}, notAllowed.ToolsUsed, "the server ran, but the set does not allow its tool")
	assert.Equal(t, []string{"shell"}, broken.ToolsUsed)
	for _, r := range []*TrialResult{with, notAllowed, broken} {
		assert.True(t, r.IsResolved, r.PluginSetName)
		assert.Equal(t, FailureNone, r.FailureMode, r.PluginSetName)
	}
	transcript, err := os.ReadFile(filepath.Join(sum.Dirs[2], broken.Transcript))
	require.NoError(t, err)
	assert.Contains(t, string(transcript), "tool_skipped", "the broken server is in the transcript")
}
