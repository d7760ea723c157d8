package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// OracleAgent is the agent that runs a task's solution/solve.sh instead
// of a model: every task must pass under it, which validates the task.
const OracleAgent = "oracle"

// An arm is one plugin set as a run uses it: its skills loaded, its tool
// filter made, its results folder.
type arm struct {
	set     *PluginSet
	catalog *toolset.Catalog // what the set's entries hold
	skills  []*skills.Skill  // catalog's skills
	grants  map[string]capabilities.Set
	// natives are the skills run under the native tier (Config.Native).
	natives map[*skills.Skill]*scripts.NativeTier
	allow   func(host.ToolDef) bool
	dir     string // the set's results folder
}

// A trial is one cell of the matrix.
type trial struct {
	arm     *arm
	task    *Task
	attempt int
}

func (t trial) name() string {
	return fmt.Sprintf("%s.%d-of-set.%s", t.task.ID, t.attempt, t.arm.set.Name)
}

// rel is the trial's folder relative to its set's folder.
func (t trial) rel() string { return filepath.Join(t.task.ID, fmt.Sprint(t.attempt)) }

// Files of a trial's folder.
const (
	resultFile     = "result.json"
	transcriptFile = "transcript.jsonl"
	verifierDir    = "verifier"
	agentLogFile   = "agent.log"
	testOutputFile = "test-output.txt"
	maxLogBytes    = 1 << 20
	// agentGrace is how long past its timeout an agent phase may take to
	// end on its own before its context is cancelled.
	agentGrace = 5 * time.Second
)

// runTrial runs one trial to its result; it fails only when the context
// is cancelled (the run was interrupted), so that a resume does the
// trial again instead of keeping a half.
func (r *runner) runTrial(ctx context.Context, t trial) (*TrialResult, error) {
	start := time.Now()
	dir := filepath.Join(t.arm.dir, t.rel())
	if err := os.RemoveAll(dir); err != nil { // a trial killed mid-way left a part
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, verifierDir), 0o755); err != nil {
		return nil, err
	}
	res := &TrialResult{
		Schema: SchemaVersion, TrialName: t.name(), TaskID: t.task.ID, TaskPrompt: r.prompt(t),
		Attempt: t.attempt, FailureMode: FailureUnknown, Agent: r.cfg.Agent, ModelName: r.cfg.Model,
		PluginSetName: t.arm.set.Name, PluginSetSkills: slices.Clone(t.arm.set.Skills),
		PluginSetMCPServers: serverNames(t.arm.set), ToolsUsed: []string{}, SkillsUsed: []string{},
		Started: start.UTC().Format(time.RFC3339Nano),
	}
	if res.PluginSetSkills == nil {
		res.PluginSetSkills = []string{}
	}
	finish := func(mode FailureMode, err error) (*TrialResult, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.FailureMode = mode
		if err != nil {
			res.Error = agent.Truncate(err.Error(), 4096)
		}
		res.RuntimeMS = time.Since(start).Milliseconds()
		return res, nil
	}
	ws, err := os.MkdirTemp("", "skillrun-trial-")
	if err != nil {
		return finish(FailureSetupFailed, err)
	}
	defer func() { _ = os.RemoveAll(ws) }()
	if t.task.Workspace != "" {
		if err := copyTree(ws, t.task.Workspace); err != nil {
			return finish(FailureSetupFailed, fmt.Errorf("copying the workspace fixture: %w", err))
		}
	}
	mode, err := r.runAgent(ctx, t, ws, dir, res)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if mode != FailureNone {
		return finish(mode, err)
	}
	reward, mode, err := r.verify(ctx, t, ws, dir)
	res.Reward = reward
	res.IsResolved = mode == FailureNone && reward >= 1
	return finish(mode, err)
}

// prompt is what the agent is asked: the instruction and the set's
// suffix.
func (r *runner) prompt(t trial) string {
	p := strings.TrimRight(t.task.Instruction, "\n")
	if s := strings.TrimSpace(t.arm.set.PromptSuffix); s != "" {
		p += "\n\n" + s
	}
	return p
}

