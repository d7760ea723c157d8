package toolset

import (
	"slices"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// addYAML serves each action of c's YAML tool modules as
// <tool>__<action> (only those the scoping agent uses), its script run
// under the grant of the skill the tool module is granted as (deny by
// default). A tool whose actions cannot be served is said and left out.
// strict: a module whose grant cannot be resolved is an error;
// otherwise it is said and left out.
func (s *Set) addYAML(reg *host.Registry, c *Catalog, strict bool) error {
	opts := &scripts.ToolOptions{Services: s.services(nil)}
	for _, t := range c.tools() {
		granted, ok, err := s.moduleGrant(t.ScriptSkill(), strict)
		if err != nil {
			return err
		} else if !ok {
			continue
		}
		for _, ht := range t.HostTools(s.cfg.Runner, granted, opts) {
			name := ht.Definition().Name
			if c.agent != nil && !slices.Contains(c.agent.Tools, name) {
				continue
			}
			if err := reg.Add(ht); err != nil {
				s.warn("%s not served: %v", name, err)
			}
		}
	}
	return s.addExecutors(reg, c, strict)
}

// addExecutors serves each YAML skill that comes with an executor.py
// (only the scoping agent's) as <id>__execute, run under the grant of the
// skill its executor is granted as (deny by default). Its tool calls
// reach the served tools and skillrun's own, each checked against that
// grant's tools.
func (s *Set) addExecutors(reg *host.Registry, c *Catalog, strict bool) error {
	core := host.NewRegistry()
	for _, t := range s.core {
		_ = core.Add(t)
	}
	opts := &scripts.ToolOptions{Services: s.services(fallback{core, reg})}
	for _, set := range c.yaml {
		for _, sk := range set.Skills {
			if !sk.HasExecutor() || c.agent != nil && !slices.Contains(c.agent.SkillNames(), sk.ID) {
				continue
			}
			granted, ok, err := s.moduleGrant(sk.ExecutorSkill(), strict)
			if err != nil {
				return err
			} else if !ok {
				continue
			}
			if err := reg.Add(sk.HostTool(s.cfg.Runner, granted, opts)); err != nil {
				s.warn("%s not served: %v", sk.ToolName(), err)
			}
		}
	}
	return nil
}

// moduleGrant is the grant of a YAML module's scripts, as the skill sk
// (nothing without a Grant). A grant that cannot be resolved is an error
// when strict; otherwise it is said, and ok is false: the module is left
// out.
func (s *Set) moduleGrant(sk *skills.Skill, strict bool) (granted capabilities.Set, ok bool, err error) {
	if s.cfg.Grant == nil {
		return capabilities.Set{}, true, nil
	}
	g, err := s.cfg.Grant(sk)
	if err != nil && strict {
		return capabilities.Set{}, false, err
	} else if err != nil {
		s.warn("%v", err)
		return capabilities.Set{}, false, nil
	}
	return g, true, nil
}
