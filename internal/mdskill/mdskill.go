// Package mdskill reads the Markdown skill kinds of AchillesAgentLib
// (the Ploinky agent platform): one Markdown file per skill,
// <dir>/.AchillesSkills/<name>.<kind>.md, each served as the tool
// skill_<name> and run by its kind.
//
// The file's sections, by heading:
//
//	# <name>
//	<the first paragraph: the description>
//	## System Prompt      (default: the description)
//	## Parameters         - `name` (type, required|optional): description
//	## Config             a fenced JSON block: model, temperature, maxTokens
//	## Examples
//	## Tools              mskill: the tools its steps may call, one per item
//	## Orchestration      mskill, oskill: a fenced YAML block of steps
//	                      {tool, params, output}; params may hold
//	                      {{input.x}} and {{steps.name}} templates
//
// Parse is strict and reports every problem with its line, as the
// SKILL.md validator does (skills.Problem). The files are strangers':
// sizes, counts and YAML nesting are bounded, and YAML anchors are
// refused.
package mdskill

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Kind is what a Markdown skill does when called.
type Kind string

// The kinds, AchillesAgentLib's names.
const (
	// KindSkill is one model call with the system prompt and the input.
	KindSkill Kind = "skill"
	// KindCodeGen has the model write JavaScript for the input, run in
	// the JS sandbox.
	KindCodeGen Kind = "cgskill"
	// KindInteractive is a conversation kept across calls by id.
	KindInteractive Kind = "iskill"
	// KindMCP runs declared steps over the tools it lists.
	KindMCP Kind = "mskill"
	// KindOrchestrator chains other skills.
	KindOrchestrator Kind = "oskill"
	// KindTable runs table operations on a workspace database.
	KindTable Kind = "tskill"
)

// Kinds are every kind, in AchillesAgentLib's order.
var Kinds = []Kind{KindSkill, KindCodeGen, KindInteractive, KindMCP, KindOrchestrator, KindTable}

// Folder is the folder of a directory that holds its Markdown skills.
const Folder = ".AchillesSkills"

// A Skill is one parsed Markdown skill.
type Skill struct {
	// Name comes from the file name (<name>.<kind>.md).
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// File is the path the skill was read from.
	File         string  `json:"file"`
	Description  string  `json:"description"`
	SystemPrompt string  `json:"system_prompt"`
	Parameters   []Param `json:"parameters"`
	Config       Config  `json:"config"`
	Examples     string  `json:"examples,omitempty"`
	// Tools are the tools an mskill's steps may call.
	Tools []string `json:"tools,omitempty"`
	// Steps are an mskill's or oskill's orchestration.
	Steps []Step `json:"steps,omitempty"`
	// Fields are a tskill's columns (## Fields, written as parameters),
	// beside the id every row gets.
	Fields []Param `json:"fields,omitempty"`
	// Database is a tskill's database file, relative to the workspace
	// (## Database; default <name>.db).
	Database string `json:"database,omitempty"`
}

// A Param is one line of ## Parameters.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	Line        int    `json:"-"`
}

// Config is the ## Config block: the model settings of the kinds that
// call a model. A zero field is not set.
type Config struct {
	Model       string   `json:"model,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"maxTokens,omitempty"`
}

// A Step is one step of an orchestration: a tool called with params, its
// result kept as output for later steps' {{steps.<output>}}.
type Step struct {
	Tool   string         `json:"tool"`
	Params map[string]any `json:"params,omitempty"`
	Output string         `json:"output,omitempty"`
	Line   int            `json:"-"`
}

// ToolName is the tool a skill is served as: skill_<name>.
func (s *Skill) ToolName() string { return "skill_" + s.Name }

// paramTypes are the JSON Schema types a parameter may have.
var paramTypes = []string{"string", "number", "integer", "boolean", "object", "array"}

// InputSchema is the JSON Schema of the skill's input: an object with a
// property per parameter, the required ones required, nothing else. A
// tskill's input is an operation over its fields instead (TableSchema).
func (s *Skill) InputSchema() json.RawMessage {
	if s.Kind == KindTable {
		return s.tableSchema()
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range s.Parameters {
		prop := map[string]any{"type": p.Type}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		props[p.Name] = prop
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required,
		"additionalProperties": false})
	return b
}

// kindOf reads a file name <name>.<kind>.md.
func kindOf(base string) (name string, kind Kind, err error) {
	rest, ok := strings.CutSuffix(base, ".md")
	if !ok {
		return "", "", fmt.Errorf("%q is not a Markdown skill file (<name>.<kind>.md)", base)
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return "", "", fmt.Errorf("%q names no kind (<name>.<kind>.md, kind one of %s)", base, kindList())
	}
	name, kind = rest[:i], Kind(rest[i+1:])
	if !slices.Contains(Kinds, kind) {
		return "", "", fmt.Errorf("%q: unknown kind %q (one of %s)", base, kind, kindList())
	}
	if !validName(name) {
		return "", "", fmt.Errorf("%q: the name %q must be letters, digits, - and _ (it names the tool skill_%s)", base, name, name)
	}
	return name, kind, nil
}

func kindList() string {
	var k []string
	for _, x := range Kinds {
		k = append(k, string(x))
	}
	return strings.Join(k, ", ")
}

func validName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
