package yamlmod

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/skills"
)

// maxDescription is the Agent Skills limit on a description.
const maxDescription = 1024

// skillFrontmatter is the frontmatter of a generated SKILL.md.
type skillFrontmatter struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Metadata    map[string]string `yaml:"metadata,omitempty"`
	// AllowedTools are the tool actions the methodology names, which a
	// session loads when the skill is activated.
	AllowedTools string `yaml:"allowed-tools,omitempty"`
}

// agentSkill makes the Agent Skill a skill.yaml is disclosed as: an
// in-memory folder with a generated SKILL.md and skill.toml beside the
// skill.yaml itself (see [Skill.AgentSkill]).
func agentSkill(s *Skill, yamlData []byte, set *Set) (*skills.Skill, error) {
	meta := map[string]string{"format": "skill.yaml"}
	if s.Version != "" {
		meta["version"] = s.Version
	}
	if s.Category != "" {
		meta["category"] = s.Category
	}
	var md strings.Builder
	if err := writeFrontmatter(&md, skillFrontmatter{Name: s.ID, Description: describeSkill(s), Metadata: meta,
		AllowedTools: strings.Join(s.tools, " ")}); err != nil {
		return nil, err
	}
	body, err := instructions(s, set)
	if err != nil {
		return nil, err
	}
	md.WriteString(body)
	fsys := memFS{
		"SKILL.md":   []byte(md.String()),
		"skill.toml": []byte("# Made by skillrun from skill.yaml: its triggers, as search words.\ntriggers = " + tomlStrings(s.Triggers) + "\n"),
		SkillFile:    yamlData,
	}
	sk, err := skills.LoadFS(fsys, ".", &skills.LoadOptions{DirName: s.ID})
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(s.File); err == nil {
		sk.Location = abs
	}
	return sk, nil
}

// scriptSkill makes the skill a tool's actions run as: the tool's folder
// with a generated skill.toml declaring one script per action, and what
// a published skill's scripts declare (see [Tool.ScriptSkill]). Its
// files are the generated ones; its Location puts it in the tool's
// folder, which is what a run mounts and reads its scripts from.
func scriptSkill(t *Tool) (*skills.Skill, error) {
	var md strings.Builder
	if err := writeFrontmatter(&md, skillFrontmatter{Name: t.ID,
		Description: fmt.Sprintf("The action scripts of the tool %s (%s).", t.ID, ToolFile)}); err != nil {
		return nil, err
	}
	fmt.Fprintf(&md, "# %s\n\nThis folder's scripts implement the actions of %s; each is served as the tool <tool>__<action>.\n", t.ID, ToolFile)
	var m strings.Builder
	m.WriteString("# Made by skillrun from tool.yaml: one script per action, declaring what a\n" +
		"# published skill's script files do (read the skill and the workspace, write the workspace).\n" +
		"[capabilities]\nread = [\"skill\", \"workspace\"]\nwrite = [\"workspace\"]\n")
	for _, a := range t.Actions {
		if a.Script == "" {
			continue // not implemented yet (findScripts warned)
		}
		kind := "source"
		if filepath.Ext(a.Script) == ".wasm" {
			kind = "module"
		}
		fmt.Fprintf(&m, "\n[scripts.%s]\n%s = %s\n", a.key, kind, tomlString(a.Script))
		if a.viaWrapper {
			m.WriteString("args = [\"invoke\"]\n") // then the action's name (moduleDriver)
		}
	}
	fsys := memFS{"SKILL.md": []byte(md.String()), "skill.toml": []byte(m.String())}
	s, err := skills.LoadFS(fsys, ".", &skills.LoadOptions{DirName: t.ID})
	if err != nil {
		return nil, err
	}
	s.Location = filepath.Join(t.Dir, "SKILL.md")
	for _, a := range t.Actions {
		if a.viaWrapper {
			s.Manifest.Scripts[a.key].Driver = moduleDriver
		}
	}
	return s, nil
}

// moduleDriver runs the ADR's implementation files, which are modules:
// a tool's wrapper.py for one action (FILE invoke ACTION) and a skill's
// executor.py (FILE execute).
//
//go:embed module_driver.py
var moduleDriver string

func writeFrontmatter(b *strings.Builder, fm skillFrontmatter) error {
	out, err := yaml.Marshal(fm)
	if err != nil {
		return err
	}
	b.WriteString("---\n")
	b.Write(out)
	b.WriteString("---\n")
	return nil
}

