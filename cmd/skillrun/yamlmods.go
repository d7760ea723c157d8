package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/internal/yamlmod"
)

// hasYAMLModules reports whether dir holds YAML modules: a skills/*/
// skill.yaml, a tools/*/tool.yaml or an agents/*.yaml.
func hasYAMLModules(dir string) bool {
	for _, pattern := range []string{
		filepath.Join(dir, yamlmod.SkillsFolder, "*", yamlmod.SkillFile),
		filepath.Join(dir, yamlmod.ToolsFolder, "*", yamlmod.ToolFile),
		filepath.Join(dir, yamlmod.AgentsFolder, "*.yaml"),
	} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}

// yamlModules loads the YAML skill, tool and agent modules of each root
// that has any. Problems go to stderr, escaped (they quote strangers'
// files); a file with an error is left out, the rest load.
func yamlModules(roots []skills.Root, stderr io.Writer) []*yamlmod.Set {
	var sets []*yamlmod.Set
	for _, r := range roots {
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() || !hasYAMLModules(r.Dir) {
			continue
		}
		set, problems := yamlmod.Load(r.Dir)
		for _, p := range problems {
			fmt.Fprintf(stderr, "skillrun: %s\n", termsafe.String(p.Error()))
		}
		sets = append(sets, set)
	}
	return sets
}

// yamlSkills are the Agent Skills the sets' skill.yaml files are
// disclosed as.
func yamlSkills(sets []*yamlmod.Set) []*skills.Skill {
	var out []*skills.Skill
	for _, set := range sets {
		out = append(out, set.AgentSkills()...)
	}
	return out
}

// yamlTools are the sets' tool modules.
func yamlTools(sets []*yamlmod.Set) []*yamlmod.Tool {
	var out []*yamlmod.Tool
	for _, set := range sets {
		out = append(out, set.Tools...)
	}
	return out
}

// yamlToolDirs are the tool modules' folders: code that runs later, which
// no script or tool may change.
func yamlToolDirs(tools []*yamlmod.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Dir)
	}
	return out
}

// registerYAMLTools serves each action of tools as <tool>__<action>, its
// script run under the grant grantFor gives the tool (a tool module is
// granted as a skill named by its id: deny by default). only, when not
// nil, names the actions to serve (an agent's scope). A tool whose
// actions cannot be served is said on stderr and left out.
func registerYAMLTools(rt *scripts.Runner, reg *host.Registry, tools []*yamlmod.Tool, only []string,
	grantFor func(*skills.Skill) capabilities.Set, opts *scripts.ToolOptions, stderr io.Writer) {
	for _, t := range tools {
		for _, ht := range t.HostTools(rt, grantFor(t.ScriptSkill()), opts) {
			if only != nil && !slices.Contains(only, ht.Definition().Name) {
				continue
			}
			if err := reg.Add(ht); err != nil {
				fmt.Fprintf(stderr, "skillrun: %s not served: %s\n", termsafe.String(ht.Definition().Name), termsafe.String(err.Error()))
			}
		}
	}
}

// removeSource removes every tool of source from reg (before a reload
// adds them again).
func removeSource(reg *host.Registry, source string) {
	for _, d := range reg.List() {
		if d.Source == source {
			reg.Remove(d.Name)
		}
	}
}

// yamlAgent finds the agent module called name. Its scope is its skills
// and tools: the session discloses only those skills and serves only
// those tools (with the core tools), and otherwise behaves as the
// builtin general agent.
func yamlAgent(sets []*yamlmod.Set, name string) (*agent.Definition, *yamlmod.Agent) {
	for _, set := range sets {
		a := set.Agent(name)
		if a == nil {
			continue
		}
		def := &agent.Definition{Name: a.ID, Source: agent.SourceUser, File: a.File,
			Description: fmt.Sprintf("The agent %s of %s: skills %v, tools %v.", a.ID, a.File, a.SkillNames(), a.Tools)}
		for _, b := range agent.Builtin() {
			if b.Name == "general" {
				def.Prompt, def.Model, def.Temperature, def.ReasoningEffort = b.Prompt, b.Model, b.Temperature, b.ReasoningEffort
			}
		}
		return def, a
	}
	return nil, nil
}

// scopeToAgent keeps, of the YAML modules, only what agent a uses: its
// skills (as Agent Skills) and the tools its actions belong to.
func scopeToAgent(a *yamlmod.Agent, tools []*yamlmod.Tool) ([]*skills.Skill, []*yamlmod.Tool) {
	var sks []*skills.Skill
	for _, s := range a.Skills {
		sks = append(sks, s.AgentSkill())
	}
	var keep []*yamlmod.Tool
	for _, t := range tools {
		for _, act := range t.Actions {
			if slices.Contains(a.Tools, act.ToolName()) {
				keep = append(keep, t)
				break
			}
		}
	}
	return sks, keep
}