// runAgent runs the agent phase; FailureNone means the verifier decides.
func (r *runner) runAgent(ctx context.Context, t trial, ws, dir string, res *TrialResult) (FailureMode, error) {
	if r.cfg.Agent == OracleAgent {
		ctx, cancel := context.WithTimeout(ctx, t.task.AgentTimeout)
		defer cancel()
		return r.runOracle(ctx, t, ws, dir)
	}
	// The session's own deadline ends it with its transcript closed; the
	// context's, a little later, ends whatever does not stop (an MCP
	// server's start).
	ctx, cancel := context.WithTimeout(ctx, t.task.AgentTimeout+agentGrace)
	defer cancel()
	prov, err := r.cfg.Provider(t.task)
	if err != nil {
		return FailureSetupFailed, err
	}
	servers := map[string]mcp.ServerConfig{}
	for name, s := range t.arm.set.MCPServers {
		servers[name] = mcp.ServerConfig{Command: s.Command, Args: s.Args, Env: s.Env}
	}
	// The same tools as a session over the set's folders; the workspace
	// is the agent's to change (read and write), the grants the arm's.
	set, err := toolset.New(ctx, t.arm.catalog, &toolset.Config{Runner: r.cfg.Runner,
		Workspace: ws, WorkspaceGrant: scripts.ShellDeclares(), WorkspaceAt: t.task.MountAt,
		Grant:      func(sk *skills.Skill) (capabilities.Set, error) { return t.arm.grants[sk.Name], nil },
		Native:     func(sk *skills.Skill) *scripts.NativeTier { return t.arm.natives[sk] },
		MCPServers: servers})
	if err != nil {
		return FailureSetupFailed, err
	}
	defer func() { _ = set.Close() }()
	tf, err := safefile.OpenAppend(filepath.Join(dir, transcriptFile))
	if err != nil {
		return FailureSetupFailed, err
	}
	defer tf.Close()
	res.Transcript = filepath.ToSlash(filepath.Join(t.rel(), transcriptFile))
	used := &usage{skillOf: scriptSkills(t.arm.skills)}
	sess := &agent.Session{
		Provider: prov, Agent: r.cfg.AgentDef, Model: r.cfg.Model,
		Skills: set.Skills(), Scripts: set, Grant: set.Grant,
		Tools: set.Tools, Allow: t.arm.allow,
		Limits: r.limits(t.task), Retry: r.cfg.Retry, Transcript: agent.NewTranscript(tf),
		Observe: used.observe, Skipped: set.Skipped,
	}
	out, err := sess.Run(ctx, r.prompt(t))
	if err != nil {
		return FailureSetupFailed, err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		out.Outcome = agent.OutcomeDeadline
	}
	u := out.Totals.Usage
	res.InputTokens, res.OutputTokens = u.InputTokens, u.OutputTokens
	res.CacheTokens = u.CacheReadTokens + u.CacheWriteTokens
	res.NumTurns = out.Totals.Turns
	res.ToolsUsed, res.SkillsUsed = used.lists()
	if res.ModelName == "" {
		res.ModelName = used.model
	}
	res.CostUSD = r.cfg.Prices.Cost(res.ModelName, u)
	return outcomeMode(out)
}

// limits are the session's limits for a task: the defaults, the run's
// overrides, and the task's agent timeout as the deadline.
func (r *runner) limits(t *Task) agent.Limits {
	l := r.cfg.Limits
	if l.MaxTurns == 0 {
		l.MaxTurns = agent.DefaultLimits.MaxTurns
	}
	l.Deadline = t.AgentTimeout
	return l
}

// outcomeMode maps how a session ended to a failure mode: an agent that
// finished, gave up or ran out of turns leaves the verdict to the
// verifier; the model's service failing, the clock, the harness are
// errors.
func outcomeMode(res *agent.Result) (FailureMode, error) {
	switch res.Outcome {
	case agent.OutcomeCompleted, agent.OutcomeMaxTurns, agent.OutcomeMaxTokens, agent.OutcomeTruncated,
		agent.OutcomeRefused, agent.OutcomeLoop:
		return FailureNone, nil
	case agent.OutcomeDeadline:
		return FailureAgentTimeout, res.Err
	case agent.OutcomeHostError:
		return FailureUnknownHarnessError, res.Err
	case agent.OutcomeProviderError, agent.OutcomeAuthError:
		msg := ""
		if res.Err != nil {
			msg = strings.ToLower(res.Err.Error())
		}
		switch {
		case agent.KindOf(res.Err) == agent.ErrRateLimit || strings.Contains(msg, "quota"):
			return FailureQuotaExceeded, res.Err
		case strings.Contains(msg, "context length") || strings.Contains(msg, "context_length") ||
			strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "maximum context"):
			return FailureContextLengthExceeded, res.Err
		}
		return FailureUnknownAgentError, res.Err
	}
	return FailureUnknownAgentError, res.Err
}

