package yamlmod

import (
	"encoding/json"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Source is the [host.ToolDef].Source of the tools an action becomes
// ([Tool.HostTools]): [host.SourceYAML]. It is not "skill", so that code
// replacing a registry's Agent Skills scripts (source "skill") leaves
// these alone.
const Source = host.SourceYAML

// The folders of a module directory, and the file each entry holds.
const (
	SkillsFolder = "skills" // skills/<id>/skill.yaml
	ToolsFolder  = "tools"  // tools/<id>/tool.yaml and the action scripts
	AgentsFolder = "agents" // agents/<id>.yaml
	SkillFile    = "skill.yaml"
	ToolFile     = "tool.yaml"
)

// A Set is what [Load] found in one directory: the skills, tools and
// agents that loaded without errors, each sorted by id. A Set is
// immutable and safe for concurrent use.
type Set struct {
	// Dir is the directory as given to Load.
	Dir    string
	Skills []*Skill
	Tools  []*Tool
	Agents []*Agent
}

// Skill returns the skill id, or nil.
func (s *Set) Skill(id string) *Skill {
	for _, sk := range s.Skills {
		if sk.ID == id {
			return sk
		}
	}
	return nil
}

// Tool returns the tool id, or nil.
func (s *Set) Tool(id string) *Tool {
	for _, t := range s.Tools {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// Agent returns the agent id, or nil: the skills and tools a session of
// that agent is restricted to.
func (s *Set) Agent(id string) *Agent {
	for _, a := range s.Agents {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// AgentSkills returns every skill as an Agent Skill, in order, for
// [host.DisclosureTools] and the catalog (see [Skill.AgentSkill]).
func (s *Set) AgentSkills() []*skills.Skill {
	out := make([]*skills.Skill, len(s.Skills))
	for i, sk := range s.Skills {
		out[i] = sk.AgentSkill()
	}
	return out
}

// A Skill is one skills/<id>/skill.yaml: a methodology for the model to
// follow, disclosed like any Agent Skill ([Skill.AgentSkill]). It is
// immutable once loaded and safe for concurrent use.
type Skill struct {
	ID       string   `json:"id"`
	Version  string   `json:"version,omitempty"`
	Category string   `json:"category,omitempty"`
	Triggers []string `json:"triggers"`
	// InputSchema and OutputSchema are the skill's JSON Schemas (nil when
	// not given); [Skill.CheckOutput] checks an output against the latter.
	InputSchema    json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema   json.RawMessage `json:"output_schema,omitempty"`
	Methodology    []Step          `json:"methodology"`
	BestPractices  []string        `json:"best_practices,omitempty"`
	CommonPitfalls []string        `json:"common_pitfalls,omitempty"`
	// File is the skill.yaml's path, as found under the Set's Dir.
	File string `json:"file"`

	tools    []string           // the host tool names its steps name, resolved
	out      *jsonschema.Schema // OutputSchema compiled; nil for none
	agent    *skills.Skill      // the disclosed form
	executor *skills.Skill      // its executor.py as a runnable skill; nil for none
}

// A Step is one step of a skill's methodology.
type Step struct {
	// Step is the step's title, or its number, as written ("" if none).
	Step        string `json:"step,omitempty"`
	Description string `json:"description"`
	// Tools are the tools the step uses, as written: a tool's id (all
	// its actions), <tool>.<action> or <tool>__<action>.
	Tools           []string `json:"tools,omitempty"`
	DecisionFactors []string `json:"decision_factors,omitempty"`
	Line            int      `json:"-"`
}

// ToolNames returns the host tools ([Tool.HostTools]) the skill's steps
// name, sorted; names that resolve to no loaded tool are left out (Load
// warned of them). A session that activates the skill makes these
// available.
func (s *Skill) ToolNames() []string { return append([]string(nil), s.tools...) }

// AgentSkill returns the skill in the form the catalog and
// [host.DisclosureTools] serve: an instructions-only [skills.Skill] over
// an in-memory folder holding a SKILL.md made from the skill.yaml (name
// the id; description from category and triggers; body the methodology,
// best practices, pitfalls, schemas and tools), a skill.toml carrying the
// triggers as search words, and the skill.yaml itself. Its Location is
// the skill.yaml's absolute path.
func (s *Skill) AgentSkill() *skills.Skill { return s.agent }

// A Tool is one tools/<id>/tool.yaml: actions a model calls, each run as
// a script of the tool's folder in the sandbox ([Tool.HostTools]). It is
// immutable once loaded and safe for concurrent use.
type Tool struct {
	ID       string    `json:"id"`
	Version  string    `json:"version,omitempty"`
	Category string    `json:"category,omitempty"`
	Actions  []*Action `json:"actions"`
	// Constraints are told to the model in each action's description.
	Constraints []string `json:"constraints,omitempty"`
	// File is the tool.yaml's path, as found under the Set's Dir; Dir is
	// the tool's folder, absolute with links resolved, where its scripts
	// run from.
	File string `json:"file"`
	Dir  string `json:"dir"`

	requires []Requirement
	skill    *skills.Skill // the folder as a skill with a generated manifest
	wrapper  bool          // the folder has a wrapper.py
}

// Requires returns the tool's requires list, each entry checked: an
// interpreter (python3, node, bash, sh and their variants) is met when
// skillrun's interpreter for it is installed; anything else is not met,
// since an action's sandbox has nothing but that interpreter.
func (t *Tool) Requires() []Requirement { return append([]Requirement(nil), t.requires...) }

// ScriptSkill returns the [skills.Skill] the tool's actions run as: the
// tool's folder with a generated skill.toml that declares one script per
// action (named as [Action.Script] says) and, like a published skill's
// script files, reading the skill and reading and writing the workspace,
// nothing more. Resolve its grant as for any skill (scripts.Resolve).
func (t *Tool) ScriptSkill() *skills.Skill { return t.skill }

// A Requirement is one entry of a tool's requires list, checked.
type Requirement struct {
	// Name is the entry as written ("python3>=3.10", "git").
	Name string `json:"name"`
	// Met says whether skillrun can provide it; Reason says how, or why
	// not.
	Met    bool   `json:"met"`
	Reason string `json:"reason"`
}

// An Action is one action of a tool: plain data, not to be modified.
type Action struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  []Param `json:"parameters,omitempty"`
	// Returns says what the action returns, as written: text, or a
	// mapping given as its JSON.
	Returns string `json:"returns,omitempty"`
	// Script is the file that implements the action, relative to the
	// tool's folder: <action>.{py,js,sh,wasm}, or the same in scripts/,
	// or the folder's wrapper.py.
	Script string `json:"script"`
	Line   int    `json:"-"`

	tool       string // the tool's id
	key        string // the script's name in the generated skill.toml
	viaWrapper bool   // Script is the tool's wrapper.py
}

// ToolName is the name the action is served under: <tool>__<action>.
func (a *Action) ToolName() string { return a.tool + "__" + a.Name }

// Implemented reports whether the action has its script: one declared in
// tool.yaml before it is written is listed (with a warning) and not
// served.
func (a *Action) Implemented() bool { return a.Script != "" }

// A Param is one parameter of an action.
type Param struct {
	Name string `json:"name"`
	// Type is a JSON Schema type: string, number, integer, boolean,
	// object or array.
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
	// Default is the JSON of the default value, or nil.
	Default json.RawMessage `json:"default,omitempty"`
}

// An Agent is one agents/<id>.yaml: the skills and tools a session of
// the agent may use. It is immutable once loaded and safe for concurrent
// use.
type Agent struct {
	ID     string   `json:"id"`
	Skills []*Skill `json:"skills"`
	// Tools are the host tool names ([Action.ToolName]) of the tools
	// listed: every action of a tool named by id, or the one action of
	// <tool>.<action>; sorted.
	Tools []string `json:"tools"`
	File  string   `json:"file"`
}

// SkillNames returns the ids of the agent's skills, which are also the
// names their Agent Skills are disclosed under.
func (a *Agent) SkillNames() []string {
	out := make([]string, len(a.Skills))
	for i, s := range a.Skills {
		out[i] = s.ID
	}
	return out
}

// Holds reports whether dir holds YAML modules: a skills/*/skill.yaml, a
// tools/*/tool.yaml or an agents/*.yaml.
func Holds(dir string) bool {
	for _, pattern := range []string{
		filepath.Join(dir, SkillsFolder, "*", SkillFile),
		filepath.Join(dir, ToolsFolder, "*", ToolFile),
		filepath.Join(dir, AgentsFolder, "*.yaml"),
	} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}
