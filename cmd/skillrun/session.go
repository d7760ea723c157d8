package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// Exit codes of `skillrun session` beyond the shared ones.
const (
	// exitIncomplete: the session ended without the model finishing
	// (max turns, token budget, loop, refusal, provider failure).
	exitIncomplete = 1
	// exitInterrupted: the session was cancelled (Ctrl-C), as a shell
	// reports SIGINT.
	exitInterrupted = 130
)

type sessionFlags struct {
	run        runFlags
	provider   string
	model      string
	baseURL    string
	agentName  string
	agentDirs  []string
	plan       string
	transcript string
	quiet      bool
	limits     agent.Limits
	native     []string
	runLimits  runLimitFlags
}

func newSessionCmd() *cobra.Command {
	var f sessionFlags
	cmd := &cobra.Command{
		Use:   "session [flags] [TASK]",
		Short: "Run an agent session: a model works on TASK with the skills as tools",
		Long: `Session runs an agent loop. The model gets the task, the agent's system
prompt with the catalog of the --skills (default: the skill folders catalog
finds), and tools: skill_search, skill_activate, skill_read and skill_run,
each skill script as <skill>__<script> (run in the sandbox), the core
workspace tools, and the tools of the --mcp-config servers. It calls tools
until it answers or a limit ends the session.

Providers: anthropic (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), openai or any
OpenAI-compatible server such as llama.cpp or Ollama (OPENAI_API_KEY,
OPENAI_BASE_URL or --base-url), and scripted, which replays a --plan file
offline. With --plan and no --provider, the provider is scripted; a plan's
task is used when TASK is not given ("-" reads TASK from stdin).

Scripts get what the grant flags grant, in skill.toml's words, per skill
(as for run). A script that declares more is asked about in a terminal
(allow once, always, or deny) and denied elsewhere; each decision is in the
transcript. The core workspace tools get --allow-read / --allow-write on
the workspace.

Every event is appended to --transcript (JSON lines) as it happens, closed by
a session_end record with the outcome and totals; by default to a new file
under $XDG_STATE_HOME/skillrun/transcripts (~/.local/state/...), never into
the project, and the live view says where. A live view goes to stderr
(unless --quiet); the model's final answer to stdout.

Exit status: 0 completed, 1 ended without completing (max turns, token
budget, loop, refusal, provider or auth failure), 2 usage error, 124 the
--deadline passed, 125 host or sandbox failure, 130 interrupted.`,
		Example: `  skillrun session --plan examples/session-demo/plan.toml --skills examples --workspace examples/workspace --allow-read
  skillrun session --provider anthropic --skills examples -A "Summarise sales.csv"
  skillrun session --provider openai --base-url http://localhost:11434/v1 --model llama3.1 --skills examples "..."`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSession(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "anthropic, openai or scripted (default scripted with --plan)")
	fl.StringVar(&f.model, "model", "", "the `MODEL` (default: the agent's, then the provider's)")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's API base `URL` (a local OpenAI-compatible server)")
	fl.StringVar(&f.agentName, "agent", "", "the agent `NAME` (default general), or SKILL:NAME for a skill's agent; from --agents, the skills' agents/ folders, or builtin")
	fl.StringArrayVar(&f.agentDirs, "agents", nil, "a `DIR` of agent definitions (*.md), highest precedence (repeatable)")
	fl.StringVar(&f.plan, "plan", "", "a scripted plan `FILE` (TOML) for --provider scripted")
	fl.StringArrayVar(&f.run.skills, "skills", nil, "a skill `PATH` or a folder of skills for the catalog (repeatable; default: the project's and the user's skill folders)")
	fl.StringVar(&f.run.workspace, "workspace", ".", "the host `DIR` scripts and workspace tools see (as granted)")
	addGrantFlags(fl, &f.run)
	fl.StringVar(&f.run.mcpConfig, "mcp-config", "", "an mcpServers JSON `FILE`: their tools are offered to the model")
	fl.StringVar(&f.transcript, "transcript", "", "append the session's events (JSON lines) to `FILE`, never through a symlink (default: a new file under $XDG_STATE_HOME/skillrun/transcripts; '' for none)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no live view on stderr")
	fl.StringArrayVar(&f.native, "native", nil, "run the source scripts of the skill `NAME` as confined host processes (the native tier; Linux with Landlock; only for a skill you trust; repeatable)")
	fl.IntVar(&f.limits.MaxTurns, "max-turns", agent.DefaultLimits.MaxTurns, "the most calls to the model")
	fl.Int64Var(&f.limits.MaxTokens, "max-tokens", 0, "the most tokens of the whole session (0: no limit)")
	fl.IntVar(&f.limits.MaxReplyTokens, "max-reply-tokens", 0, "the most tokens of one reply (0: the provider's default)")
	fl.DurationVar(&f.limits.Deadline, "deadline", 0, "the longest the session may take, e.g. 10m (0: no limit)")
	addRunLimitFlags(fl, &f.runLimits)
	return cmd
}

func runSession(cmd *cobra.Command, f *sessionFlags, args []string) error {
	stderr := cmd.ErrOrStderr()
	if f.limits.MaxTurns <= 0 || f.limits.MaxTokens < 0 || f.limits.MaxReplyTokens < 0 || f.limits.Deadline < 0 {
		return usageErr("--max-turns must be positive; --max-tokens, --max-reply-tokens and --deadline must not be negative")
	}
	prov, plan, err := sessionProvider(f)
	if err != nil {
		return err
	}
	task, err := sessionTask(cmd, args, plan)
	if err != nil {
		return err
	}
	def, catalog, err := sessionCatalog(cmd, f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	set, done, err := sessionTools(ctx, f, catalog, stderr)
	if err != nil {
		return err
	}
	defer done()
	tf, transcriptName, err := openTranscript(f.transcript, cmd.Flags().Changed("transcript"))
	if err != nil {
		return usageErr("--transcript: %v", err)
	}
	transcript := agent.NewTranscript(io.Discard)
	if tf != nil {
		defer tf.Close()
		transcript = agent.NewTranscript(tf)
	}
	sess := &agent.Session{
		Provider: prov, Agent: def, Model: f.model,
		Skills: set.Skills(), Scripts: set, Grant: set.Grant,
		Tools: set.Tools, Limits: f.limits, Transcript: transcript,
		Skipped: set.Skipped, Logger: warnLogger(stderr),
	}
	if !f.run.noPrompt && isTerminal(cmd.InOrStdin()) && isTerminal(stderr) {
		sess.Asker = terminalAsker(cmd.InOrStdin(), stderr)
	}
	if !f.quiet {
		sess.Observe = (&liveView{w: stderr, transcript: transcriptName}).show
	}
	res, err := sess.Run(ctx, task)
	if err != nil {
		return usageErr("%v", err)
	}
	if res.Outcome == agent.OutcomeCompleted && res.Text != "" {
		// An unfinished session's last words are in the transcript.
		printAnswer(cmd.OutOrStdout(), res.Text, isTerminal(cmd.OutOrStdout()))
	}
	if err := transcript.Err(); err != nil {
		fmt.Fprintf(stderr, "skillrun: writing the transcript %s: %v\n", transcriptName, safefile.Cause(err))
	}
	return sessionExit(res)
}

// sessionCatalog is what the session offers: the --skills paths, or the
// default skill folders (as catalog and mcp), with their Markdown skills
// and YAML modules (a skill that cannot be loaded is reported and left
// out), and the agent --agent names. An agent module of the folders
// scopes the catalog to its skills and tools.
func sessionCatalog(cmd *cobra.Command, f *sessionFlags) (*agent.Definition, *toolset.Catalog, error) {
	found, err := discoverArgs(cmd, f.run.skills)
	if err != nil {
		return nil, nil, err
	}
	def, err := sessionAgent(f, found.Discovery.Skills, cmd.ErrOrStderr())
	if err != nil {
		d, scoped, ok := found.Agent(f.agentName)
		if !ok {
			return nil, nil, err
		}
		return d, scoped, nil
	}
	return def, found.Catalog, nil
}

// sessionTools makes the session's tools (package toolset): the grants
// of the flags and policy, the core tools and shell with the workspace
// grant, the MCP servers (a broken one is left out, not fatal), the
// native tier, the audit log. done releases them.
func sessionTools(ctx context.Context, f *sessionFlags, catalog *toolset.Catalog, stderr io.Writer) (*toolset.Set, func(), error) {
	f.run.warn = stderr
	r, err := f.run.resolver() // the policy, once, for every skill and the core tools
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(f.run.workspace); err != nil || !fi.IsDir() {
		return nil, nil, usageErr("--workspace %s: not a folder", f.run.workspace)
	}
	servers, err := readMCPConfig(f.run.mcpConfig)
	if err != nil {
		return nil, nil, err
	}
	nativeFor, err := nativeTiers(f.native, f.run.pol, catalog.Skills(), "this session", stderr)
	if err != nil {
		return nil, nil, err
	}
	auditor, auditDone, err := openAuditLog(f.run.audit, stderr) // ownfiles.go: never through a symlink
	if err != nil {
		return nil, nil, usageErr("--audit: %v", err)
	}
	opts := &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr}
	rt, err := f.runLimits.newRunner(ctx, opts)
	if err != nil {
		auditDone()
		return nil, nil, err
	}
	set, err := toolset.New(ctx, catalog, &toolset.Config{Runner: rt,
		Workspace: f.run.workspace, WorkspaceGrant: r.Workspace(),
		Grant: toolset.Resolve(r, stderr), Native: nativeFor,
		MCPServers: servers, Auditor: auditor, Warn: stderr})
	if err != nil {
		_ = rt.Close(context.WithoutCancel(ctx))
		auditDone()
		return nil, nil, usageErr("%v", err)
	}
	return set, func() {
		_ = set.Close()
		_ = rt.Close(context.WithoutCancel(ctx))
		auditDone()
	}, nil
}

// sessionExit is the command's result for how the session ended.
func sessionExit(res *agent.Result) error {
	switch res.Outcome {
	case agent.OutcomeCompleted:
		return nil
	case agent.OutcomeDeadline:
		return &exitError{code: exitTimeout, err: fmt.Errorf("session: %w (raise --deadline)", res.Err)}
	case agent.OutcomeHostError:
		return &exitError{code: exitSandbox, err: fmt.Errorf("session: host error: %w", res.Err)}
	case agent.OutcomeCancelled:
		return &exitError{code: exitInterrupted, err: errors.New("session: interrupted")}
	}
	return &exitError{code: exitIncomplete, err: fmt.Errorf("session ended: %s: %w", res.Outcome, res.Err)}
}

// sessionProvider builds the provider the flags name.
func sessionProvider(f *sessionFlags) (agent.Provider, *agent.Plan, error) {
	name := f.provider
	if name == "" {
		if f.plan == "" {
			return nil, nil, usageErr("--provider is required (anthropic, openai or scripted with --plan)")
		}
		name = "scripted"
	}
	if f.plan != "" && name != "scripted" {
		return nil, nil, usageErr("--plan is for --provider scripted, not %s", name)
	}
	o := providers.FromEnv(providers.Options{BaseURL: f.baseURL, Model: f.model}, name)
	switch name {
	case "scripted":
		if f.plan == "" {
			return nil, nil, usageErr("--provider scripted needs --plan FILE")
		}
		if f.baseURL != "" {
			return nil, nil, usageErr("--base-url is for the anthropic and openai providers")
		}
		plan, err := agent.LoadPlan(f.plan)
		if err != nil {
			return nil, nil, usageErr("--plan: %v", err)
		}
		return agent.NewScripted(plan), plan, nil
	case "anthropic":
		p, err := providers.NewAnthropic(o)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		return p, nil, nil
	case "openai":
		p, err := providers.NewOpenAI(o)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		return p, nil, nil
	}
	return nil, nil, usageErr("--provider %q: not a provider (anthropic, openai or scripted)", name)
}

// sessionTask is the task argument, stdin for "-", or the plan's task.
func sessionTask(cmd *cobra.Command, args []string, plan *agent.Plan) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<20))
		if err != nil {
			return "", usageErr("reading the task from stdin: %v", err)
		}
		args = []string{string(b)}
	}
	if len(args) == 1 && strings.TrimSpace(args[0]) != "" {
		return args[0], nil
	}
	if plan != nil && strings.TrimSpace(plan.Task) != "" {
		return plan.Task, nil
	}
	return "", usageErr("no task: give one as the argument (or in the plan's task)")
}

