package yamlmod

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// The keys of each mapping of a skill.yaml.
var (
	skillKeys = []string{"id", "version", "category", "triggers", "input_schema", "output_schema",
		"methodology", "best_practices", "common_pitfalls"}
	stepKeys = []string{"step", "description", "tools", "decision_factors"}
)

// ErrOutputInvalid is matched (errors.Is) by the error of
// [Skill.CheckOutput] for an output that is not JSON or does not match
// the skill's output_schema.
var ErrOutputInvalid = errors.New("output does not match the skill's output_schema")

// CheckOutput checks out, a JSON value a run of the skill produced,
// against the skill's output_schema. A skill without one accepts any
// JSON value. The error matches [ErrOutputInvalid] and says what is
// wrong, where.
func (s *Skill) CheckOutput(out json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("skill %s: %w: not JSON: %w", s.ID, ErrOutputInvalid, err)
	}
	if s.out == nil {
		return nil
	}
	if err := s.out.Validate(v); err != nil {
		return fmt.Errorf("skill %s: %w: %s", s.ID, ErrOutputInvalid, describeValidation(err))
	}
	return nil
}

// describeValidation lists the innermost causes of a validation error,
// each with where in the value it is.
func describeValidation(err error) string {
	ve, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return err.Error()
	}
	var msgs []string
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				leaves(c)
			}
			return
		}
		msg := e.ErrorKind.LocalizedString(printer())
		if len(e.InstanceLocation) > 0 {
			msg = "at /" + strings.Join(e.InstanceLocation, "/") + ": " + msg
		}
		msgs = append(msgs, msg)
	}
	leaves(ve)
	slices.Sort(msgs)
	return strings.Join(slices.Compact(msgs), "; ")
}

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// loadSkill reads and checks skills/<id>/skill.yaml; nil when it has an
// error.
func (l *loader) loadSkill(id, rel string) *Skill {
	data, p := l.readModule(rel)
	if p == nil {
		return nil
	}
	defer func() { l.problems = append(l.problems, sorted(p.problems)...) }()
	f := p.document(data, "skill", skillKeys)
	if f == nil {
		return nil
	}
	s := &Skill{File: p.file}
	s.ID = p.id(f, id, "folder")
	s.Version = p.version(f, "version")
	s.Category = p.str(f, "category")
	triggers := p.list(f, "triggers", maxTriggers)
	for _, t := range triggers {
		if utf8.RuneCountInString(t.s) > maxTriggerLen {
			p.errf(t.line, "skill.triggers", "trigger %q is over %d characters: a trigger is a word or short phrase", t.s, maxTriggerLen)
		}
	}
	s.Triggers = strs(triggers)
	if len(s.Triggers) == 0 && !p.reported("skill.triggers") {
		p.errf(f.lineOf("triggers"), "skill.triggers", "the skill has no triggers: list the words and phrases that should find it")
	}
	s.InputSchema, _ = p.schema(f, "input_schema")
	s.OutputSchema, s.out = p.schema(f, "output_schema")
	stepTools := p.steps(f, s)
	s.BestPractices = strs(p.list(f, "best_practices", maxList))
	s.CommonPitfalls = strs(p.list(f, "common_pitfalls", maxList))
	if p.failed() {
		return nil
	}
	if err := skills.ValidateName(s.ID); err != nil {
		why := strings.ReplaceAll(err.Error(), "\n", "; ")
		p.warnf(f.lineOf("id"), "skill.id", "id %q is disclosed as the skill's name, but it is not a valid Agent Skills name (%s); clients that check names may refuse it", s.ID, why)
	}
	s.tools = l.resolveSteps(p, stepTools)
	agent, err := agentSkill(s, data, l.set)
	if err != nil {
		p.errf(0, "", "cannot disclose the skill: %v", err)
		return nil
	}
	s.agent = agent
	l.findExecutor(p, s, id)
	if p.failed() {
		return nil
	}
	return s
}

