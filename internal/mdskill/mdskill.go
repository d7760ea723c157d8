// Package mdskill reads the Markdown skill kinds of AchillesAgentLib
// (the Ploinky agent platform), each served as the tool skill_<name> and
// run by its kind. A skill is one Markdown file in either layout:
//
//	<dir>/.AchillesSkills/<name>.<kind>.md      the flat layout
//	<dir>/.AchillesSkills/<name>/<kind>.md      the folder layout (the
//	                                            folder names the skill;
//	                                            folders without one may
//	                                            group skill folders)
//
// A skill folder may also hold SKILL.md: an Agent Skill, which package
// skills loads (List reports those folders), and a cskill's specs/.
//
// The file's sections, by heading (the key is the heading lower-cased,
// runs of other characters than letters and digits made one -, as
// AchillesAgentLib keys them; aliases in parentheses):
//
//	# <title>            the name, or (folder layout) a display title
//	<the first paragraph: the description; else ## Description, ## Summary
//	 or, for a tskill, ## Table Purpose>
//	## System Prompt      (Prompt) default: the description
//	## Parameters         - `name` (type, required|optional): description
//	## Config             a fenced JSON block: model, temperature, maxTokens
//	## Examples, ## Help  shown, never run
//	## Tools              (Allowed Tools) mskill: the tools its steps call
//	## Orchestration      mskill, oskill: a fenced YAML block of steps
//	                      {tool, params, output}; params may hold
//	                      {{input.x}} and {{steps.name}} templates
//	## Instructions       oskill without steps: what its session does
//	## Allowed Skills     oskill without steps: the skills it may call
//	## Allowed Agents     oskill: Ploinky agents (recorded, not reached)
//	## Preparation, ## Allowed Preparation Skills, ## Session Type
//	## Input Format, ## Output Format, ## Constraints   cskill
//	## Fields, ## Database, ## Table Purpose            tskill (table.go)
//
// Parse is strict and reports every problem with its line, as the
// SKILL.md validator does (skills.Problem). The files are strangers':
// sizes, counts, depth and YAML nesting are bounded, YAML anchors are
// refused, and no file is read through a symbolic link leading out of its
// folder.
package mdskill

import (
	"encoding/json"
	"fmt"
	"path/filepath"
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
	// KindCode is AchillesAgentLib's code skill, whose module upstream
	// builds from its specs. skillrun runs it as a cgskill: the model
	// writes the code for each call from the descriptor's sections and
	// the specs, and the code runs in the JS sandbox.
	KindCode Kind = "cskill"
	// KindInteractive is a conversation kept across calls by id.
	KindInteractive Kind = "iskill"
	// KindMCP runs declared steps over the tools it lists.
	KindMCP Kind = "mskill"
	// KindOrchestrator chains other skills: the steps of its
	// ## Orchestration, or, without one, a model session whose tools are
	// the skills it allows.
	KindOrchestrator Kind = "oskill"
	// KindTable runs table operations on a workspace database.
	KindTable Kind = "tskill"
)

// Kinds are every kind, in AchillesAgentLib's order.
var Kinds = []Kind{KindSkill, KindCodeGen, KindCode, KindInteractive, KindMCP, KindOrchestrator, KindTable}

// FolderKinds are the kinds a skill folder's descriptor may name
// (<kind>.md): every kind but skill, since a folder's skill.md is, like
// SKILL.md, an Agent Skill.
var FolderKinds = []Kind{KindCodeGen, KindCode, KindInteractive, KindMCP, KindOrchestrator, KindTable}

// Folder is the folder of a directory that holds its Markdown skills.
const Folder = ".AchillesSkills"

// A Skill is one parsed Markdown skill.
type Skill struct {
	// Name comes from the file name (<name>.<kind>.md) or, in the folder
	// layout, the folder's (<name>/<kind>.md).
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// File is the path the skill was read from.
	File string `json:"file"`
	// Dir is the skill's folder in the folder layout ("" for a flat file).
	Dir string `json:"dir,omitempty"`
	// Title is the # heading: the name, or in the folder layout a display
	// title ("Customers Skill").
	Title        string  `json:"title,omitempty"`
	Description  string  `json:"description"`
	SystemPrompt string  `json:"system_prompt"`
	Parameters   []Param `json:"parameters"`
	Config       Config  `json:"config"`
	Examples     string  `json:"examples,omitempty"`
	// Help is ## Help: how a user invokes the skill (shown, never run).
	Help string `json:"help,omitempty"`
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
	// TablePurpose is a tskill's ## Table Purpose.
	TablePurpose string `json:"table_purpose,omitempty"`
	// KeyField is a tskill field declared the primary key with a
	// generated value (#### PrimaryKey: auto-increment, ...): it is the
	// row's id, not a column of its own.
	KeyField string `json:"key_field,omitempty"`

	// Instructions are ## Instructions: what an oskill's session does.
	Instructions string `json:"instructions,omitempty"`
	// Preparation is an oskill's ## Preparation, done first.
	Preparation string `json:"preparation,omitempty"`
	// AllowedSkills are the skills an oskill's session may call (none
	// listed: every Markdown skill served beside it).
	AllowedSkills []string `json:"allowed_skills,omitempty"`
	// AllowedPrepSkills are the skills its preparation may call (nil: no
	// section, the allowed skills).
	AllowedPrepSkills []string `json:"allowed_prep_skills,omitempty"`
	// AllowedAgents are the Ploinky agents an oskill names. skillrun
	// reaches none; a caller that can may offer them.
	AllowedAgents []string `json:"allowed_agents,omitempty"`
	// SessionType is an oskill's ## Session Type ("loop", "soplang");
	// skillrun runs every session as a loop.
	SessionType string `json:"session_type,omitempty"`

	// InputFormat, OutputFormat and Constraints are a cskill's sections.
	InputFormat  string `json:"input_format,omitempty"`
	OutputFormat string `json:"output_format,omitempty"`
	Constraints  string `json:"constraints,omitempty"`
	// Specs are a folder cskill's specs/ files, which its model reads.
	Specs []Spec `json:"specs,omitempty"`
}

