package mdskill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
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
// from its base name (<name>.<kind>.md). Every problem found is
// returned, each with its line; the skill is nil when any is an error.
func Parse(data []byte, file string) (*Skill, skills.Problems) {
	p := &parser{file: file}
	name, kind, err := kindOf(filepath.Base(file))
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
	title, sections := split(string(data))
	switch {
	case title == nil:
		p.errf(1, "title", "no `# %s` heading: a Markdown skill starts with its name as the title", name)
	case strings.TrimSpace(title.title) != name:
		p.warnf(title.line, "title", "the title %q is not the file's name %q; the file's name is the skill's", title.title, name)
	}
	if title != nil {
		s.Description = firstParagraph(title.lines)
	}
	if s.Description == "" {
		line := 1
		if title != nil {
			line = title.line
		}
		p.errf(line, "description", "no description: the first paragraph under the title says what the skill does")
	}
	seen := map[string]int{}
	for _, sec := range sections {
		key := strings.ToLower(strings.Join(strings.Fields(sec.title), " "))
		if first, dup := seen[key]; dup {
			p.errf(sec.line, key, "a second ## %s section (the first is on line %d)", sec.title, first)
			continue
		}
		seen[key] = sec.line
		switch key {
		case "system prompt":
			s.SystemPrompt = strings.TrimSpace(strings.Join(sec.lines, "\n"))
		case "parameters":
			s.Parameters = p.params(sec, "parameters")
		case "config":
			s.Config = p.config(sec)
		case "examples":
			s.Examples = strings.TrimSpace(strings.Join(sec.lines, "\n"))
		case "tools":
			s.Tools = p.tools(sec)
		case "orchestration":
			s.Steps = p.steps(sec)
		case "fields":
			s.Fields = p.fields(sec)
		case "database":
			s.Database = p.database(sec)
		default:
			p.warnf(sec.line, "", "section ## %s means nothing to skillrun; it is ignored", sec.title)
		}
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
// oskill's steps, templates that name known inputs and earlier steps.
func (p *parser) checkKind(s *Skill, seen map[string]int) {
	needsSteps := s.Kind == KindMCP || s.Kind == KindOrchestrator
	if needsSteps {
		if _, ok := seen["orchestration"]; !ok {
			p.errf(1, "orchestration", "an %s needs an ## Orchestration section of steps", s.Kind)
		}
	} else if line, ok := seen["orchestration"]; ok {
		p.warnf(line, "orchestration", "an %s runs no orchestration; the section is ignored", s.Kind)
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