// tomlString quotes s as a TOML basic string: JSON's escapes are TOML's.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tomlStrings(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// describeSkill is a skill's description: its triggers and category, at
// most maxDescription characters.
func describeSkill(s *Skill) string {
	d := "Use it for: " + strings.Join(s.Triggers, "; ")
	if s.Category != "" {
		d += " (category: " + s.Category + ")"
	}
	d += "."
	if utf8.RuneCountInString(d) <= maxDescription {
		return d
	}
	r := []rune(d)[:maxDescription-1]
	if i := strings.LastIndex(string(r), "; "); i > 0 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// instructions renders the body of a skill's SKILL.md: the methodology
// as numbered steps, the best practices, the pitfalls, the schemas and
// the tools the steps use.
//
// The body is at most MaxFile bytes, the bound of the SKILL.md it goes
// into, and it is checked while it is written: a step's tool reference
// names every action of its tool, so a skill.yaml within MaxFile whose
// steps name a tool of many actions many times would otherwise make
// gigabytes of text before any check saw it.
func instructions(s *Skill, set *Set) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", s.ID)
	fmt.Fprintf(&b, "Use this skill for: %s.\n", strings.Join(s.Triggers, "; "))
	if s.Category != "" || s.Version != "" {
		b.WriteString("\n")
		if s.Category != "" {
			fmt.Fprintf(&b, "Category: %s. ", s.Category)
		}
		if s.Version != "" {
			fmt.Fprintf(&b, "Version: %s.", s.Version)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Methodology\n\nFollow these steps in order.\n\n")
	for i, st := range s.Methodology {
		lead := fmt.Sprintf("%d. ", i+1)
		pad := strings.Repeat(" ", len(lead))
		text := indent(st.Description, pad)
		if st.Step != "" {
			if _, err := strconv.Atoi(st.Step); err != nil { // a title, not the number
				text = "**" + oneLine(st.Step) + "**: " + text
			}
		}
		b.WriteString(lead + text + "\n")
		if len(st.Tools) > 0 {
			var names []string
			size := b.Len()
			for _, ref := range st.Tools {
				names = append(names, toolRef(ref, set))
				if size += len(names[len(names)-1]) + 2; size > MaxFile {
					return "", tooLarge(fmt.Sprintf("at methodology step %d", i+1))
				}
			}
			fmt.Fprintf(&b, "%s- Tools: %s\n", pad, strings.Join(names, ", "))
		}
		if len(st.DecisionFactors) > 0 {
			fmt.Fprintf(&b, "%s- Decision factors:\n", pad)
			for _, d := range st.DecisionFactors {
				fmt.Fprintf(&b, "%s  - %s\n", pad, indent(d, pad+"    "))
			}
		}
	}
	bullets(&b, "Best practices", s.BestPractices)
	bullets(&b, "Common pitfalls", s.CommonPitfalls)
	if s.InputSchema != nil {
		b.WriteString("\n## Input\n\nThe input this skill works on, as JSON Schema:\n\n")
		jsonBlock(&b, s.InputSchema)
	}
	if s.OutputSchema != nil {
		b.WriteString("\n## Output\n\nProduce a JSON value that matches this JSON Schema:\n\n")
		jsonBlock(&b, s.OutputSchema)
	}
	if len(s.tools) > 0 {
		b.WriteString("\n## Tools\n\nThe steps above use these tools:\n\n")
		for _, name := range s.tools {
			desc := ""
			if a := set.action(name); a != nil {
				desc = ": " + oneLine(a.Description)
			}
			fmt.Fprintf(&b, "- `%s`%s\n", name, desc)
		}
	}
	if b.Len() > MaxFile {
		return "", tooLarge("with its practices, pitfalls, schemas and tools")
	}
	return b.String(), nil
}

// tooLarge is the error of a SKILL.md body over MaxFile bytes, found
// where it says.
func tooLarge(where string) error {
	return fmt.Errorf("the SKILL.md made from it would be over %d bytes (%s): name fewer tools in the steps, or a tool's actions (<tool>.<action>) rather than the whole tool", MaxFile, where)
}

// toolRef shows a step's tool reference: the host tool names it
// resolves to, or the reference as written.
func toolRef(ref string, set *Set) string {
	id, action, one := strings.Cut(ref, "__")
	if !one {
		id, action, one = strings.Cut(ref, ".")
	}
	if t := set.Tool(id); t != nil {
		var names []string
		for _, a := range t.Actions {
			if (!one || a.Name == action) && a.Implemented() {
				names = append(names, "`"+a.ToolName()+"`")
			}
		}
		if len(names) > 0 {
			return strings.Join(names, ", ")
		}
	}
	return oneLine(ref) + " (not available)"
}

// action returns the action served as the host tool name, or nil.
func (s *Set) action(name string) *Action {
	for _, t := range s.Tools {
		for _, a := range t.Actions {
			if a.ToolName() == name && a.Implemented() {
				return a
			}
		}
	}
	return nil
}

func bullets(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", indent(it, "  "))
	}
}

// jsonBlock writes v, indented, in a fence no line of it can close.
func jsonBlock(b *strings.Builder, raw json.RawMessage) {
	var v any
	_ = json.Unmarshal(raw, &v)
	out, _ := json.MarshalIndent(v, "", "  ")
	fence := "```"
	for strings.Contains(string(out), fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%sjson\n%s\n%s\n", fence, out, fence)
}

// indent indents the lines after the first of a multi-line text by pad,
// so they stay in their list item.
func indent(text, pad string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			lines[i] = pad + lines[i]
		} else {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
