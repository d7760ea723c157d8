package bench

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/skillrun/skillrun/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binomRatio is C(n−c, k)/C(n, k) computed exactly, to check passAtK's
// product form against the definition.
func binomRatio(n, c, k int) float64 {
	if n-c < k {
		return 0
	}
	a := new(big.Int).Binomial(int64(n-c), int64(k))
	b := new(big.Int).Binomial(int64(n), int64(k))
	f, _ := new(big.Rat).SetFrac(a, b).Float64()
	return f
}

func TestPassAtKEstimator(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				want := 1 - binomRatio(n, c, k)
				assert.InDelta(t, want, passAtK(n, c, k), 1e-12, "n=%d c=%d k=%d", n, c, k)
			}
		}
	}
}

func trials(spec map[string][]bool) []*TrialResult {
	var out []*TrialResult
	for id, runs := range spec {
		for i, ok := range runs {
			out = append(out, &TrialResult{TaskID: id, Attempt: i + 1, IsResolved: ok, FailureMode: FailureNone})
		}
	}
	return out
}

// TestPassAtK: the ks ADE-bench reports for the attempts there are, and
// the mean over tasks of the estimator.
func TestPassAtK(t *testing.T) {
	assert.Empty(t, PassAtK(trials(map[string][]bool{"a": {true}})), "one attempt: no pass@k")
	got := PassAtK(trials(map[string][]bool{"a": {true, false, false, false, false}, "b": {false, false, false, false, false}}))
	assert.Equal(t, []int{2, 4, 5}, keys(got))
	assert.InDelta(t, (2.0/5)/2, got[2], 1e-12) // a: 1 − C(4,2)/C(5,2) = 0.4; b: 0
	assert.InDelta(t, 0.5, got[5], 1e-12)
	ten := make([]bool, 10)
	ten[3] = true
	got = PassAtK(trials(map[string][]bool{"a": ten}))
	assert.Equal(t, []int{2, 4, 5, 8, 10}, keys(got))
	assert.InDelta(t, 1.0, got[10], 1e-12)
	// Only tasks with k attempts count; k stops at the fewest attempts.
	got = PassAtK(trials(map[string][]bool{"a": {true, true, true, true}, "b": {false, false}}))
	assert.Equal(t, []int{2}, keys(got))
}

func TestTotals(t *testing.T) {
	cost := 0.5
	list := []*TrialResult{
		{TaskID: "a", IsResolved: true, FailureMode: FailureNone, InputTokens: 10, OutputTokens: 2, RuntimeMS: 100, CostUSD: &cost},
		{TaskID: "b", FailureMode: FailureNone, RuntimeMS: 300},
		{TaskID: "c", FailureMode: FailureAgentTimeout, RuntimeMS: 500, CostUSD: &cost},
	}
	tot := Total(list)
	assert.Equal(t, 3, tot.NTrials)
	assert.Equal(t, 1, tot.NResolved)
	assert.Equal(t, 2, tot.NUnresolved)
	assert.Equal(t, 1, tot.NErrored)
	assert.InDelta(t, 1.0/3, tot.Accuracy, 1e-12)
	require.NotNil(t, tot.AccuracyNoErrors)
	assert.InDelta(t, 0.5, *tot.AccuracyNoErrors, 1e-12)
	assert.Equal(t, []string{"a"}, tot.ResolvedIDs)
	assert.Equal(t, []string{"b", "c"}, tot.UnresolvedIDs)
	assert.InDelta(t, 1.0, tot.CostUSD, 1e-12)
	assert.InDelta(t, 300, tot.MeanRuntimeMS, 1e-9)
	assert.Equal(t, int64(500), tot.MaxRuntimeMS)
	allErr := Total([]*TrialResult{{TaskID: "a", FailureMode: FailureSetupFailed}})
	assert.Nil(t, allErr.AccuracyNoErrors, "every trial errored: no accuracy without errors")
	empty := Total(nil)
	assert.Zero(t, empty.Accuracy)
	assert.False(t, math.IsNaN(empty.MeanRuntimeMS))
}

func TestFailureModeIsError(t *testing.T) {
	for _, m := range []FailureMode{FailureNone, FailureUnknown} {
		assert.False(t, m.IsError(), m)
	}
	for _, m := range []FailureMode{FailureSetupFailed, FailureAgentTimeout, FailureTestTimeout, FailureUnknownAgentError,
		FailureUnknownHarnessError, FailureParseError, FailureContextLengthExceeded, FailureQuotaExceeded} {
		assert.True(t, m.IsError(), m)
	}
}

func TestPrices(t *testing.T) {
	c := DefaultPrices.Cost("claude-sonnet-4-5-20250929", usageOf(1_000_000, 1_000_000))
	require.NotNil(t, c)
	assert.InDelta(t, 18.0, *c, 1e-9)
	c = DefaultPrices.Cost("claude-opus-4-5", usageOf(1_000_000, 0))
	require.NotNil(t, c)
	assert.InDelta(t, 5.0, *c, 1e-9, "the longest prefix wins")
	assert.Nil(t, DefaultPrices.Cost("mystery-model", usageOf(1, 1)))
	p, err := ParsePrices([]byte(`{"mystery-model": {"input": 1, "output": 2}}`), "p.json")
	require.NoError(t, err)
	c = p.Cost("mystery-model", usageOf(2_000_000, 1_000_000))
	require.NotNil(t, c)
	assert.InDelta(t, 4.0, *c, 1e-9)
	_, err = ParsePrices([]byte(`{"m": {"inptu": 1}}`), "p.json")
	require.ErrorContains(t, err, "p.json")
	_, err = ParsePrices([]byte(`{"m": {"input": -1}}`), "p.json")
	require.ErrorContains(t, err, "negative")
}

func keys(m map[int]float64) []int {
	var out []int
	for k := 1; k <= 64; k++ {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	if len(out) != len(m) {
		panic(fmt.Sprint("unexpected keys ", m))
	}
	return out
}

func usageOf(in, out int64) agent.Usage { return agent.Usage{InputTokens: in, OutputTokens: out} }
