package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillrun/skillrun/skills"
)

// Names of the progressive-disclosure tools (catalog → instructions →
// resources), the same in a session, in `skillrun mcp` and for guests.
const (
	ToolSkillSearch   = "skill_search"
	ToolSkillActivate = "skill_activate"
	ToolSkillRead     = "skill_read"
)

// maxSkillRead bounds what skill_read returns of one file; the rest is cut
// and the result says so. A client that needs the whole file reads it as
// a resource where one is served.
const maxSkillRead = 256 << 10

// maxListedNames bounds the skill names an error lists.
const maxListedNames = 20

// DisclosureOptions configure [DisclosureTools]. The zero value is usable.
type DisclosureOptions struct {
	// EnumNames lists the skill names as an enum in the input schemas,
	// which MCP clients show as choices.
	EnumNames bool
	// ResourceURI, when set, names the resource a file is also served as
	// (skill://NAME/PATH): skill_activate and a binary file's result
	// point to it.
	ResourceURI func(skill, file string) string
	// Activated, when set, is called when skill_activate succeeds; what
	// it returns is added to the result (a session makes the skill's
	// scripts tools and says which).
	Activated func(ctx context.Context, s *skills.Skill) string
}

// DisclosureTools returns skill_search, skill_activate and skill_read over
// list: the one implementation that sessions, `skillrun mcp` and guests
// use. Of two skills with one name, the first is reached.
//
// Arguments are checked strictly (unknown names and wrong types are an
// error result naming them). skill_activate and skill_read take the skill
// as "name"; skill_read also accepts "skill", its older name in sessions,
// for one release. Results a model caused (no such skill, no such file, a
// binary file) are error results, never Go errors.
func DisclosureTools(list []*skills.Skill, o *DisclosureOptions) []Tool {
	if o == nil {
		o = &DisclosureOptions{}
	}
	d := &disclosure{opts: *o, byName: make(map[string]*skills.Skill, len(list))}
	for _, s := range list {
		if s == nil {
			continue
		}
		if _, dup := d.byName[s.Name]; !dup {
			d.byName[s.Name] = s
			d.list = append(d.list, s)
		}
	}
	d.index = skills.NewIndex(d.list)
	return []Tool{
		&disclosureTool{def: d.searchDef(), call: d.search},
		&disclosureTool{def: d.activateDef(), call: d.activate},
		&disclosureTool{def: d.readDef(), call: d.read},
	}
}

type disclosure struct {
	opts   DisclosureOptions
	list   []*skills.Skill
	byName map[string]*skills.Skill
	index  *skills.Index
}

type disclosureTool struct {
	def  ToolDef
	call func(ctx context.Context, a toolArgs) *ToolResult
}

func (t *disclosureTool) Definition() ToolDef { return t.def }

func (t *disclosureTool) Call(ctx context.Context, in json.RawMessage) (*ToolResult, error) {
	a, bad := decodeArgs(in)
	if bad != "" {
		return ErrorResult(t.def.Name + ": " + bad), nil
	}
	a.tool = t.def.Name
	return t.call(ctx, a), nil
}

// toolArgs are a tool's arguments, decoded as a JSON object.
type toolArgs struct {
	tool string
	m    map[string]json.RawMessage
}

// decodeArgs decodes in, or says what is wrong with it (for the model).
func decodeArgs(in json.RawMessage) (toolArgs, string) {
	var a toolArgs
	in = bytes.TrimSpace(in)
	if len(in) == 0 || string(in) == "null" {
		return a, ""
	}
	if json.Unmarshal(in, &a.m) != nil {
		return a, "arguments must be a JSON object"
	}
	return a, ""
}

// only reports an argument not among names.
func (a toolArgs) only(names ...string) error {
	for _, k := range slices.Sorted(maps.Keys(a.m)) {
		if !slices.Contains(names, k) {
			return fmt.Errorf("unknown argument %q (the arguments are %s)", k, strings.Join(names, ", "))
		}
	}
	return nil
}