// sessionAgent finds --agent among the --agents definitions (user), the
// agents/ folders of the catalog's skills (plugin agents, scoped to the
// core tools and their own skill's) and the builtin ones.
func sessionAgent(f *sessionFlags, catalog []*skills.Skill, stderr io.Writer) (*agent.Definition, error) {
	defs := agent.Builtin()
	for _, s := range catalog {
		dir := filepath.Join(filepath.Dir(s.Location), "agents")
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		found, errs := agent.LoadDir(dir, agent.SourcePlugin, s.Name)
		for _, err := range errs { // a skill's broken agent does not stop the session
			fmt.Fprintf(stderr, "skillrun: skill %s: %v\n", s.Name, err)
		}
		defs = append(defs, found...)
	}
	for _, dir := range f.agentDirs {
		found, errs := agent.LoadDir(dir, agent.SourceUser, "")
		if len(errs) > 0 {
			return nil, usageErr("--agents %s: %v", dir, errors.Join(errs...))
		}
		defs = append(defs, found...)
	}
	set := agent.NewRoster(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), defs...)
	name := f.agentName
	if name == "" {
		name = "general"
	}
	def, ok := set.Lookup(name)
	if !ok {
		var names []string
		for _, d := range set.List() {
			names = append(names, d.QualifiedName())
		}
		return nil, usageErr("--agent %s: no such agent (agents: %s)", name, strings.Join(names, ", "))
	}
	return def, nil
}

