package agent

import (
	"context"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Scripts makes the tools that run a session's skill scripts. The loop
// runs nothing itself, so it does not depend on how scripts run (in
// WebAssembly, natively, through an interpreter): package toolset's Set
// implements this for skillrun's front ends, and a test or an embedder
// may bring its own.
type Scripts interface {
	// ScriptTools returns the tools of g's skills' runnable scripts (Source
	// host.SourceSkill, Plugin the skill's name, named by
	// host.SkillToolName), each asking g.Permit for its grant before it
	// runs, and the shell tool when there is one.
	ScriptTools(g *Gate) []host.Tool
	// ShellDir says where the shell tool shows a skill's folder once the
	// skill is activated, or "" when there is no shell tool.
	ShellDir(skill string) string
}

// A Gate is what a session lends the tools that run its scripts: its
// permission gate and the state they need.
type Gate struct {
	// Skills are the session's catalog.
	Skills []*skills.Skill
	// Permit returns the grant a call of skill:script runs with, given
	// what the script declares, or a result refusing the call: the
	// operator's grant, what was allowed always, and what the Asker
	// allows now. Each decision is in the transcript.
	Permit func(ctx context.Context, skill, script string, declared capabilities.Set) (capabilities.Set, *host.ToolResult, error)
	// Grant is what a skill's scripts are granted now, for the runs one
	// script starts (skill_run), which are never asked about.
	Grant func(skill string) capabilities.Set
	// Activated are the skills activated so far: the shell tool shows
	// them.
	Activated func(context.Context) []*skills.Skill
	// Tools are the session caller's tools (Session.Tools; nil: none),
	// which serve the scripts' tool_call.
	Tools host.ToolCaller
}
