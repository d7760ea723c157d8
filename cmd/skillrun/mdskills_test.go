package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPMarkdownSkills: `skillrun mcp` serves the Markdown skills of
// examples/achilles as skill_<name>, each run by its kind offline (the
// folder's models.json maps their models to scripted plans): one model
// call, generated code in the sandbox, steps over the workspace tools,
// and a chain of skills.
func TestMCPMarkdownSkills(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "sales.csv"), []byte("region,revenue\nnorth,10.5\nsouth,4.5\n"), 0o644))
	policy := filepath.Join(t.TempDir(), "policy.toml")
	require.NoError(t, os.WriteFile(policy, []byte("[default]\nread = [\"workspace\"]\n"), 0o644))
	args := []string{"mcp", "../../examples/achilles", "--workspace", ws, "--policy", policy}

	res, names := serveMCPCall(t, args, "skill_summarize", map[string]any{"text": "Sales by region.", "sentences": 1})
	for _, n := range []string{"skill_summarize", "skill_csv-total", "skill_tutor", "skill_region-report", "skill_brief"} {
		assert.Contains(t, names, n)
	}
	require.NotNil(t, res)
	assert.False(t, res.IsError, textOf(res))
	assert.Contains(t, textOf(res), "the west led")

	res, _ = serveMCPCall(t, args, "skill_csv-total", map[string]any{"csv": "region,revenue\nnorth,10.5\nsouth,4.5\n", "column": "revenue"})
	require.NotNil(t, res)
	assert.False(t, res.IsError, textOf(res))
	assert.Equal(t, "15", textOf(res))

	res, _ = serveMCPCall(t, args, "skill_region-report", map[string]any{"file": "sales.csv"})
	require.NotNil(t, res)
	assert.False(t, res.IsError, textOf(res))
	assert.Contains(t, textOf(res), "north,10.5")

	res, _ = serveMCPCall(t, args, "skill_brief", map[string]any{"file": "sales.csv"})
	require.NotNil(t, res)
	assert.False(t, res.IsError, textOf(res))
	assert.Contains(t, textOf(res), "the west led")

	// Input is checked against the parameters before anything runs.
	res, _ = serveMCPCall(t, args, "skill_summarize", map[string]any{"sentences": 1})
	require.NotNil(t, res)
	assert.True(t, res.IsError)
	assert.Contains(t, textOf(res), "missing property 'text'")
}