// terminalAsker asks at the terminal: allow once, always, or deny.
func terminalAsker(in io.Reader, out io.Writer) agent.Asker {
	r := bufio.NewReader(in)
	return agent.AskerFunc(func(ctx context.Context, req agent.PermissionRequest) (agent.Answer, error) {
		fmt.Fprint(out, permissionPrompt(req.Missing, req.Skill, req.Script, "", "Allow? [o]nce, [a]lways for this session, [N]o: "))
		answer, err := r.ReadString('\n')
		if err != nil && answer == "" {
			return agent.Deny, nil //nolint:nilerr // no answer is a no
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "o", "once", "y", "yes":
			return agent.AllowOnce, nil
		case "a", "always":
			return agent.AllowAlways, nil
		}
		return agent.Deny, nil
	})
}

// liveView renders session events as readable lines.
type liveView struct {
	w          io.Writer
	transcript string
}

func (v *liveView) show(e agent.TranscriptEvent) {
	// Every name here is someone else's (skill and script authors, MCP
	// servers, the model): shown escaped and bounded, never raw.
	n := func(s string) string { return termsafe.String(agent.Truncate(s, maxShownName*2)) }
	switch e.Type {
	case agent.EventSessionStart:
		fmt.Fprintf(v.w, "session: %s", n(e.Provider))
		if e.Model != "" {
			fmt.Fprintf(v.w, " (%s)", n(e.Model))
		}
		fmt.Fprintf(v.w, ", agent %s, %d skills, %d tools offered; transcript %s\n", n(e.Agent), len(e.Skills), len(e.Tools), termsafe.String(v.transcript))
	case agent.EventModelTurn:
		var u agent.Usage // an event without one shows zeros, never panics
		if e.Usage != nil {
			u = *e.Usage
		}
		fmt.Fprintf(v.w, "[turn %d] %s (%d in, %d out tokens)\n", e.Turn, n(string(e.StopReason)), u.InputTokens, u.OutputTokens)
		if t := strings.TrimSpace(e.Text); t != "" {
			fmt.Fprintf(v.w, "  %s\n", oneLine(t, 200))
		}
		for _, c := range e.ToolCalls {
			fmt.Fprintf(v.w, "  → %s %s\n", n(c.Name), oneLine(string(c.Input), 120))
		}
	case agent.EventRetry:
		fmt.Fprintf(v.w, "  retry in %s: %s\n", time.Duration(e.WaitMS)*time.Millisecond, oneLine(e.Error, 160))
	case agent.EventToolResult:
		mark := "←"
		if e.IsError {
			mark = "✗"
		}
		fmt.Fprintf(v.w, "  %s %s (%d bytes) %s\n", mark, n(e.Tool), len(e.Content), oneLine(e.Content, 120))
	case agent.EventPermission:
		fmt.Fprintf(v.w, "  permission %s:%s %s: %s (%s)\n", n(e.Skill), n(e.Script), termsafe.String(e.Requested), n(string(e.Decision)), n(e.Via))
	case agent.EventToolsLoaded:
		tools := make([]string, len(e.Tools))
		for i, t := range e.Tools {
			tools[i] = n(t)
		}
		fmt.Fprintf(v.w, "  + tools %s (via %s)\n", strings.Join(tools, ", "), n(e.Via))
	case agent.EventSessionEnd:
		var t agent.Totals
		if e.Totals != nil {
			t = *e.Totals
		}
		fmt.Fprintf(v.w, "session %s: %d turns, %d tool calls (%d failed), %d tokens in, %d out, %s\n",
			n(string(e.Outcome)), t.Turns, t.ToolCalls, t.ToolErrors, t.Usage.InputTokens+t.Usage.CacheReadTokens+t.Usage.CacheWriteTokens,
			t.Usage.OutputTokens, (time.Duration(t.DurationMS) * time.Millisecond).String())
		if e.Error != "" {
			fmt.Fprintf(v.w, "  %s\n", oneLine(e.Error, 300))
		}
	}
}

// oneLine returns the first line of s, cut to about n bytes, made
// terminal-safe (internal/termsafe: control characters, escape sequences,
// bidi and zero-width characters shown as visible escapes): model text and
// tool results are untrusted, and an escape sequence on the terminal could
// hide or fake a prompt.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	s = strings.ReplaceAll(s, "\t", " ")
	return agent.Truncate(termsafe.String(agent.Truncate(s, n)), n)
}

// printAnswer prints the model's answer. On a terminal it is the model's
// words, not its escape codes (termsafe.Text); to a file or pipe it is
// kept byte for byte, as the data it is.
func printAnswer(w io.Writer, text string, tty bool) {
	if tty {
		text = termsafe.Text(text)
	}
	fmt.Fprintln(w, text)
}
