package scripts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// shellToolName is the name of the tool [ShellTool] returns.
const shellToolName = "shell"

// ShellToolOptions are what the shell tool's runs reach.
type ShellToolOptions struct {
	// Services are what each run reaches beyond its sandbox (see
	// [ScriptRun]); Services.Workspace is mounted at /workspace.
	host.Services
	// Skills returns the skills to mount read-only at /skills/<name> for
	// a call: in a session the skills activated so far, in `skillrun
	// mcp` the skills served. Nil mounts none.
	Skills func(ctx context.Context) []*skills.Skill
	// Timeout bounds each command (0: the grant's, else the sandbox's
	// default).
	Timeout time.Duration
	// WorkspaceAt, if set, is where each command also sees the workspace
	// and starts ([ShellRun.WorkspaceAt]).
	WorkspaceAt string
	// Native says which skills' scripts run under the native tier when a
	// command runs them ([ShellRun.Native]); nil: none.
	Native func(*skills.Skill) *NativeTier
}

// shellToolSchema is the shell tool's input: a bash command line and,
// optionally, its standard input.
var shellToolSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"command":{"type":"string","minLength":1,"maxLength":65536,"description":"a bash command line or script, run in /workspace"},` +
	`"stdin":{"type":"string","description":"text for the command's standard input"}},` +
	`"required":["command"],"additionalProperties":false}`)

// ShellTool returns the sandboxed shell as a [host.Tool] named "shell":
// each call runs its command with [Runner.RunShell] under granted ∩
// [ShellDeclares] (the workspace as the operator granted it to the
// workspace tools), with the skills o gives mounted at /skills/<name>,
// so a model can follow a published SKILL.md as written ("run python
// scripts/x.py" from the skill's base directory). The result is the
// command's stdout, and for a failure its exit status and the tail of
// stderr.
func ShellTool(r *Runner, granted capabilities.Set, o *ShellToolOptions) host.Tool {
	t := &shellTool{r: r, granted: capabilities.Effective(ShellDeclares(), granted)}
	if o != nil {
		t.opts = *o
	}
	access := "read and write"
	if len(t.granted.Write) == 0 {
		access = "read (not write)"
	}
	t.def = host.ToolDef{
		Name: shellToolName,
		Description: "Run a bash command line in a sandbox: the workspace is the working directory (/workspace, " + access + "), " +
			"activated skills are read-only at /skills/<name>, /tmp is private. Built in: coreutils-style commands " +
			"(cat, ls, grep, sed, awk, jq, find, sort, head, tail, wc, cut, tr, tar, gzip, ...), python3 and node; " +
			"nothing else of the host exists. Returns stdout; a failure also returns the exit status and stderr.",
		InputSchema: shellToolSchema,
		Source:      host.SourceCore,
		Parallel:    true, // each call has its own sandbox
	}
	return t
}

type shellTool struct {
	r       *Runner
	granted capabilities.Set
	opts    ShellToolOptions
	def     host.ToolDef
}

func (t *shellTool) Definition() host.ToolDef { return t.def }

func (t *shellTool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	var in struct {
		Command string  `json:"command"`
		Stdin   *string `json:"stdin"`
	}
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Command) == "" {
		return host.ErrorResult("shell: give the command to run as {\"command\": \"...\"}"), nil //nolint:nilerr // the caller's fault, in the result
	}
	var mounted []*skills.Skill
	if t.opts.Skills != nil {
		seen := map[string]bool{}
		for _, s := range t.opts.Skills(ctx) {
			// A skill whose name cannot be a folder name (a published
			// one named "PDF Tools"), or a second of one name, is left
			// out rather than failing the command.
			if validMountName(s.Name) && !seen[s.Name] {
				seen[s.Name] = true
				mounted = append(mounted, s)
			}
		}
	}
	granted := t.granted
	if t.opts.Timeout > 0 {
		granted.Timeout = capabilities.Duration(t.opts.Timeout)
	}
	var stdout, stderr boundedBuffer
	stdout.limit, stderr.limit = maxToolContent, maxToolContent
	sr := &ShellRun{
		ScriptRun: ScriptRun{
			Services: t.opts.Services,
			Args:     []string{"-c", in.Command},
			Stdin:    strings.NewReader(""),
			Stdout:   &stdout,
			Stderr:   &stderr,
			Granted:  granted,
			Depth:    host.CallerFrom(ctx).Depth,
		},
		Skills:      mounted,
		WorkspaceAt: t.opts.WorkspaceAt,
		Native:      t.opts.Native,
	}
	if in.Stdin != nil {
		sr.Stdin = strings.NewReader(*in.Stdin)
	}
	res, err := t.r.RunShell(ctx, sr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("shell: %w", err)
		}
		return host.ErrorResult(withTail(fmt.Sprintf("shell: %v", err), stderr.String())), nil
	}
	if res.ExitCode != 0 {
		msg := fmt.Sprintf("shell: exit status %d", res.ExitCode)
		if out := stdout.String(); strings.TrimSpace(out) != "" {
			msg += "\n" + out
		}
		return host.ErrorResult(withTail(msg, stderr.String())), nil
	}
	content := stdout.String()
	if tail := strings.TrimSpace(stderr.String()); tail != "" {
		content = withTail(content, tail)
	}
	return &host.ToolResult{Content: content}, nil
}

// SkillBaseDir is where the shell tool shows a skill: what activation
// tells the model as the skill's base directory.
func SkillBaseDir(name string) string { return SkillsGuestPath + "/" + name }
