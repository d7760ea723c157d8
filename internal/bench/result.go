package bench

import (
	"math"
	"slices"
	"sort"
	"strconv"
)

// SchemaVersion is the version of the results files (result.json,
// results.json), checked by schema/results.schema.json. A reader refuses
// a version it does not know.
const SchemaVersion = "skillrun.bench/1"

// A FailureMode says how a trial ended. The values are ADE-bench's.
type FailureMode string

// Failure modes, ADE-bench's names.
const (
	FailureNone                  FailureMode = "none"
	FailureUnknown               FailureMode = "unknown"
	FailureSetupFailed           FailureMode = "setup_failed"
	FailureAgentTimeout          FailureMode = "agent_timeout"
	FailureTestTimeout           FailureMode = "test_timeout"
	FailureUnknownAgentError     FailureMode = "unknown_agent_error"
	FailureUnknownHarnessError   FailureMode = "unknown_harness_error"
	FailureParseError            FailureMode = "parse_error"
	FailureContextLengthExceeded FailureMode = "context_length_exceeded"
	FailureQuotaExceeded         FailureMode = "quota_exceeded"
)

// IsError reports whether m is an error of the harness, the agent's
// infrastructure or the model's service rather than the agent failing
// the task: such trials are reported apart, and accuracy is given with
// and without them. The set is ADE-bench's.
func (m FailureMode) IsError() bool {
	switch m {
	case FailureSetupFailed, FailureAgentTimeout, FailureTestTimeout, FailureUnknownAgentError,
		FailureUnknownHarnessError, FailureParseError, FailureContextLengthExceeded, FailureQuotaExceeded:
		return true
	}
	return false
}

