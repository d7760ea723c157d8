package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
	mdrun "github.com/skillrun/skillrun/internal/mdskill/run"
)

// addMarkdown adds c's Markdown skills (.AchillesSkills) to reg as
// skill_<name>, each folder's run by a runner whose steps call reg itself
// (so an oskill reaches the other skills and the served tools) and the
// core workspace tools, whose tskills keep their tables in the workspace,
// and whose models come from the folder's models.json. A skill that
// cannot be served is said and left out; the others still are.
func (s *Set) addMarkdown(reg *host.Registry, c *Catalog) {
	// The steps reach the served tools and skillrun's own (the workspace
	// tools under the operator's grant), which a server does not serve.
	steps := host.NewRegistry()
	for _, t := range s.core {
		_ = steps.Add(t)
	}
	caller := fallback{steps, reg}
	for _, root := range c.markdown {
		if root.err != nil {
			continue
		}
		r := &mdrun.Runner{Provider: modelProvider(root.models), Tools: caller, Scripts: s.cfg.Runner, Workspace: s.ws}
		for _, sk := range root.Skills {
			if err := reg.Add(r.Tool(sk)); err != nil {
				s.warn("%s not served: %v", sk.File, err)
			}
		}
	}
}

// modelProvider resolves a Markdown skill's model name: its models.json
// entry (the entry "default" for a skill that names none), else, for a
// name that says its maker (claude-..., gpt-...), that provider from the
// environment as `skillrun session` reads it.
func modelProvider(models mdskill.Models) func(string) (agent.Provider, error) {
	return func(name string) (agent.Provider, error) {
		key := name
		if key == "" {
			key = "default"
		}
		m, ok := models[key]
		if !ok {
			switch {
			case strings.HasPrefix(name, "claude"):
				m = mdskill.Model{Provider: "anthropic", Model: name}
			case strings.HasPrefix(name, "gpt") || strings.HasPrefix(name, "o1") || strings.HasPrefix(name, "o3"):
				m = mdskill.Model{Provider: "openai", Model: name}
			default:
				return nil, fmt.Errorf("model %q is not in %s/%s; add it there ({\"provider\": ..., \"model\": ...})", key, mdskill.Folder, mdskill.ModelsFile)
			}
		}
		if m.Provider == "scripted" {
			if m.Plan == "" {
				return nil, fmt.Errorf("model %q: the scripted provider needs a plan", key)
			}
			p, err := agent.LoadPlan(m.Plan)
			if err != nil {
				return nil, err
			}
			return agent.NewScripted(p), nil
		}
		o := providers.FromEnv(providers.Options{BaseURL: m.BaseURL, Model: m.Model}, m.Provider)
		if m.APIKeyEnv != "" {
			o.APIKey = os.Getenv(m.APIKeyEnv)
		}
		if m.Provider == "anthropic" {
			return providers.NewAnthropic(o)
		}
		return providers.NewOpenAI(o)
	}
}

// fallback calls a tool of first, or of second when first has none. It
// lists and looks up the same way, so that an oskill's session can offer
// the tools (mdrun.ToolSource).
type fallback struct{ first, second *host.Registry }

func (f fallback) Call(ctx context.Context, name string, input json.RawMessage) (*host.ToolResult, error) {
	if _, ok := f.first.Lookup(name); ok {
		return f.first.Call(ctx, name, input)
	}
	return f.second.Call(ctx, name, input)
}

func (f fallback) Lookup(name string) (host.Tool, bool) {
	if t, ok := f.first.Lookup(name); ok {
		return t, true
	}
	return f.second.Lookup(name)
}

func (f fallback) List() []host.ToolDef {
	out := f.first.List()
	for _, d := range f.second.List() {
		if _, ok := f.first.Lookup(d.Name); !ok {
			out = append(out, d)
		}
	}
	return out
}

var _ mdrun.ToolSource = fallback{}
