package toolset

import (
	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Served is the registry a server serves (`skillrun mcp`): every script
// of the catalog's skills under its skill's fixed grant (a server has
// nobody to ask), the shell tool with every served skill mounted, the
// bridged MCP servers' tools, the Markdown skills and the YAML tool
// actions. The core workspace tools are not served: the client has its
// own; Markdown skills' steps still reach them. It is made once;
// [Set.Reload] changes it in place.
func (s *Set) Served() *host.Registry {
	s.servedOnce.Do(func() {
		reg := host.NewRegistry()
		if s.bridge != nil {
			s.addBridge(reg)
		}
		s.addServed(reg, s.Catalog())
		s.mu.Lock()
		s.served = reg
		s.mu.Unlock()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// addServed adds what Served serves of c beside the bridge. A tool
// module whose grant cannot be resolved is said and left out: a server
// goes on serving the rest.
func (s *Set) addServed(reg *host.Registry, c *Catalog) {
	list := c.Skills()
	for _, t := range s.ScriptTools(&agent.Gate{Skills: list, Activated: activatedAll(s.folderSkills)}) {
		if err := reg.Add(t); err != nil {
			s.warn("%s not served: %v", t.Definition().Name, err)
		}
	}
	s.addMarkdown(reg, c)
	_ = s.addYAML(reg, c, false) // not strict: it cannot fail
}

// Reload serves c in place of the catalog served so far: its grants
// resolved again (bound to the skills by identity: a skill that appears
// claiming a granted name gets no grant), its scripts, Markdown skills
// and YAML tools replacing the old ones in the Served registry. A skill
// whose grant cannot be resolved is said and granted nothing.
func (s *Set) Reload(c *Catalog) {
	grants, _ := s.resolve(c, false)
	s.mu.Lock()
	s.catalog, s.grants = c, grants
	reg := s.served
	s.mu.Unlock()
	if reg == nil {
		return
	}
	for _, d := range reg.List() {
		switch d.Source {
		case host.SourceSkill, host.SourceMarkdown, host.SourceYAML:
			reg.Remove(d.Name)
		case host.SourceCore: // the shell tool, made again with the new skills
			reg.Remove(d.Name)
		}
	}
	s.addServed(reg, c)
}

var _ agent.Scripts = (*Set)(nil)

// folderSkills are the served Agent Skills with a folder of their own,
// which the shell tool mounts at /skills/<name>.
func (s *Set) folderSkills() []*skills.Skill { return s.Catalog().Discovery.Skills }
