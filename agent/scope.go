package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/host"
)

// toolSourceCore is [host.ToolDef.Source] of the core tools (workspace
// read/write/list, the sandboxed shell).
const toolSourceCore = "core"

// Scope returns the tools from all that the agent may use, in the order of
// all:
//   - with an explicit Tools list, exactly those tools (none for an empty
//     list); a listed name that is not in all is an [*UnknownToolsError];
//   - for a plugin agent without one, the core tools and the tools of its
//     own plugin, not other plugins' tools nor MCP tools;
//   - for any other agent without one, every tool.
//
// Scope does not look at [host.ToolDef.RequiredAgent]: a tool that requires
// another agent is still offered, and [CheckRequiredAgent] refuses the call.
func (d *Definition) Scope(all []host.ToolDef) ([]host.ToolDef, error) {
	if d.Tools != nil {
		want := make(map[string]bool, len(d.Tools))
		for _, n := range d.Tools {
			want[n] = true
		}
		out := make([]host.ToolDef, 0, len(d.Tools))
		found := make(map[string]bool, len(d.Tools))
		for _, t := range all {
			if want[t.Name] {
				out = append(out, t)
				found[t.Name] = true
			}
		}
		var unknown []string
		for _, n := range d.Tools {
			if !found[n] {
				unknown = append(unknown, n)
			}
		}
		if len(unknown) > 0 {
			return nil, &UnknownToolsError{Agent: d.QualifiedName(), File: d.File, Names: unknown}
		}
		return out, nil
	}
	if d.Source == SourcePlugin {
		var out []host.ToolDef
		for _, t := range all {
			if t.Source == toolSourceCore || t.Plugin == d.Plugin {
				out = append(out, t)
			}
		}
		return out, nil
	}
	return slices.Clone(all), nil
}

// An UnknownToolsError reports the names in an agent's tools list that are
// not among the available tools.
type UnknownToolsError struct {
	// Agent is the agent's qualified name (see [Definition.QualifiedName]).
	Agent string
	// File is the agent's definition file.
	File string
	// Names are the unknown tool names, in the order the list gives them.
	Names []string
}

func (e *UnknownToolsError) Error() string {
	prefix := ""
	if e.File != "" {
		prefix = e.File + ": "
	}
	noun := "tool"
	if len(e.Names) > 1 {
		noun = "tools"
	}
	return fmt.Sprintf("%sagent %q lists unknown %s: %s", prefix, e.Agent, noun, strings.Join(e.Names, ", "))
}

// A RequiredAgentError is a call of a tool that declares a required agent
// by another agent, or by no agent at all.
type RequiredAgentError struct {
	// Tool is the tool's name.
	Tool string
	// Required is the tool's [host.ToolDef.RequiredAgent].
	Required string
	// Agent is the calling agent, "" for none.
	Agent string
}

func (e *RequiredAgentError) Error() string {
	if e.Agent == "" {
		return fmt.Sprintf("tool %q requires agent %q; called with no agent", e.Tool, e.Required)
	}
	return fmt.Sprintf("tool %q requires agent %q; called by agent %q", e.Tool, e.Required, e.Agent)
}

// CheckRequiredAgent returns nil if agent may call the tool def describes:
// the tool declares no required agent, or agent is that one. Otherwise it
// returns a [*RequiredAgentError] naming the tool, the agent it requires
// and the caller.
//
// Both are agent identities, as [Definition.QualifiedName] gives them:
// "<plugin>:<name>" for a plugin (skill) agent, the bare name for the
// user's or a builtin agent. They are compared exactly. A bare name never
// matches a plugin's agent and a plugin's agent never matches another
// plugin's of the same name: names are chosen by whoever wrote the
// definition, so only the identity (where the agent comes from) binds.
// A skill's script names its required agent in skill.toml; the tool's
// RequiredAgent is then already qualified ([skills.Script.RequiredAgentIdentity]).
func CheckRequiredAgent(def host.ToolDef, agent string) error {
	if req := def.RequiredAgent; req != "" && agent != req {
		return &RequiredAgentError{Tool: def.Name, Required: req, Agent: agent}
	}
	return nil
}