// A Spec is one file of a cskill's specs/ folder.
type Spec struct {
	// Path is the file's path in the skill's folder (specs/index.mjs.md).
	Path string `json:"path"`
	Text string `json:"text"`
}

// Session reports whether s runs as a model session: an oskill without
// ## Orchestration.
func (s *Skill) Session() bool { return s.Kind == KindOrchestrator && len(s.Steps) == 0 }

// A Param is one line of ## Parameters, or one field of a tskill (a line
// of ## Fields, or a ### field section with its #### parts, which set the
// column's other attributes).
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	Line        int    `json:"-"`

	// Aliases are other names a field goes by (#### Aliases), told to
	// the model; the input still names the field.
	Aliases []string `json:"aliases,omitempty"`
	// Validator is #### Field Value Validator: the rule in words, told
	// to the model (Enum, Pattern and the lengths are the checked rules).
	Validator string `json:"validator,omitempty"`
	// Unique: no two rows share the value (#### Unique, a primary key
	// whose value is given).
	Unique bool `json:"unique,omitempty"`
	// Enum are the values allowed (#### Field Value Enumerator holding a
	// JSON list).
	Enum []any `json:"enum,omitempty"`
	// Pattern, MinLength and MaxLength bound a string value.
	Pattern   string `json:"pattern,omitempty"`
	MinLength int    `json:"min_length,omitempty"`
	MaxLength int    `json:"max_length,omitempty"`
	// Default is #### Default in words, told to the model.
	Default string `json:"default,omitempty"`
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

// kindOf reads a skill's path: .../<name>.<kind>.md, or in the folder
// layout .../<name>/<kind>.md (folder is then set).
func kindOf(file string) (name string, kind Kind, folder bool, err error) {
	base := filepath.Base(file)
	stem := strings.TrimSuffix(base, ".md")
	switch {
	case base == "SKILL.md" || base == "skill.md":
		return "", "", false, fmt.Errorf("%q is an Agent Skill, which package skills loads, not a Markdown skill kind", base)
	case stem != base && slices.Contains(FolderKinds, Kind(stem)):
		dir := filepath.Base(filepath.Dir(filepath.Clean(file)))
		switch {
		case dir == Folder || dir == "." || dir == string(filepath.Separator):
			return "", "", false, fmt.Errorf("%q names no skill: put it in the skill's folder, %s/<name>/%s, or name it <name>.%s", base, Folder, base, base)
		case !validName(dir):
			return "", "", false, fmt.Errorf("the folder name %q must be letters, digits, - and _ (it names the tool skill_%s)", dir, dir)
		}
		return dir, Kind(stem), true, nil
	}
	name, kind, err = flatKindOf(base)
	return name, kind, false, err
}

// flatKindOf reads a file name <name>.<kind>.md.
func flatKindOf(base string) (name string, kind Kind, err error) {
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

// CodePrompt is the system prompt of a cskill's model: the skill's
// sections and specifications, and how to answer, as a cgskill's model
// answers (one JavaScript function body, run in the sandbox).
func (s *Skill) CodePrompt() string {
	var b strings.Builder
	fmt.Fprintf(&b, "You write the JavaScript that does what the code skill %s does, for one call.\n\n%s\n", s.Name, s.Description)
	part := func(title, text string) {
		if text != "" {
			fmt.Fprintf(&b, "\n# %s\n\n%s\n", title, text)
		}
	}
	if s.SystemPrompt != s.Description {
		part("Prompt", s.SystemPrompt)
	}
	part("Instructions", s.Instructions)
	part("Input format", s.InputFormat)
	part("Output format", s.OutputFormat)
	part("Constraints", s.Constraints)
	for _, sp := range s.Specs {
		part("Specification "+sp.Path, sp.Text)
	}
	var params []string
	for _, p := range s.Parameters {
		params = append(params, p.Name)
	}
	fmt.Fprintf(&b, "\n# How to answer\n\nWrite the body of one JavaScript function that takes `input`, the call's arguments "+
		"as a JSON object (%s), and returns the result: a string, or a value returned as its JSON. "+
		"The code runs in a sandbox with no network and no files; the specifications may describe modules "+
		"and an action(args) entry point: do what they describe inside this one body. "+
		"Answer with the code in one ```javascript block.\n", strings.Join(params, ", "))
	return b.String()
}
