package toolset

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/internal/yamlmod"
	"github.com/skillrun/skillrun/skills"
)

// A Catalog is what a list of roots holds: every kind of skill and tool
// module skillrun serves.
type Catalog struct {
	// Roots are the folders searched, highest precedence first.
	Roots []skills.Root
	// Discovery is what skills.Discover found: the Agent Skills, their
	// problems and the folders that could not be loaded.
	Discovery *skills.Discovery
	// markdown are the Markdown skills (.AchillesSkills) of each root
	// that has any.
	markdown []*markdownRoot
	yaml     []*yamlmod.Set
	agent    *yamlmod.Agent // the YAML agent module this catalog is scoped to
}

// A markdownRoot is a folder's Markdown skills and its models.json.
type markdownRoot struct {
	Dir    string
	Skills []*mdskill.Skill
	models mdskill.Models
	err    error // models.json could not be read: the skills are not served
}

// Discover finds the skills and modules under roots. What is wrong with
// a file is said on warn (nil: discarded), escaped, since it quotes
// strangers' files; a broken file is left out and the rest load.
func Discover(roots []skills.Root, warn io.Writer) *Catalog {
	if warn == nil {
		warn = io.Discard
	}
	// A .AchillesSkills folder may hold Agent Skills (<name>/SKILL.md)
	// beside the Markdown skills: each is searched as a root of its own,
	// right after the root it is in (skills.Discover skips hidden
	// folders, so it is not found twice; a root that is itself a
	// .AchillesSkills folder is searched whole).
	listings := make([]*mdskill.Listing, len(roots))
	var agentRoots []skills.Root
	for i, r := range roots {
		agentRoots = append(agentRoots, r)
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() {
			continue
		}
		l, err := mdskill.List(r.Dir)
		if err != nil {
			fmt.Fprintf(warn, "skillrun: %s: %s\n", termsafe.String(r.Dir), termsafe.String(err.Error()))
			continue
		}
		listings[i] = l
		if filepath.Base(filepath.Clean(r.Dir)) != mdskill.Folder {
			for _, d := range l.AgentSkills {
				agentRoots = append(agentRoots, skills.Root{Dir: d, Origin: r.Origin})
			}
		}
	}
	c := &Catalog{Roots: roots, Discovery: skills.Discover(agentRoots, nil)}
	for i, r := range roots {
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() {
			continue
		}
		if yamlmod.Holds(r.Dir) {
			set, problems := yamlmod.Load(r.Dir)
			for _, p := range problems {
				fmt.Fprintf(warn, "skillrun: %s\n", termsafe.String(p.Error()))
			}
			c.yaml = append(c.yaml, set)
		}
		if listings[i] == nil {
			continue
		}
		list, problems := listings[i].Load()
		for _, p := range problems {
			fmt.Fprintf(warn, "skillrun: %s\n", termsafe.String(p.Error()))
		}
		if len(list) == 0 {
			continue
		}
		mr := &markdownRoot{Dir: r.Dir, Skills: list}
		mr.models, mr.err = mdskill.LoadModels(r.Dir)
		if mr.err != nil {
			fmt.Fprintf(warn, "skillrun: Markdown skills of %s not served: %s\n", termsafe.String(r.Dir), termsafe.String(mr.err.Error()))
		}
		c.markdown = append(c.markdown, mr)
	}
	return c
}

// Skills are the skills the catalog discloses: its Agent Skills and its
// YAML skill modules as Agent Skills (or, scoped to a YAML agent, that
// agent's skills). catalog, search, show, mcp and sessions list these.
func (c *Catalog) Skills() []*skills.Skill {
	if c.agent != nil {
		var out []*skills.Skill
		for _, s := range c.agent.Skills {
			out = append(out, s.AgentSkill())
		}
		return out
	}
	out := slices.Clone(c.Discovery.Skills)
	for _, set := range c.yaml {
		out = append(out, set.AgentSkills()...)
	}
	return out
}

// Empty reports whether the catalog holds nothing at all.
func (c *Catalog) Empty() bool {
	return len(c.Discovery.Skills) == 0 && len(c.markdown) == 0 && len(c.yaml) == 0
}

// tools are the YAML tool modules served: all of them, or those whose
// actions the scoping agent uses.
func (c *Catalog) tools() []*yamlmod.Tool {
	var out []*yamlmod.Tool
	for _, set := range c.yaml {
		for _, t := range set.Tools {
			if c.agent == nil || slices.ContainsFunc(t.Actions, func(a *yamlmod.Action) bool { return slices.Contains(c.agent.Tools, a.ToolName()) }) {
				out = append(out, t)
			}
		}
	}
	return out
}

// protected are the skills' and YAML tool modules' folders: code that
// runs later, which no script or tool may change (named even where
// fsguard would find them: a zipped skill's folder holds no SKILL.md).
func (c *Catalog) protected() []string {
	var out []string
	for _, s := range c.Discovery.Skills {
		out = append(out, filepath.Dir(s.Location))
	}
	for _, set := range c.yaml {
		for _, t := range set.Tools {
			out = append(out, t.Dir)
		}
		for _, sk := range set.Skills {
			if sk.HasExecutor() {
				out = append(out, filepath.Dir(sk.ExecutorSkill().Location))
			}
		}
	}
	return out
}

// Agent finds the YAML agent module called name, and returns it as an
// agent definition (the builtin general agent's prompt and model) with
// the catalog scoped to it: its skills, the tools its actions belong to,
// and no Markdown skills. ok is false when no module has that name.
func (c *Catalog) Agent(name string) (def *agent.Definition, scoped *Catalog, ok bool) {
	for _, set := range c.yaml {
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
		scoped := *c
		scoped.agent, scoped.markdown = a, nil
		return def, &scoped, true
	}
	return nil, nil, false
}

// Of is a catalog of list alone: no roots, no Markdown skills, no YAML
// modules (a caller that loaded its skills itself).
func Of(list []*skills.Skill) *Catalog {
	return &Catalog{Discovery: &skills.Discovery{Skills: list}}
}
