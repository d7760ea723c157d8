package toolset

import (
	"slices"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
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
		var granted capabilities.Set
		if s.cfg.Grant != nil {
			g, err := s.cfg.Grant(t.ScriptSkill())
			if err != nil && strict {
				return err
			} else if err != nil {
				s.warn("%v", err)
				continue
			}
			granted = g
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
	return nil
}
