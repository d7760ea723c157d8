package mdskill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/skills"
)

// Bounds of a Markdown skill file: it is a stranger's.
const (
	MaxFile       = 1 << 20
	maxParams     = 64
	maxSteps      = 64
	maxTools      = 256
	maxYAMLDepth  = 16
	maxConfigSize = 64 << 10
)

// A section is the text under one heading.
type section struct {
	title string
	line  int // the heading's line
	lines []string
	first int // the line of lines[0]
}

// Parse reads a Markdown skill. file is its path: the name and kind come
// from its base name (<name>.<kind>.md) or, for a descriptor <kind>.md,
// from its folder's name (the folder layout). Every problem found is
// returned, each with its line; the skill is nil when any is an error.
func Parse(data []byte, file string) (*Skill, skills.Problems) {
	p := &parser{file: file}
	name, kind, folder, err := kindOf(file)
	if err != nil {
		p.errf(0, "kind", "%v", err)
		return nil, p.problems
	}
	if len(data) > MaxFile {
		p.errf(0, "", "%d bytes, over the %d-byte limit for a Markdown skill", len(data), MaxFile)
		return nil, p.problems
	}
	if !utf8.Valid(data) {
		p.errf(0, "", "not UTF-8 text")
		return nil, p.problems
	}
	data = trimBOM(data)
	s := &Skill{Name: name, Kind: kind, File: file, Parameters: []Param{}}
	if folder {
		s.Dir = filepath.Dir(file)
	}
	title, sections := split(string(data))
	switch {
	case title == nil:
		p.errf(1, "title", "no `# %s` heading: a Markdown skill starts with its name as the title", name)
	case strings.TrimSpace(title.title) != name && !folder:
		// In the folder layout the folder names the skill and the title
		// is a display title, as AchillesAgentLib has it.
		p.warnf(title.line, "title", "the title %q is not the file's name %q; the file's name is the skill's", title.title, name)
	}
	if title != nil {
		s.Title = strings.TrimSpace(title.title)
		s.Description = firstParagraph(title.lines)
	}
	seen := map[string]int{}
	text := map[string]string{} // the sections kept as text, by key
	for _, sec := range sections {
		key := sectionKey(sec.title)
		if canon, ok := sectionAliases[key]; ok {
			key = canon
		}
		if first, dup := seen[key]; dup {
			p.errf(sec.line, key, "a second ## %s section (the first is on line %d)", sec.title, first)
			continue
		}
		seen[key] = sec.line
		switch key {
		case "parameters":
			s.Parameters = p.params(sec, "parameters")
		case "config":
			s.Config = p.config(sec)
		case "tools":
			s.Tools = p.tools(sec)
		case "orchestration":
			s.Steps = p.steps(sec)
		case "fields":
			s.Fields = p.fields(sec, s)
		case "database":
			s.Database = p.database(sec)
		case "allowed-skills":
			s.AllowedSkills = p.names(sec, key)
		case "allowed-prep-skills":
			s.AllowedPrepSkills = p.names(sec, key)
			if s.AllowedPrepSkills == nil {
				s.AllowedPrepSkills = []string{} // present and empty: none
			}
		case "allowed-agents":
			s.AllowedAgents = p.names(sec, key)
		default:
			if _, ok := textSections[key]; ok {
				text[key] = strings.TrimSpace(strings.Join(sec.lines, "\n"))
			} else if !slices.Contains(upstreamSections, key) {
				p.warnf(sec.line, "", "section ## %s means nothing to skillrun; it is ignored", sec.title)
			}
		}
	}
	s.SystemPrompt = text["system-prompt"]
	s.Examples, s.Help = text["examples"], text["help"]
	s.Instructions, s.Preparation = text["instructions"], text["preparation"]
	s.SessionType = strings.ToLower(strings.Trim(text["session-type"], "`* \t\n"))
	s.InputFormat, s.OutputFormat, s.Constraints = text["input-format"], text["output-format"], text["constraints"]
	s.TablePurpose = text["table-purpose"]
	if s.Description == "" {
		// AchillesAgentLib's descriptors often say it in a section.
		for _, key := range []string{"description", "summary", "table-purpose"} {
			if s.Description = text[key]; s.Description != "" {
				break
			}
		}
	}
	if s.Description == "" {
		line := 1
		if title != nil {
			line = title.line
		}
		p.errf(line, "description", "no description: the first paragraph under the title (or a ## Description section) says what the skill does")
	}
	if s.SystemPrompt == "" {
		s.SystemPrompt = s.Description
	}
	p.checkKind(s, seen)
	if p.problems.Errors() != nil {
		return nil, p.problems
	}
	return s, p.problems
}