// str returns the non-empty string argument k; required says whether it
// must be there.
func (a toolArgs) str(k string, required bool) (string, error) {
	raw, ok := a.m[k]
	if !ok {
		if required {
			return "", fmt.Errorf("missing argument %q", k)
		}
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || v == "" {
		return "", fmt.Errorf("argument %q must be a non-empty string", k)
	}
	return v, nil
}

func (a toolArgs) fail(err error) *ToolResult { return ErrorResult(a.tool + ": " + err.Error()) }

// skill returns the skill the arguments name ("name", or its alias
// "skill" where alias is set).
func (d *disclosure) skill(a toolArgs, alias bool) (*skills.Skill, error) {
	name, err := a.str("name", !alias)
	if err != nil {
		return nil, err
	}
	if alias {
		old, err := a.str("skill", false)
		switch {
		case err != nil:
			return nil, err
		case name == "" && old == "":
			return nil, errors.New(`missing argument "name"`)
		case name != "" && old != "" && name != old:
			return nil, fmt.Errorf(`arguments "name" (%q) and "skill" (%q) differ; give "name" only`, name, old)
		case name == "":
			name = old
		}
	}
	if s := d.byName[name]; s != nil {
		return s, nil
	}
	names := make([]string, 0, min(len(d.list), maxListedNames))
	for _, s := range d.list[:min(len(d.list), maxListedNames)] {
		names = append(names, s.Name)
	}
	more := ""
	if len(d.list) > maxListedNames {
		more = fmt.Sprintf(" and %d more (%s finds them)", len(d.list)-maxListedNames, ToolSkillSearch)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("argument \"name\": no skill is named %q; there are no skills", name)
	}
	return nil, fmt.Errorf("argument \"name\": no skill is named %q; the skills are: %s%s", name, strings.Join(names, ", "), more)
}

func (d *disclosure) nameSchema() map[string]any {
	name := map[string]any{"type": "string", "description": "the skill's name, as the catalog lists it"}
	if d.opts.EnumNames && len(d.list) > 0 {
		names := make([]string, len(d.list))
		for i, s := range d.list {
			names[i] = s.Name
		}
		name["enum"] = names
	}
	return name
}

func schema(props map[string]any, required ...string) json.RawMessage {
	data, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	if err != nil {
		panic(err) // plain maps of strings: cannot fail
	}
	return data
}

func (d *disclosure) searchDef() ToolDef {
	return ToolDef{Name: ToolSkillSearch, Source: SourceCore, Parallel: true,
		Description: "Search the skills by words (BM25 over names, descriptions and instructions). Returns the best matches, one per line: name: description.",
		InputSchema: schema(map[string]any{
			"query": map[string]any{"type": "string", "description": "words describing the task"},
			"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 50},
		}, "query")}
}

func (d *disclosure) search(_ context.Context, a toolArgs) *ToolResult {
	if err := a.only("query", "limit"); err != nil {
		return a.fail(err)
	}
	q, err := a.str("query", true)
	if err != nil {
		return a.fail(err)
	}
	var limit int
	if raw, ok := a.m["limit"]; ok {
		if err := json.Unmarshal(raw, &limit); err != nil {
			return a.fail(errors.New(`argument "limit" must be an integer`))
		}
	}
	found, err := d.index.Search(q, &skills.SearchOptions{Limit: limit})
	if err != nil {
		return a.fail(err)
	}
	if len(found) == 0 {
		return &ToolResult{Content: fmt.Sprintf("no skill matches %q", q)}
	}
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "%s: %s\n", f.Name, f.Description)
	}
	return &ToolResult{Content: b.String()}
}

func (d *disclosure) activateDef() ToolDef {
	return ToolDef{Name: ToolSkillActivate, Source: SourceCore,
		Description: "Activate a skill: returns its instructions (the body of its SKILL.md) and the list of its files, which " + ToolSkillRead + " reads.",
		InputSchema: schema(map[string]any{"name": d.nameSchema()}, "name")}
}

func (d *disclosure) activate(ctx context.Context, a toolArgs) *ToolResult {
	if err := a.only("name"); err != nil {
		return a.fail(err)
	}
	s, err := d.skill(a, false)
	if err != nil {
		return a.fail(err)
	}
	act, err := s.Activate()
	if err != nil {
		return a.fail(fmt.Errorf("skill %q: %w", s.Name, err))
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(act.Body, "\n"))
	if len(act.Files) > 0 {
		how := ToolSkillRead
		if d.opts.ResourceURI != nil {
			how += " or as resources " + d.opts.ResourceURI(s.Name, "") + "<path>"
		}
		fmt.Fprintf(&b, "\n\nFiles of skill %s (read them with %s):\n", s.Name, how)
		for _, f := range act.Files {
			b.WriteString("- " + f + "\n")
		}
		if act.Truncated {
			fmt.Fprintf(&b, "(only the first %d files are listed)\n", skills.MaxListedFiles)
		}
	}
	if d.opts.Activated != nil {
		if more := d.opts.Activated(ctx, s); more != "" {
			b.WriteString("\n" + more + "\n")
		}
	}
	return &ToolResult{Content: b.String()}
}

func (d *disclosure) readDef() ToolDef {
	return ToolDef{Name: ToolSkillRead, Source: SourceCore, Parallel: true,
		Description: fmt.Sprintf("Read one file of a skill (a reference, an asset, a script's source) by its path relative to the skill folder, as %s lists it; text only, up to %d KiB.", ToolSkillActivate, maxSkillRead>>10),
		InputSchema: schema(map[string]any{
			"name": d.nameSchema(),
			"path": map[string]any{"type": "string", "description": "a file path relative to the skill folder, such as references/guide.md"},
		}, "name", "path")}
}

func (d *disclosure) read(_ context.Context, a toolArgs) *ToolResult {
	if err := a.only("name", "skill", "path"); err != nil {
		return a.fail(err)
	}
	s, err := d.skill(a, true)
	if err != nil {
		return a.fail(err)
	}
	p, err := a.str("path", true)
	if err != nil {
		return a.fail(err)
	}
	data, err := s.ReadResource(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return a.fail(fmt.Errorf("skill %q has no file %q (%s lists its files)", s.Name, p, ToolSkillActivate))
	case err != nil:
		return a.fail(fmt.Errorf("skill %q: %w", s.Name, err))
	case !utf8.Valid(data):
		msg := fmt.Sprintf("skill %q: %s is a binary file (%d bytes); it cannot be shown as text", s.Name, p, len(data))
		if d.opts.ResourceURI != nil {
			msg += "; read it as resource " + d.opts.ResourceURI(s.Name, p)
		}
		return a.fail(errors.New(msg))
	case len(data) > maxSkillRead:
		n := maxSkillRead
		for n > 0 && !utf8.RuneStart(data[n]) {
			n--
		}
		return &ToolResult{Content: string(data[:n]) +
			fmt.Sprintf("\n[cut: the file has %d bytes; the first %d are shown]", len(data), n)}
	}
	return &ToolResult{Content: string(data)}
}