// A TrialResult is one trial: one task, one attempt, one plugin set.
// Its fields are ADE-bench's TrialResults, and then skillrun's own.
type TrialResult struct {
	Schema      string      `json:"schema"`
	TrialName   string      `json:"trial_name"`
	TaskID      string      `json:"task_id"`
	TaskPrompt  string      `json:"task_prompt"`
	Attempt     int         `json:"attempt"`
	IsResolved  bool        `json:"is_resolved"`
	FailureMode FailureMode `json:"failure_mode"`
	// Reward is the verifier's reward (reward.txt or reward.json's
	// "reward"), or 1 / 0 from its exit status when it wrote none.
	Reward       float64 `json:"reward"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CacheTokens  int64   `json:"cache_tokens"`
	NumTurns     int     `json:"num_turns"`
	RuntimeMS    int64   `json:"runtime_ms"`
	// CostUSD is from the price table (nil: the model has no price).
	CostUSD             *float64 `json:"cost_usd"`
	Agent               string   `json:"agent"`
	ModelName           string   `json:"model_name"`
	PluginSetName       string   `json:"plugin_set_name"`
	PluginSetSkills     []string `json:"plugin_set_skills"`
	PluginSetMCPServers []string `json:"plugin_set_mcp_servers"`
	// ToolsUsed and SkillsUsed are what the agent called and activated,
	// sorted, each once.
	ToolsUsed  []string `json:"tools_used"`
	SkillsUsed []string `json:"skills_used"`
	// Transcript is the trial's transcript, relative to the set's folder.
	Transcript string `json:"transcript,omitempty"`
	// Error says what went wrong for a failure mode other than none.
	Error string `json:"error,omitempty"`
	// Started is when the trial started (RFC 3339).
	Started string `json:"started"`
}

// Totals sum a set's trials.
type Totals struct {
	NTrials     int `json:"n_trials"`
	NResolved   int `json:"n_resolved"`
	NUnresolved int `json:"n_unresolved"`
	// NErrored counts the unresolved trials whose failure mode is an
	// error (FailureMode.IsError).
	NErrored int `json:"n_errored"`
	// Accuracy is resolved / trials; AccuracyNoErrors leaves out the
	// errored trials (nil when every trial errored).
	Accuracy         float64            `json:"accuracy"`
	AccuracyNoErrors *float64           `json:"accuracy_excluding_errors"`
	PassAtK          map[string]float64 `json:"pass_at_k"`
	ResolvedIDs      []string           `json:"resolved_ids"`
	UnresolvedIDs    []string           `json:"unresolved_ids"`
	InputTokens      int64              `json:"input_tokens"`
	OutputTokens     int64              `json:"output_tokens"`
	CacheTokens      int64              `json:"cache_tokens"`
	CostUSD          float64            `json:"cost_usd"`
	MeanRuntimeMS    float64            `json:"mean_runtime_ms"`
	MaxRuntimeMS     int64              `json:"max_runtime_ms"`
}

// Total sums trials.
func Total(trials []*TrialResult) Totals {
	t := Totals{NTrials: len(trials), PassAtK: map[string]float64{}, ResolvedIDs: []string{}, UnresolvedIDs: []string{}}
	var runtime int64
	for _, r := range trials {
		if r.IsResolved {
			t.NResolved++
			t.ResolvedIDs = append(t.ResolvedIDs, r.TaskID)
		} else {
			t.NUnresolved++
			t.UnresolvedIDs = append(t.UnresolvedIDs, r.TaskID)
			if r.FailureMode.IsError() {
				t.NErrored++
			}
		}
		t.InputTokens += r.InputTokens
		t.OutputTokens += r.OutputTokens
		t.CacheTokens += r.CacheTokens
		if r.CostUSD != nil {
			t.CostUSD += *r.CostUSD
		}
		runtime += r.RuntimeMS
		t.MaxRuntimeMS = max(t.MaxRuntimeMS, r.RuntimeMS)
	}
	slices.Sort(t.ResolvedIDs)
	slices.Sort(t.UnresolvedIDs)
	if len(trials) > 0 {
		t.Accuracy = float64(t.NResolved) / float64(len(trials))
		t.MeanRuntimeMS = float64(runtime) / float64(len(trials))
	}
	if n := len(trials) - t.NErrored; n > 0 {
		a := float64(t.NResolved) / float64(n)
		t.AccuracyNoErrors = &a
	}
	for k, v := range PassAtK(trials) {
		t.PassAtK[strconv.Itoa(k)] = v
	}
	return t
}

// PassAtK is pass@k for each k the attempts allow, as ADE-bench reports
// it: k = 2, 4, 8, ... up to the fewest attempts any task had, and 5 and
// 10 when there are that many; for each k, the mean over tasks with at
// least k attempts of the unbiased estimator 1 − C(n−c, k) / C(n, k)
// (n attempts, c resolved).
func PassAtK(trials []*TrialResult) map[int]float64 {
	type count struct{ n, c int }
	per := map[string]*count{}
	for _, r := range trials {
		c := per[r.TaskID]
		if c == nil {
			c = &count{}
			per[r.TaskID] = c
		}
		c.n++
		if r.IsResolved {
			c.c++
		}
	}
	if len(per) == 0 {
		return map[int]float64{}
	}
	minN := math.MaxInt
	for _, c := range per {
		minN = min(minN, c.n)
	}
	var ks []int
	for k := 2; k <= minN; k *= 2 {
		ks = append(ks, k)
	}
	if minN >= 5 {
		ks = append(ks, 5)
	}
	if minN >= 10 {
		ks = append(ks, 10)
	}
	ids := make([]string, 0, len(per))
	for id := range per {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order of summation
	out := map[int]float64{}
	for _, k := range ks {
		var sum float64
		for _, id := range ids {
			sum += passAtK(per[id].n, per[id].c, k)
		}
		out[k] = sum / float64(len(ids))
	}
	return out
}

// passAtK is 1 − C(n−c, k)/C(n, k), computed as a product so that no
// binomial overflows: C(n−c, k)/C(n, k) = Π_{i=n−c+1..n} (1 − k/i).
func passAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}
