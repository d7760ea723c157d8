package run

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// A ToolSource is a Runner's Tools that also lists its tools and gives
// their definitions, so that an oskill's session can offer the skills it
// allows with their descriptions and schemas. host.Registry is one.
type ToolSource interface {
	host.ToolCaller
	Lookup(name string) (host.Tool, bool)
	List() []host.ToolDef
}

// maxSessionTurns bounds the model calls of an oskill's session, as
// AchillesAgentLib bounds its loop session's steps.
const maxSessionTurns = 20

// session is an oskill without steps: a model session (agent.Session)
// whose system prompt is the skill's description and instructions and
// whose tools are the skills it allows (every Markdown skill served
// beside it when it names none), each called through Tools as a step
// would be: never itself, nested no deeper than host.DefaultMaxDepth. The
// result is the model's last text; a session that does not complete is
// an error result saying how it ended.
func (r *Runner) session(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	src, ok := r.Tools.(ToolSource)
	if !ok {
		return host.ErrorResult(fmt.Sprintf("%s: no tools to offer its session", s.ToolName())), nil
	}
	offered, missing := sessionTools(s, src)
	if len(offered) == 0 && len(s.AllowedSkills) > 0 {
		return host.ErrorResult(fmt.Sprintf("%s: none of the skills it allows is served (%s)", s.ToolName(), strings.Join(missing, ", "))), nil
	}
	reg := host.NewRegistry()
	names := []string{}
	for _, d := range offered {
		if err := reg.Add(&proxy{def: d, to: r.Tools}); err != nil {
			missing = append(missing, d.Name)
			continue
		}
		names = append(names, d.Name)
	}
	p, err := r.provider(s)
	if err != nil {
		return nil, err
	}
	def := &agent.Definition{Name: s.Name, Description: s.Description, Model: s.Config.Model, Temperature: s.Config.Temperature,
		Tools: names, Prompt: sessionPrompt(s, names, missing), Source: agent.SourceUser, File: s.File}
	sess := &agent.Session{Provider: p, Agent: def, Tools: reg,
		Limits: agent.Limits{MaxTurns: maxSessionTurns, MaxReplyTokens: s.Config.MaxTokens}}
	res, err := sess.Run(ctx, sessionTask(s, in))
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	fields := map[string]any{"outcome": res.Outcome, "turns": res.Totals.Turns, "tool_calls": res.Totals.ToolCalls,
		"usage": res.Totals.Usage, "tools": names}
	if res.Outcome != agent.OutcomeCompleted {
		msg := fmt.Sprintf("%s: the session ended (%s): %v", s.ToolName(), res.Outcome, res.Err)
		if res.Text != "" {
			msg += "\nIts last text: " + res.Text
		}
		out := textResult(msg, "text", fields)
		out.IsError = true
		return out, nil
	}
	return textResult(res.Text, "text", fields), nil
}

// sessionTools are the tools an oskill's session offers: each skill it
// allows (or allows its preparation), served as skill_<name> (or a tool
// of that name), and without an allow list every Markdown skill served
// but itself. missing are the names that are not served.
func sessionTools(s *mdskill.Skill, src ToolSource) (offered []host.ToolDef, missing []string) {
	self := s.ToolName()
	seen := map[string]bool{self: true}
	if len(s.AllowedSkills) == 0 {
		for _, d := range src.List() {
			if d.Source == host.SourceMarkdown && !seen[d.Name] {
				seen[d.Name] = true
				offered = append(offered, d)
			}
		}
	}
	for _, n := range slices.Concat(s.AllowedSkills, s.AllowedPrepSkills) {
		found := false
		for _, cand := range []string{"skill_" + n, n} {
			if t, ok := src.Lookup(cand); ok {
				if !seen[cand] {
					seen[cand] = true
					offered = append(offered, t.Definition())
				}
				found = true
				break
			}
		}
		if !found && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	return offered, missing
}

// sessionPrompt is an oskill session's system prompt.
func sessionPrompt(s *mdskill.Skill, tools, missing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You run the skill %s: %s\n", s.Name, s.Description)
	if s.Instructions != "" {
		fmt.Fprintf(&b, "\n# Instructions\n\n%s\n", s.Instructions)
	}
	if s.Preparation != "" {
		fmt.Fprintf(&b, "\n# Preparation\n\nBefore the task itself: %s\n", s.Preparation)
	}
	b.WriteString("\n# Tools\n\n")
	if len(tools) == 0 {
		b.WriteString("No skill is offered: answer from the instructions alone.\n")
	} else {
		fmt.Fprintf(&b, "Each tool runs one skill (%s). Call them as the instructions say, then answer with the result as plain text.\n",
			strings.Join(tools, ", "))
	}
	var absent []string
	if len(missing) > 0 {
		absent = append(absent, "the skills "+strings.Join(missing, ", "))
	}
	if len(s.AllowedAgents) > 0 {
		absent = append(absent, "the agents "+strings.Join(s.AllowedAgents, ", "))
	}
	if len(absent) > 0 {
		fmt.Fprintf(&b, "Not available here, though the instructions may name them: %s.\n", strings.Join(absent, "; "))
	}
	return b.String()
}

// sessionTask is the session's task: the prompt text of an oskill that
// takes one, or its input as JSON.
func sessionTask(s *mdskill.Skill, in map[string]any) string {
	if len(s.Parameters) == 1 && s.Parameters[0].Name == "prompt" {
		if t, ok := in["prompt"].(string); ok && strings.TrimSpace(t) != "" {
			return t
		}
	}
	return formatInput(in)
}

// proxy offers a served tool in a session, called through the Runner's
// Tools as a step's is.
type proxy struct {
	def host.ToolDef
	to  host.ToolCaller
}

func (p *proxy) Definition() host.ToolDef { return p.def }

func (p *proxy) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	return p.to.Call(ctx, p.def.Name, input)
}
