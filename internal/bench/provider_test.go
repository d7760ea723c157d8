package bench

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// anthropicTrial runs row-count once under no-plugins with a model
// behind a fake Anthropic API that answers replies.
func anthropicTrial(t *testing.T, replies ...llmfake.Reply) *TrialResult {
	t.Helper()
	srv := llmfake.NewAnthropic(replies...)
	t.Cleanup(srv.Close)
	p, err := providers.NewAnthropic(providers.Options{APIKey: "test", BaseURL: srv.URL, Model: "claude-sonnet-4-5"})
	require.NoError(t, err)
	cfg := scriptedConfig(t, fewTasks(t)[:1], t.TempDir(), "no-plugins")
	cfg.ProviderName, cfg.Model = "anthropic", "claude-sonnet-4-5"
	cfg.Provider = func(*Task) (agent.Provider, error) { return p, nil }
	cfg.Retry = agent.RetryPolicy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return sum.Sets[0].Trials[0]
}

// TestTrialAnthropic: a trial with a model behind the real wire format
// counts its tokens and prices them from the table; the provider's
// failures become ADE-bench's failure modes.
func TestTrialAnthropic(t *testing.T) {
	r := anthropicTrial(t,
		llmfake.Reply{ToolCalls: []llmfake.ToolCall{{ID: "t1", Name: "shell",
			Input: `{"command": "tail -n +2 sales.csv | wc -l | tr -d ' ' > answer.txt"}`}},
			Usage: llmfake.Usage{Input: 1000, Output: 100, CacheRead: 500}},
		llmfake.Reply{Text: "Done.", Usage: llmfake.Usage{Input: 1200, Output: 20}})
	assert.True(t, r.IsResolved)
	assert.Equal(t, int64(2200), r.InputTokens)
	assert.Equal(t, int64(120), r.OutputTokens)
	assert.Equal(t, int64(500), r.CacheTokens)
	assert.Equal(t, 2, r.NumTurns)
	assert.Equal(t, "claude-sonnet-4-5", r.ModelName)
	require.NotNil(t, r.CostUSD)
	assert.InDelta(t, (2200*3+120*15+500*0.3)/1e6, *r.CostUSD, 1e-12)

	quota := anthropicTrial(t,
		llmfake.Reply{Status: 429, Text: "rate limited", Header: map[string][]string{"retry-after-ms": {"1"}}},
		llmfake.Reply{Status: 429, Text: "rate limited", Header: map[string][]string{"retry-after-ms": {"1"}}})
	assert.Equal(t, FailureQuotaExceeded, quota.FailureMode)
	assert.False(t, quota.IsResolved)

	long := anthropicTrial(t, llmfake.Reply{Status: 400, Text: "prompt is too long: 250000 tokens > 200000 maximum"})
	assert.Equal(t, FailureContextLengthExceeded, long.FailureMode)

	auth := anthropicTrial(t, llmfake.Reply{Status: 401, Text: "invalid x-api-key"})
	assert.Equal(t, FailureUnknownAgentError, auth.FailureMode)
	assert.Contains(t, auth.Error, "invalid x-api-key")
}