// steps reads the methodology; it returns each step's tool list with
// lines, for resolveSteps.
func (p *parser) steps(f *fields, s *Skill) [][]item {
	var tools [][]item
	for i, n := range p.mappings(f, "methodology", maxList) {
		field := fmt.Sprintf("skill.methodology[%d]", i)
		sf := p.mapping(n, field, stepKeys)
		if sf == nil {
			continue
		}
		st := Step{Line: n.Line}
		if v := sf.vals["step"]; v != nil {
			if t := v.ShortTag(); v.Kind != yaml.ScalarNode || t != "!!str" && t != "!!int" {
				p.errf(v.Line, field+".step", "%s.step must be the step's title or number, not %s", field, describe(v))
			} else {
				st.Step = strings.TrimSpace(v.Value)
			}
		}
		st.Description = p.str(sf, "description")
		p.need(sf, "description", st.Description, "say what to do in this step")
		ts := p.list(sf, "tools", maxList)
		st.Tools = strs(ts)
		st.DecisionFactors = strs(p.list(sf, "decision_factors", maxList))
		s.Methodology = append(s.Methodology, st)
		tools = append(tools, ts)
	}
	if len(s.Methodology) == 0 && !p.reported("skill.methodology") && !p.failed() {
		p.errf(f.lineOf("methodology"), "skill.methodology", "the skill has no methodology: list its steps as methodology: [{step, description, tools, decision_factors}]")
	}
	return tools
}

// schema reads a JSON-Schema-like mapping, checks that it compiles, and
// returns its JSON and the compiled schema.
func (p *parser) schema(f *fields, k string) (json.RawMessage, *jsonschema.Schema) {
	v := f.vals[k]
	if v == nil {
		return nil, nil
	}
	field := f.path(k)
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, field, "%s must be a JSON Schema written as a mapping (type: object, properties: ...), not %s", field, describe(v))
		return nil, nil
	}
	j, ok := p.toJSON(v, field)
	if !ok {
		return nil, nil
	}
	raw, _ := json.Marshal(j)
	if len(raw) > host.MaxSchemaSize {
		p.errf(v.Line, field, "%s is %d bytes as JSON, over the %d-byte limit", field, len(raw), host.MaxSchemaSize)
		return nil, nil
	}
	compiled, err := compileSchema(raw)
	if err != nil {
		p.errf(v.Line, field, "%s is not a valid JSON Schema: %s", field, describeSchemaError(err))
		return nil, nil
	}
	return raw, compiled
}

// compileSchema compiles a schema that may refer to no file or URL.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	url := fmt.Sprintf("urn:skillrun:yamlmod:%x", sum[:16])
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no file or network access
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// describeSchemaError says what is wrong with a schema that does not
// compile, without the name it was compiled under.
func describeSchemaError(err error) string {
	if sve, ok := errors.AsType[*jsonschema.SchemaValidationError](err); ok {
		return describeValidation(sve.Err)
	}
	return err.Error()
}

// resolveSteps turns the tools the steps name into host tool names,
// warning of names no loaded tool has. A reference resolved once is not
// resolved again: each names every action of its tool, so the steps of
// one file, naming a wide tool again and again, would otherwise make
// millions of names.
func (l *loader) resolveSteps(p *parser, steps [][]item) []string {
	var names []string
	resolved := map[string]bool{}
	for i, ts := range steps {
		for _, it := range ts {
			if resolved[it.s] {
				continue
			}
			got, why := l.resolveTool(it.s)
			if why != "" {
				p.warnf(it.line, fmt.Sprintf("skill.methodology[%d].tools", i), "step %d: %s; the step is shown without it", i+1, why)
				continue
			}
			resolved[it.s] = true
			names = append(names, got...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// resolveTool resolves a tool reference (a tool's id, <tool>.<action>
// or <tool>__<action>) to host tool names, or says why it cannot.
func (l *loader) resolveTool(ref string) ([]string, string) {
	id, action, one := strings.Cut(ref, "__")
	if !one {
		id, action, one = strings.Cut(ref, ".")
	}
	t := l.set.Tool(id)
	switch {
	case t == nil && l.brokenTools[id]:
		return nil, fmt.Sprintf("tool %q did not load (see the problems of its tool.yaml)", id)
	case t == nil:
		return nil, fmt.Sprintf("no %s/<id>/%s defines the tool %q", ToolsFolder, ToolFile, id)
	case !one:
		var out []string
		for _, a := range t.Actions {
			if a.Implemented() {
				out = append(out, a.ToolName())
			}
		}
		return out, ""
	}
	var have []string
	for _, a := range t.Actions {
		if a.Name == action {
			if !a.Implemented() {
				return nil, fmt.Sprintf("tool %s's action %q has no implementation yet", id, action)
			}
			return []string{a.ToolName()}, ""
		}
		have = append(have, a.Name)
	}
	return nil, fmt.Sprintf("tool %s has no action %q (it has %s)", id, action, strings.Join(have, ", "))
}
