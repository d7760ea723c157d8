package yamlmod

import "slices"

var agentKeys = []string{"id", "skills", "tools"}

// loadAgent reads and checks agents/<id>.yaml; nil when it has an error,
// such as naming a skill or tool that did not load.
func (l *loader) loadAgent(id, rel string) *Agent {
	data, p := l.readModule(rel)
	if p == nil {
		return nil
	}
	defer func() { l.problems = append(l.problems, sorted(p.problems)...) }()
	f := p.document(data, "agent", agentKeys)
	if f == nil {
		return nil
	}
	a := &Agent{File: p.file, Skills: []*Skill{}, Tools: []string{}}
	a.ID = p.id(f, id, "file name")
	skillRefs := p.list(f, "skills", maxList)
	toolRefs := p.list(f, "tools", maxList)
	if p.failed() {
		return nil
	}
	for _, it := range skillRefs {
		s := l.set.Skill(it.s)
		switch {
		case s == nil && l.brokenSkills[it.s]:
			p.errf(it.line, "agent.skills", "skill %q did not load (see the problems of its %s)", it.s, SkillFile)
		case s == nil:
			p.errf(it.line, "agent.skills", "no %s/%s/%s: the agent names skill %q, which does not exist", SkillsFolder, it.s, SkillFile, it.s)
		case slices.Contains(a.Skills, s):
			p.errf(it.line, "agent.skills", "skill %s again", it.s)
		default:
			a.Skills = append(a.Skills, s)
		}
	}
	for _, it := range toolRefs {
		names, why := l.resolveTool(it.s)
		if why != "" {
			p.errf(it.line, "agent.tools", "the agent names tool %q: %s", it.s, why)
			continue
		}
		a.Tools = append(a.Tools, names...)
	}
	if p.failed() {
		return nil
	}
	slices.Sort(a.Tools)
	a.Tools = slices.Compact(a.Tools)
	for _, s := range a.Skills {
		for _, name := range s.tools {
			if !slices.Contains(a.Tools, name) {
				p.warnf(f.lineOf("tools"), "agent.tools", "skill %s's steps use %s, which the agent does not list: its sessions will not have it", s.ID, name)
			}
		}
	}
	if len(skillRefs) == 0 && len(toolRefs) == 0 {
		p.warnf(f.line, "agent", "the agent lists no skills and no tools: a session of it gets none of this folder's")
	}
	return a
}