// sectionKey is a heading as AchillesAgentLib keys it: lower case, each
// run of characters other than letters and digits one -.
func sectionKey(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// sectionAliases map the headings AchillesAgentLib accepts for a section
// to the key skillrun reads it by.
var sectionAliases = map[string]string{
	"prompt":                     "system-prompt",
	"allowed-tools":              "tools",
	"guidance":                   "instructions",
	"orchestration-guidance":     "instructions",
	"prep":                       "preparation",
	"context-prep":               "preparation",
	"skills":                     "allowed-skills",
	"skill-allowlist":            "allowed-skills",
	"skill-allow-list":           "allowed-skills",
	"allowed-preparation-skills": "allowed-prep-skills",
	"prep-skills":                "allowed-prep-skills",
	"agents":                     "allowed-agents",
	"agent-allowlist":            "allowed-agents",
	"session":                    "session-type",
}

// textSections are the sections kept as their text.
var textSections = map[string]struct{}{
	"system-prompt": {}, "examples": {}, "help": {}, "description": {}, "summary": {},
	"instructions": {}, "preparation": {}, "session-type": {},
	"input-format": {}, "output-format": {}, "constraints": {}, "table-purpose": {},
}

// upstreamSections are sections of AchillesAgentLib's kinds that skillrun
// reads past without a word: they mean something there (intent routing,
// role access, generated code's rules) and nothing here.
var upstreamSections = []string{"intents", "fallback", "fallback-text", "role-access-policy", "relationships",
	"business-rules", "delete-guard", "interactive-fields", "list-extra-fields", "overview"}

type parser struct {
	file     string
	problems skills.Problems
}

func (p *parser) errf(line int, field, format string, args ...any) {
	p.problems = append(p.problems, skills.Problem{Severity: skills.Error, File: p.file, Line: line,
		Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) warnf(line int, field, format string, args ...any) {
	p.problems = append(p.problems, skills.Problem{Severity: skills.Warning, File: p.file, Line: line,
		Field: field, Message: fmt.Sprintf(format, args...)})
}

// split cuts the document at its # and ## headings, outside fenced code
// blocks. The title is the first # heading; the sections are the ##
// headings (deeper headings stay in their section's text).
func split(doc string) (title *section, sections []*section) {
	var cur *section
	fence := ""
	for i, line := range strings.Split(strings.ReplaceAll(doc, "\r\n", "\n"), "\n") {
		n := i + 1
		trim := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.Trim(trim, fence[:1]) == "" {
				fence = ""
			}
		} else if f := fenceOf(trim); f != "" {
			fence = f
		} else if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = &section{title: strings.TrimSpace(strings.TrimRight(h, "#")), line: n}
			sections = append(sections, cur)
			continue
		} else if h, ok := strings.CutPrefix(line, "# "); ok && title == nil && len(sections) == 0 {
			title = &section{title: strings.TrimSpace(h), line: n}
			cur = title
			continue
		}
		if cur != nil {
			if len(cur.lines) == 0 {
				cur.first = n
			}
			cur.lines = append(cur.lines, line)
		}
	}
	return title, sections
}

// fenceOf returns the fence a line opens (``` or ~~~, three or more), or "".
func fenceOf(trim string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(trim, c+c+c) {
			n := len(trim) - len(strings.TrimLeft(trim, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// firstParagraph is the first block of non-blank lines.
func firstParagraph(lines []string) string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, " ")
}

// paramLine is one parameter: - `name` (type, required|optional): text
var paramLine = regexp.MustCompile("^\\s*[-*+]\\s+`([^`]+)`\\s*\\(\\s*([A-Za-z]+)\\s*,\\s*([A-Za-z]+)\\s*\\)\\s*(?::\\s*(.*))?$")

func (p *parser) params(sec *section, field string) []Param {
	one := strings.TrimSuffix(field, "s") // "parameter", "field"
	out := []Param{}
	seen := map[string]int{}
	for i, l := range sec.lines {
		n := sec.first + i
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := paramLine.FindStringSubmatch(l)
		if m == nil {
			p.errf(n, field, "not a %s line: write - `name` (type, required|optional): description", one)
			continue
		}
		name, typ, req := m[1], strings.ToLower(m[2]), strings.ToLower(m[3])
		switch {
		case !validName(name):
			p.errf(n, field, "%s name %q: letters, digits, - and _", one, name)
			continue
		case !contains(paramTypes, typ):
			p.errf(n, field, "%s %s: type %q is not one of %s", one, name, m[2], strings.Join(paramTypes, ", "))
			continue
		case req != "required" && req != "optional":
			p.errf(n, field, "%s %s: %q is neither required nor optional", one, name, m[3])
			continue
		}
		if first, dup := seen[name]; dup {
			p.errf(n, field, "%s %s again (first on line %d)", one, name, first)
			continue
		}
		seen[name] = n
		out = append(out, Param{Name: name, Type: typ, Required: req == "required", Description: strings.TrimSpace(m[4]), Line: n})
	}
	if len(out) > maxParams {
		p.errf(sec.line, field, "%d %s, over the limit of %d", len(out), field, maxParams)
	}
	return out
}

// fenced returns the content of the section's first fenced block, its
// info string and the line of its first content line.
func fenced(sec *section) (body, info string, line int, ok bool) {
	var out []string
	fence := ""
	for i, l := range sec.lines {
		trim := strings.TrimSpace(l)
		if fence == "" {
			if f := fenceOf(trim); f != "" {
				fence, info, line = f, strings.TrimSpace(strings.TrimLeft(trim, f[:1])), sec.first+i+1
			}
			continue
		}
		if strings.HasPrefix(trim, fence) && strings.Trim(trim, fence[:1]) == "" {
			return strings.Join(out, "\n"), info, line, true
		}
		out = append(out, l)
	}
	return "", "", 0, false
}

func (p *parser) config(sec *section) Config {
	var c Config
	body, _, line, ok := fenced(sec)
	if !ok {
		p.errf(sec.line, "config", "## Config holds a fenced ```json block")
		return c
	}
	if len(body) > maxConfigSize {
		p.errf(line, "config", "the config block is over %d bytes", maxConfigSize)
		return c
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		p.errf(line+jsonErrLine(body, err), "config", "invalid JSON: %v", err)
		return c
	}
	for k, v := range raw {
		var err error
		switch k {
		case "model":
			err = json.Unmarshal(v, &c.Model)
		case "temperature":
			var t float64
			if err = json.Unmarshal(v, &t); err == nil {
				if t < 0 || t > 2 {
					err = fmt.Errorf("%v is outside 0 to 2", t)
				}
				c.Temperature = &t
			}
		case "maxTokens":
			if err = json.Unmarshal(v, &c.MaxTokens); err == nil && c.MaxTokens <= 0 {
				err = fmt.Errorf("%d is not positive", c.MaxTokens)
			}
		default:
			p.errf(line, "config", "unknown config key %q (model, temperature, maxTokens)", k)
			continue
		}
		if err != nil {
			p.errf(line, "config", "%s: %v", k, err)
		}
	}
	return c
}

// jsonErrLine is the line (0-based) of a JSON syntax error in body.
func jsonErrLine(body string, err error) int {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok && se.Offset > 0 && int(se.Offset) <= len(body) {
		return strings.Count(body[:se.Offset-1], "\n")
	}
	return 0
}

func (p *parser) tools(sec *section) []string {
	var out []string
	for i, l := range sec.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		item, ok := cutBullet(t)
		if !ok {
			p.errf(sec.first+i, "tools", "not a list item: write one tool a line, as - tool_name")
			continue
		}
		item = strings.Trim(item, "`")
		if !validToolName(item) {
			p.errf(sec.first+i, "tools", "%q is not a tool name", item)
			continue
		}
		out = append(out, item)
	}
	if len(out) > maxTools {
		p.errf(sec.line, "tools", "%d tools, over the limit of %d", len(out), maxTools)
	}
	return out
}

func cutBullet(t string) (string, bool) {
	for _, b := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(t, b); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

func validToolName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (p *parser) steps(sec *section) []Step {
	body, _, line, ok := fenced(sec)
	if !ok {
		p.errf(sec.line, "orchestration", "## Orchestration holds a fenced ```yaml block of steps")
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(body), &doc); err != nil {
		p.errf(line, "orchestration", "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	if len(doc.Content) == 0 {
		p.errf(line, "orchestration", "no steps")
		return nil
	}
	if msg, at := refuseYAML(doc.Content[0], 0); msg != "" {
		p.errf(line+at-1, "orchestration", "%s", msg)
		return nil
	}
	var raw struct {
		Steps []yaml.Node `yaml:"steps"`
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != "steps" {
		p.errf(line+root.Line-1, "orchestration", "the block is a mapping with one key, steps: a list of {tool, params, output}")
		return nil
	}
	if err := root.Decode(&raw); err != nil {
		p.errf(line+root.Line-1, "orchestration", "steps: %v", err)
		return nil
	}
	if len(raw.Steps) == 0 {
		p.errf(line, "orchestration", "no steps")
		return nil
	}
	if len(raw.Steps) > maxSteps {
		p.errf(line, "orchestration", "%d steps, over the limit of %d", len(raw.Steps), maxSteps)
		return nil
	}
	var out []Step
	for _, n := range raw.Steps {
		at := line + n.Line - 1
		var st struct {
			Tool   string         `yaml:"tool"`
			Params map[string]any `yaml:"params"`
			Output string         `yaml:"output"`
		}
		if n.Kind != yaml.MappingNode {
			p.errf(at, "orchestration", "a step is a mapping {tool, params, output}")
			continue
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "tool" && k != "params" && k != "output" {
				p.errf(line+n.Content[i].Line-1, "orchestration", "unknown step key %q (tool, params, output)", k)
			}
		}
		if err := n.Decode(&st); err != nil {
			p.errf(at, "orchestration", "step: %v", err)
			continue
		}
		if st.Tool == "" {
			p.errf(at, "orchestration", "a step needs a tool")
			continue
		}
		if st.Output != "" && !validName(st.Output) {
			p.errf(at, "orchestration", "output name %q: letters, digits, - and _", st.Output)
			continue
		}
		out = append(out, Step{Tool: st.Tool, Params: st.Params, Output: st.Output, Line: at})
	}
	return out
}

// refuseYAML finds what a step list never needs and an attacker would
// use: anchors and aliases (expansion bombs) and deep nesting.
func refuseYAML(n *yaml.Node, depth int) (string, int) {
	if depth > maxYAMLDepth {
		return fmt.Sprintf("nests deeper than %d levels", maxYAMLDepth), n.Line
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return "YAML anchors and aliases (&, *) are not allowed", n.Line
	}
	for _, c := range n.Content {
		if msg, at := refuseYAML(c, depth+1); msg != "" {
			return msg, at
		}
	}
	return "", 0
}

// checkKind checks what each kind needs: an mskill's tools and steps, an
// oskill's steps or session, templates that name known inputs and earlier
// steps, a cskill's input format.
func (p *parser) checkKind(s *Skill, seen map[string]int) {
	switch s.Kind {
	case KindMCP:
		if _, ok := seen["orchestration"]; !ok {
			p.errf(1, "orchestration", "an mskill needs an ## Orchestration section of steps")
		}
	case KindOrchestrator:
		p.checkSession(s, seen)
	default:
		if line, ok := seen["orchestration"]; ok {
			p.warnf(line, "orchestration", "an %s runs no orchestration; the section is ignored", s.Kind)
		}
	}
	if s.Kind != KindOrchestrator {
		for _, key := range []string{"allowed-skills", "allowed-prep-skills", "allowed-agents", "preparation", "session-type"} {
			if line, ok := seen[key]; ok {
				p.warnf(line, key, "only an oskill runs a session; the %s kind ignores this section", s.Kind)
			}
		}
	}
	if s.Kind == KindCode {
		if _, ok := seen["input-format"]; !ok {
			p.errf(1, "input-format", "a cskill needs an ## Input Format section: what its input holds (AchillesAgentLib requires it too)")
		}
	}
	if (s.Kind == KindCode || s.Session()) && len(s.Parameters) == 0 {
		if _, ok := seen["parameters"]; !ok {
			// AchillesAgentLib calls these kinds with a prompt text.
			s.Parameters = []Param{promptParam}
		}
	}
	p.checkTable(s, seen)
	if s.Kind == KindMCP {
		if _, ok := seen["tools"]; !ok {
			p.errf(1, "tools", "an mskill needs a ## Tools section listing the tools its steps call")
		}
	}
	params := map[string]bool{}
	for _, prm := range s.Parameters {
		params[prm.Name] = true
	}
	outputs := map[string]int{}
	for _, st := range s.Steps {
		if s.Kind == KindMCP && !contains(s.Tools, st.Tool) {
			p.errf(st.Line, "orchestration", "step calls %s, which ## Tools does not list", st.Tool)
		}
		for _, ref := range templateRefs(st.Params) {
			kind, name, _ := strings.Cut(ref, ".")
			switch {
			case kind == "input" && !params[name]:
				p.errf(st.Line, "orchestration", "template {{%s}} names no parameter", ref)
			case kind == "steps":
				if _, ok := outputs[name]; !ok {
					p.errf(st.Line, "orchestration", "template {{%s}} names no earlier step's output", ref)
				}
			case kind != "input" && kind != "steps":
				p.errf(st.Line, "orchestration", "template {{%s}}: only {{input.NAME}} and {{steps.NAME}}", ref)
			}
		}
		if st.Output != "" {
			if first, dup := outputs[st.Output]; dup {
				p.errf(st.Line, "orchestration", "output %s again (first on line %d)", st.Output, first)
			}
			outputs[st.Output] = st.Line
		}
	}
}

// promptParam is the input of a cskill or session oskill that declares
// none: the request in words, as AchillesAgentLib passes it.
var promptParam = Param{Name: "prompt", Type: "string", Required: true,
	Description: "What to do, in words (AchillesAgentLib's prompt text)."}

// sessionTypes are the ## Session Type values AchillesAgentLib knows.
var sessionTypes = []string{"loop", "soplang", "sop"}

// checkSession checks an oskill: its steps, or (without ## Orchestration)
// the session it runs: the skills it allows, its session type, its
// Ploinky agents.
func (p *parser) checkSession(s *Skill, seen map[string]int) {
	if _, ok := seen["orchestration"]; ok {
		for _, key := range []string{"allowed-skills", "allowed-prep-skills", "preparation", "session-type"} {
			if line, ok := seen[key]; ok {
				p.warnf(line, key, "this oskill runs its ## Orchestration steps; only an oskill without steps runs a session, so the section is ignored")
			}
		}
		return
	}
	for _, key := range []string{"allowed-skills", "allowed-prep-skills"} {
		list := s.AllowedSkills
		if key == "allowed-prep-skills" {
			list = s.AllowedPrepSkills
		}
		if slices.Contains(list, s.Name) || slices.Contains(list, s.ToolName()) {
			p.errf(seen[key], key, "the oskill %s allows itself: a skill never calls itself", s.Name)
		}
	}
	if line, ok := seen["session-type"]; ok {
		switch {
		case !slices.Contains(sessionTypes, s.SessionType):
			p.warnf(line, "session-type", "session type %q is neither loop nor soplang; skillrun runs the session as a loop", s.SessionType)
		case s.SessionType != "loop":
			p.warnf(line, "session-type", "skillrun runs every oskill session as a loop (the model calls the skills as it goes), not as a %s plan", s.SessionType)
		}
	}
	if line, ok := seen["allowed-agents"]; ok && len(s.AllowedAgents) > 0 {
		p.warnf(line, "allowed-agents", "Ploinky agents (%s) are recorded but not offered: skillrun reaches no Ploinky router", strings.Join(s.AllowedAgents, ", "))
	}
}

// names reads a list of names, one a line, bulleted or not, in backticks
// or not; what follows a name on its line (": what it does") is its note.
func (p *parser) names(sec *section, field string) []string {
	var out []string
	fence := ""
	for i, l := range sec.lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(t); f != "" {
			fence = f
			continue
		}
		if item, ok := cutBullet(t); ok {
			t = item
		}
		if t == "" {
			continue
		}
		// "name: what it does", "name - what it does"
		name, _, _ := strings.Cut(t, ":")
		for _, sep := range []string{" - ", " — ", " – "} {
			name, _, _ = strings.Cut(name, sep)
		}
		name = strings.Trim(strings.TrimSpace(name), "`*")
		if !validToolName(name) {
			p.errf(sec.first+i, field, "%q is not a skill or agent name: one a line, letters, digits, - and _", name)
			continue
		}
		if slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	if len(out) > maxTools {
		p.errf(sec.line, field, "%d names, over the limit of %d", len(out), maxTools)
		return nil
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// trimBOM drops a UTF-8 byte order mark.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }
