// Package run runs the Markdown skill kinds (package mdskill) as tools:
// each skill is the tool skill_<name>, and a call runs it by its kind.
//
//   - skill: one model call with the system prompt and the input.
//
//   - iskill: a conversation kept across calls by conversation_id,
//     bounded in turns and number, expiring when idle.
//
//   - cgskill: the model writes JavaScript for the input; the code runs
//     in the JS sandbox with nothing granted but its own file, and the
//     result is what it returns or prints.
//
//   - cskill: the same, the model told the skill's sections and its
//     specs/ (mdskill.Skill.CodePrompt); upstream's module is not run.
//
//   - mskill: the declared steps, in order, over the tools it lists,
//     templates expanded once; a failing step ends the run with the
//     partial results and the step named.
//
//   - oskill: the same over other skills (skill_<name>, <skill>__<script>),
//     nested no deeper than host.DefaultMaxDepth, never calling itself.
//     An oskill without steps is a model session (agent.Session) whose
//     tools are the skills it allows, its instructions the system prompt.
//
//   - tskill: one operation (create, insert, query, update, delete) on
//     the skill's table in a database file of the workspace, with SQLite
//     compiled to WebAssembly; columns are the declared fields and values
//     are bound, never spliced into SQL.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/scripts"
)

// A Runner runs Markdown skills. Set the fields, then make each skill's
// tool with Tool. A Runner is safe for concurrent use.
type Runner struct {
	// Provider returns the model for a skill's configured model name
	// ("" for the skill that names none).
	Provider func(model string) (agent.Provider, error)
	// Tools serve the steps of mskills and oskills (the registry the
	// skills are served from, so an oskill reaches the other skills). An
	// oskill's session offers its tools only if Tools also lists them
	// (a ToolSource, as host.Registry is).
	Tools host.ToolCaller
	// Scripts runs the code a cgskill's model writes (nil: cgskills fail).
	Scripts *scripts.Runner
	// Workspace holds the tskills' database files, read and written under
	// its grants (nil: tskills fail).
	Workspace *host.Workspace
	// Timeout bounds one call of a skill, model calls included (0: 5m).
	Timeout time.Duration

	conversations conversations
}

// Tool returns the tool skill_<name> that runs s.
func (r *Runner) Tool(s *mdskill.Skill) host.Tool {
	schema := s.InputSchema()
	desc := s.Description
	if s.Kind == mdskill.KindInteractive {
		schema = withConversationID(schema)
		desc += " Continue a conversation by passing the conversation_id a reply gave."
	}
	return &tool{r: r, s: s, def: host.ToolDef{Name: s.ToolName(), Description: desc, InputSchema: schema,
		Source: host.SourceMarkdown, Plugin: s.Name}}
}

type tool struct {
	r   *Runner
	s   *mdskill.Skill
	def host.ToolDef
}

func (t *tool) Definition() host.ToolDef { return t.def }

func (t *tool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	timeout := t.r.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var in map[string]any
	if len(input) > 0 && string(input) != "null" {
		if err := json.Unmarshal(input, &in); err != nil {
			return host.ErrorResult(fmt.Sprintf("%s: input is not a JSON object: %v", t.def.Name, err)), nil
		}
	}
	if in == nil {
		in = map[string]any{}
	}
	auditor := audit.AuditorFrom(ctx)
	inner, err := enter(ctx, t.s.Name)
	if err != nil {
		auditor.Audit(ctx, audit.Event{Skill: t.s.Name, Kind: "skills", Value: t.def.Name, Decision: audit.Deny, Reason: err.Error()})
		return host.ErrorResult(fmt.Sprintf("%s: %v", t.def.Name, err)), nil
	}
	ctx = inner
	auditor.Audit(ctx, audit.Event{Skill: t.s.Name, Kind: "run", Value: t.def.Name, Decision: audit.Allow,
		Reason: fmt.Sprintf("%s started (%s)", t.s.Kind, t.s.File)})
	var res *host.ToolResult
	switch t.s.Kind {
	case mdskill.KindSkill:
		res, err = t.r.once(ctx, t.s, in)
	case mdskill.KindInteractive:
		res, err = t.r.converse(ctx, t.s, in)
	case mdskill.KindCodeGen, mdskill.KindCode:
		res, err = t.r.codegen(ctx, t.s, in)
	case mdskill.KindOrchestrator:
		if t.s.Session() {
			res, err = t.r.session(ctx, t.s, in)
		} else {
			res, err = t.r.steps(ctx, t.s, in)
		}
	case mdskill.KindMCP:
		res, err = t.r.steps(ctx, t.s, in)
	case mdskill.KindTable:
		res, err = t.r.table(ctx, t.s, in)
	default:
		return host.ErrorResult(fmt.Sprintf("%s: skillrun does not run %s skills yet", t.def.Name, t.s.Kind)), nil
	}
	end := audit.Event{Skill: t.s.Name, Kind: "run", Value: t.def.Name, Decision: audit.Allow, Reason: "ended"}
	switch {
	case err != nil && ctx.Err() == nil:
		// A failure of the model's service or the sandbox is the tool's
		// failure, shown to the caller; only cancellation is the host's.
		res = host.ErrorResult(fmt.Sprintf("%s: %v", t.def.Name, err))
		end.Reason = "failed: " + err.Error()
	case err != nil:
		end.Reason = "stopped: " + err.Error()
		auditor.Audit(ctx, end)
		return nil, fmt.Errorf("%s: %w", t.def.Name, err)
	case res.IsError:
		end.Reason = "failed: " + agent.Truncate(res.Content, 2048)
	}
	auditor.Audit(ctx, end)
	// Each kind bounds its result as it builds it; this is the last
	// guard of the bound every tool result keeps, whatever the kind.
	return host.BoundResult(res), nil
}

// stackKey carries the Markdown skills a call is inside of.
type stackKey struct{}

// enter records that ctx is now inside skill name, refusing a skill that
// is already running in this chain (an oskill calling itself, directly or
// through others) and a chain deeper than host.DefaultMaxDepth.
func enter(ctx context.Context, name string) (context.Context, error) {
	stack, _ := ctx.Value(stackKey{}).([]string)
	for _, s := range stack {
		if s == name {
			return nil, fmt.Errorf("%s calls itself (%s → %s)", name, strings.Join(stack, " → "), name)
		}
	}
	if len(stack) >= host.DefaultMaxDepth {
		return nil, fmt.Errorf("skills nest deeper than %d (%s → %s)", host.DefaultMaxDepth, strings.Join(stack, " → "), name)
	}
	next := append(append([]string{}, stack...), name)
	return context.WithValue(ctx, stackKey{}, next), nil
}

// formatInput is how a skill's input reaches the model: its JSON.
func formatInput(in map[string]any) string {
	b, _ := json.MarshalIndent(in, "", "  ")
	return string(b)
}

// complete makes one model call for s, with its system prompt.
func (r *Runner) complete(ctx context.Context, s *mdskill.Skill, msgs []agent.Message) (*agent.Response, error) {
	return r.completeWith(ctx, s, s.SystemPrompt, msgs)
}

// completeWith makes one model call for s with the system prompt given.
func (r *Runner) completeWith(ctx context.Context, s *mdskill.Skill, system string, msgs []agent.Message) (*agent.Response, error) {
	p, err := r.provider(s)
	if err != nil {
		return nil, err
	}
	return p.Complete(ctx, &agent.Request{Model: s.Config.Model, System: system, Messages: msgs,
		MaxTokens: s.Config.MaxTokens, Temperature: s.Config.Temperature})
}

// provider is the model of s.
func (r *Runner) provider(s *mdskill.Skill) (agent.Provider, error) {
	if r.Provider == nil {
		return nil, errors.New("no model provider is configured")
	}
	return r.Provider(s.Config.Model)
}

// once is the skill kind: one call, the reply's text and usage.
func (r *Runner) once(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	resp, err := r.complete(ctx, s, []agent.Message{{Role: agent.RoleUser, Text: formatInput(in)}})
	if err != nil {
		return nil, err
	}
	return textResult(resp.Message.Text, "text", map[string]any{"usage": resp.Usage}), nil
}

// textResult is a result whose content is text (a model's reply, what
// code printed) and whose structured value is fields with the text under
// key. The text is cut, with host.CutNotice, so that the structured
// value stays within host.MaxResultContent: a reply may be any size.
func textResult(text, key string, fields map[string]any) *host.ToolResult {
	rest, _ := json.Marshal(fields)
	text = fitText(text, host.MaxResultContent-len(rest)-len(key)-8)
	fields[key] = text
	b, _ := json.Marshal(fields)
	return &host.ToolResult{Content: text, Structured: b}
}