// runOracle runs the task's solution/solve.sh in the sandboxed shell,
// the solution folder read-only at /solution as Harbor mounts it.
func (r *runner) runOracle(ctx context.Context, t trial, ws, dir string) (FailureMode, error) {
	if t.task.Solution == "" {
		return FailureSetupFailed, fmt.Errorf("task %s has no solution/solve.sh for the oracle agent", t.task.ID)
	}
	// Its exit status goes to agent.log; the verifier decides.
	_, err := r.taskShell(ctx, t, ws, filepath.Join(dir, agentLogFile), "/solution/solve.sh",
		sandbox.Mount{HostDir: filepath.Dir(t.task.Solution), GuestPath: "/solution"})
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return FailureAgentTimeout, fmt.Errorf("solve.sh did not finish within %s", t.task.AgentTimeout)
	case errors.Is(err, sandbox.ErrTimeout):
		return FailureAgentTimeout, err
	case err != nil:
		return FailureUnknownAgentError, err
	}
	return FailureNone, nil
}

// taskShell runs a task's script (solve.sh, test.sh) in the sandboxed
// shell over the trial's workspace, also at the task's mount point, with
// the extra mounts given; its output, bounded, goes to logFile, and its
// exit status is the file's last line when it is not 0.
func (r *runner) taskShell(ctx context.Context, t trial, ws, logFile, script string, mounts ...sandbox.Mount) (*sandbox.Result, error) {
	f, err := safefile.OpenAppend(logFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &capped{w: f, n: maxLogBytes}
	res, err := r.cfg.Runner.RunShell(ctx, &scripts.ShellRun{
		ScriptRun: scripts.ScriptRun{
			Services: host.Services{Workspace: ws}, Args: []string{script},
			Stdout: out, Stderr: out, Granted: scripts.ShellDeclares(),
		},
		WorkspaceAt: t.task.MountAt,
		Mounts:      mounts,
	})
	if err == nil && res.ExitCode != 0 {
		fmt.Fprintf(f, "\n%s: exit status %d\n", path.Base(script), res.ExitCode)
	}
	return res, err
}

// usage collects what a session used: the tools whose calls returned a
// result that was not an error, and the skills those calls activated or
// ran. A call of a tool the set does not offer fails, and is not a use.
type usage struct {
	mu      sync.Mutex
	skillOf map[string]string // script tool name → skill
	pending map[string]agent.TranscriptEvent
	tools   map[string]bool
	skills  map[string]bool
	model   string
}

func (u *usage) observe(e agent.TranscriptEvent) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.tools == nil {
		u.tools, u.skills, u.pending = map[string]bool{}, map[string]bool{}, map[string]agent.TranscriptEvent{}
	}
	switch e.Type {
	case agent.EventSessionStart:
		u.model = e.Model
	case agent.EventToolCall:
		u.pending[e.CallID] = e
	case agent.EventToolResult:
		call, ok := u.pending[e.CallID]
		delete(u.pending, e.CallID)
		if !ok || e.IsError {
			return
		}
		u.tools[call.Tool] = true
		if s, ok := u.skillOf[call.Tool]; ok {
			u.skills[s] = true
		}
		if call.Tool == "skill_activate" || call.Tool == "skill_run" {
			if name := inputName(call.Input); name != "" {
				u.skills[name] = true
			}
		}
	}
}

func (u *usage) lists() (tools, skillList []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	tools, skillList = []string{}, []string{}
	for t := range u.tools {
		tools = append(tools, t)
	}
	for s := range u.skills {
		skillList = append(skillList, s)
	}
	slices.Sort(tools)
	slices.Sort(skillList)
	return tools, skillList
}

func scriptSkills(list []*skills.Skill) map[string]string {
	out := map[string]string{}
	for _, s := range list {
		for _, name := range s.RunnableScripts() {
			out[host.SkillToolName(s.Name, name)] = s.Name
		}
	}
	return out
}

func serverNames(s *PluginSet) []string {
	out := []string{}
	for n := range s.MCPServers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// inputName is the skill a skill_activate ({"name"}) or skill_run
// ({"skill"}) call names.
func inputName(raw []byte) string {
	var in struct {
		Name  string `json:"name"`
		Skill string `json:"skill"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	if in.Skill != "" {
		return in.Skill
	}
	return in.Name
}
