package scripts

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/skills"
)

// A SkillIndex is a [host.SkillIndex] over a set of loaded skills: guests
// search it (levels 1 and 2 of progressive disclosure), read its skills'
// files (level 3) and run their scripts with skill_run, each run under
// the grant Granted gives its skill. The host checks the caller's skills
// grant and the nesting depth before RunScript is called.
//
// Set the exported fields before the first use and do not change them
// afterwards; a SkillIndex is then safe for concurrent use.
type SkillIndex struct {
	// Services are what the scripts run by RunScript reach beyond their
	// sandbox (see [ScriptRun]). Services.Skills is ignored: those runs'
	// skill_run is served by this index.
	host.Services

	r       *Runner
	byName  map[string]*skills.Skill
	granted func(skill string) capabilities.Set

	// index is built on the first Search: only a guest's skills_search
	// needs it, and a session or server already has the disclosure
	// tools' index (building one over 166 skills takes about 85 ms).
	index func() *skills.Index
}

var _ host.SkillIndex = (*SkillIndex)(nil)

// NewSkillIndex returns a SkillIndex over list (nil entries are skipped;
// of two skills with one name, the first wins) whose scripts run in r.
// granted says what the operator grants each skill's scripts when another
// script runs them; nil grants nothing (the runs get declared ∩ nothing).
func NewSkillIndex(r *Runner, list []*skills.Skill, granted func(skill string) capabilities.Set) *SkillIndex {
	x := &SkillIndex{r: r, byName: map[string]*skills.Skill{}, granted: granted}
	var kept []*skills.Skill
	for _, s := range list {
		if s == nil {
			continue
		}
		if _, dup := x.byName[s.Name]; dup {
			continue
		}
		x.byName[s.Name] = s
		kept = append(kept, s)
	}
	x.index = sync.OnceValue(func() *skills.Index { return skills.NewIndex(kept) })
	return x
}

// skill returns the skill called name, or a not_found error.
func (x *SkillIndex) skill(name string) (*skills.Skill, error) {
	s, ok := x.byName[name]
	if !ok {
		return nil, fmt.Errorf("no skill %q in this host's catalog: %w", name, fs.ErrNotExist)
	}
	return s, nil
}

// Search returns at most limit skills matching query, best first.
func (x *SkillIndex) Search(query string, limit int) ([]host.SkillInfo, error) {
	if strings.TrimSpace(query) == "" {
		return nil, abi.Errorf(abi.CodeInvalid, "skills_search: empty query")
	}
	if limit <= 0 {
		limit = skills.DefaultSearchLimit
	}
	found, err := x.index().Search(query, &skills.SearchOptions{Limit: limit})
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalid, "skills_search: %v", err)
	}
	out := make([]host.SkillInfo, len(found))
	for i, f := range found {
		out[i] = host.SkillInfo{Name: f.Name, Description: f.Description}
	}
	return out, nil
}

// Activate returns the SKILL.md body of the skill called name and its
// files.
func (x *SkillIndex) Activate(name string) (string, []string, error) {
	s, err := x.skill(name)
	if err != nil {
		return "", nil, err
	}
	a, err := s.Activate()
	if err != nil {
		return "", nil, err
	}
	return a.Body, a.Files, nil
}

// ReadResource reads one file of a skill, confined to it.
func (x *SkillIndex) ReadResource(skill, path string) ([]byte, error) {
	s, err := x.skill(skill)
	if err != nil {
		return nil, err
	}
	return s.ReadResource(path)
}

// RunScript runs script of skill with input (given to the input host
// function and as stdin; for a script without an input schema, its "args"
// and "stdin" are the command line, as for [ScriptTool]) at nesting depth
// depth, under the grant of that skill, and returns what it wrote as a
// tool result.
// The run may itself search and run skills of x.
func (x *SkillIndex) RunScript(ctx context.Context, skill, script string, input json.RawMessage, depth int) (*host.ToolResult, error) {
	s, err := x.skill(skill)
	if err != nil {
		return nil, err
	}
	sc, _, err := declaredOf(s, script)
	if err != nil {
		return nil, abi.Errorf(abi.CodeNotFound, "skill_run: %v", err)
	}
	var granted capabilities.Set
	if x.granted != nil {
		granted = x.granted(skill)
	}
	sr := &ScriptRun{
		Services: x.runServices(), // RunScript builds the workspace tools
		Granted:  granted,
		Input:    input,
		Stdin:    strings.NewReader(string(input)),
		Depth:    depth,
	}
	if sc.InputSchema == "" { // a command-line script, as its tool takes it
		sr.Args, sr.Stdin = commandLine(input)
	}
	return RunAsTool(ctx, x.r, s, script, sr)
}

// runServices are the services of a run this index starts: its own, with
// skill_run served by the index itself.
func (x *SkillIndex) runServices() host.Services {
	svc := x.Services
	svc.Skills = x
	return svc
}
