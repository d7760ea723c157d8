package toolset

import (
	"context"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// ScriptTools makes the tools of g's skills' scripts for an agent
// session: each runs under what g.Permit decides (the session's
// permission gate; nil: the skill's grant, fixed), under the native tier
// for a skill the operator trusts with it, with the other skills in
// reach of skill_run under g.Grant; and the shell tool, when the
// workspace grant lets it read, mounting the skills g.Activated returns.
// With it a Set is an [agent.Scripts].
func (s *Set) ScriptTools(g *agent.Gate) []host.Tool {
	rt := s.cfg.Runner
	grant := g.Grant
	if grant == nil {
		grant = s.Grant
	}
	svc := s.services(g.Tools)
	var tools []host.Tool
	if s.ShellDir("") != "" {
		tools = append(tools, scripts.ShellTool(rt, s.cfg.WorkspaceGrant, &scripts.ShellToolOptions{
			Services: svc, Skills: g.Activated, WorkspaceAt: s.cfg.WorkspaceAt, Native: s.cfg.Native}))
	}
	ix := scripts.NewSkillIndex(rt, g.Skills, grant)
	ix.Services = svc
	svc.Skills = ix
	for _, sk := range g.Skills {
		opts := &scripts.ToolOptions{Services: svc}
		if s.cfg.Native != nil {
			opts.Native = s.cfg.Native(sk)
		}
		for _, name := range sk.RunnableScripts() {
			o := *opts
			if g.Permit != nil {
				o.Grant = func(ctx context.Context, declared capabilities.Set) (capabilities.Set, *host.ToolResult, error) {
					return g.Permit(ctx, sk.Name, name, declared)
				}
			}
			tools = append(tools, scripts.ScriptTool(rt, sk, name, grant(sk.Name), &o))
		}
	}
	return tools
}

// ShellDir is where the shell tool shows skill's folder, or "" when the
// set has no shell tool (its workspace grant reads nothing).
func (s *Set) ShellDir(skill string) string {
	if s.cfg.Workspace == "" || len(capabilities.Effective(scripts.ShellDeclares(), s.cfg.WorkspaceGrant).Read) == 0 {
		return ""
	}
	return scripts.SkillBaseDir(skill)
}

// activatedAll mounts every skill in the shell tool: a server's.
func activatedAll(list func() []*skills.Skill) func(context.Context) []*skills.Skill {
	return func(context.Context) []*skills.Skill { return list() }
}
