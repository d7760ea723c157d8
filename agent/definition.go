package agent

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/internal/frontyaml"
	"github.com/skillrun/skillrun/internal/tomlx"
)

// Bounds on untrusted definition files. An agent definition is a system
// prompt and a few settings; the bounds leave ample room while keeping a
// hostile file cheap to refuse.
const (
	// maxFileSize bounds a definition file (frontmatter and body).
	maxFileSize = 256 << 10
	// maxNameLength bounds an agent's name.
	maxNameLength = 64
	// maxDescriptionLength bounds an agent's description.
	maxDescriptionLength = 1024
	// maxTools bounds the entries of an explicit tools list.
	maxTools = 1024
	// maxDirFiles bounds the definition files of one directory.
	maxDirFiles = 1000

	maxModelLength    = 256
	maxToolNameLength = 128
	maxYAMLDepth      = 32
)

// A Source is where a definition comes from. Sources are ordered by
// precedence: a higher Source overrides a lower one of the same name.
type Source int

const (
	// SourceBuiltin is a definition shipped with skillrun.
	SourceBuiltin Source = iota
	// SourcePlugin is a definition from a skill pack or plugin.
	SourcePlugin
	// SourceUser is a definition from the user's own directory.
	SourceUser
)

// String returns "builtin", "plugin" or "user".
func (s Source) String() string {
	switch s {
	case SourceBuiltin:
		return "builtin"
	case SourcePlugin:
		return "plugin"
	case SourceUser:
		return "user"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// Reasoning efforts a definition may ask for, lowest first.
var reasoningEfforts = []string{"minimal", "low", "medium", "high"}

// A Definition is one agent: its settings from the frontmatter, its system
// prompt from the Markdown body, and where it came from. A Definition is
// plain data; once it is shared (in a [Roster]) it must not be modified.
type Definition struct {
	// Name identifies the agent: lowercase letters, digits and single
	// hyphens, at most 64 bytes.
	Name        string
	Description string
	// Model names the model to use; "" means the session's default.
	Model string
	// Temperature is the sampling temperature, 0 to 2; nil means the
	// provider's default.
	Temperature *float64
	// ReasoningEffort is "minimal", "low", "medium" or "high"; "" means
	// the provider's default.
	ReasoningEffort string
	// Tools is the explicit list of tools the agent may use. nil means the
	// key was not set (see [Definition.Scope] for the defaults); an empty
	// list means no tools at all.
	Tools []string
	// Prompt is the Markdown body, the agent's system prompt, with
	// surrounding blank space removed.
	Prompt string

	Source Source
	// Plugin names the plugin (skill pack) that provides the agent; it is
	// set exactly when Source is [SourcePlugin].
	Plugin string
	// File is the definition's path, as given to the loader, for messages.
	File string
}

// QualifiedName returns "<plugin>:<name>" for a plugin agent and the bare
// name otherwise. [Roster.Lookup] accepts both forms.
func (d *Definition) QualifiedName() string {
	if d.Source == SourcePlugin {
		return d.Plugin + ":" + d.Name
	}
	return d.Name
}

// PoolKey returns the key under which the agent's state (sessions,
// connections) is pooled: "plugin-<plugin>-<name>" for a plugin agent and
// "agent-<name>" otherwise, so agents of two plugins that share a name
// never share state.
func (d *Definition) PoolKey() string {
	if d.Source == SourcePlugin {
		return "plugin-" + d.Plugin + "-" + d.Name
	}
	return "agent-" + d.Name
}

// A DefinitionError is one thing wrong with a definition file.
// [ParseDefinition] reports every such problem it finds, joined with
// [errors.Join], so an author can fix them all in one pass.
type DefinitionError struct {
	// File is the definition's path, as given to the parser.
	File string
	// Line is the 1-based line in File, or 0 when there is none.
	Line int
	// Field is the frontmatter key concerned, if any.
	Field   string
	Message string
}

// Error formats the problem as "file:line: message".
func (e *DefinitionError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

var (
	namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// knownKeys are the frontmatter keys of a definition, in documentation order.
var knownKeys = []string{"name", "description", "model", "temperature", "reasoning_effort", "tools"}

// ParseDefinition parses one agent definition: YAML frontmatter between two
// "---" lines, then the Markdown system prompt. src and plugin say where it
// comes from (plugin is required for [SourcePlugin] and must be empty
// otherwise); file names it in messages.
//
// Parsing is strict. Every problem found is a [*DefinitionError] with the
// file and line; several are joined with [errors.Join]:
//   - a key other than name, description, model, temperature,
//     reasoning_effort and tools;
//   - a missing or malformed name;
//   - a temperature that is not a number from 0 to 2;
//   - a reasoning_effort other than minimal, low, medium and high;
//   - tools that is neither a list of tool names nor a string of names
//     separated by commas or spaces (the form Claude Code subagents use);
//   - YAML anchors, aliases, explicit tags and duplicate keys;
//   - a file larger than 256 KiB.
func ParseDefinition(data []byte, file string, src Source, plugin string) (*Definition, error) {
	if err := checkOrigin(src, plugin); err != nil {
		return nil, fmt.Errorf("agent: parsing %s: %w", file, err)
	}
	p := &parser{file: file}
	fm, body, ok := p.split(data)
	if !ok {
		return nil, p.err()
	}
	d := &Definition{
		Source: src,
		Plugin: plugin,
		File:   file,
		Prompt: strings.TrimSpace(body),
	}
	p.fields(fm, d)
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	return d, nil
}

// checkOrigin checks the caller's src and plugin (a programmer error, not
// a problem of the file).
func checkOrigin(src Source, plugin string) error {
	switch {
	case src < SourceBuiltin || src > SourceUser:
		return fmt.Errorf("invalid source %d", int(src))
	case src == SourcePlugin && plugin == "":
		return errors.New("a plugin definition needs its plugin's name")
	case src != SourcePlugin && plugin != "":
		return fmt.Errorf("plugin %q given for a %s definition", plugin, src)
	case strings.ContainsFunc(plugin, func(r rune) bool {
		return r == ':' || r == '/' || unicode.IsSpace(r) || unicode.IsControl(r)
	}):
		return fmt.Errorf("invalid plugin name %q", plugin)
	}
	return nil
}

// A parser collects the problems of one file.
type parser struct {
	file string
	errs []error
}

func (p *parser) add(line int, field, format string, args ...any) {
	p.errs = append(p.errs, &DefinitionError{File: p.file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error {
	if len(p.errs) == 1 {
		return p.errs[0]
	}
	return errors.Join(p.errs...)
}

// definitionLimits bound an agent definition read by [frontyaml.Parse].
var definitionLimits = frontyaml.Limits{Name: "agent definition", File: maxFileSize, Frontmatter: maxFileSize, Depth: maxYAMLDepth}

// split checks the file as a whole and returns its frontmatter, a YAML
// mapping, and its body. The shared reader refuses what is unsafe (size,
// encoding, anchors and aliases, depth, duplicate keys); what it only
// reports (a byte-order mark, flow style, tags) is left to fields, which
// refuses explicit tags itself.
func (p *parser) split(data []byte) (fm *yaml.Node, body string, ok bool) {
	doc, issues := frontyaml.Parse(data, definitionLimits)
	if doc == nil {
		last := issues[len(issues)-1]
		p.add(last.Line, last.Field, "%s", last.Message)
		return nil, "", false
	}
	return doc.Fields, doc.Body, true
}

// fields reads the frontmatter mapping into d.
func (p *parser) fields(fm *yaml.Node, d *Definition) {
	seen := make(map[string]int, len(fm.Content)/2)
	for i := 0; i+1 < len(fm.Content); i += 2 {
		k, v := fm.Content[i], fm.Content[i+1]
		line := k.Line
		if k.Kind != yaml.ScalarNode || k.Style&yaml.TaggedStyle != 0 {
			p.add(line, "", "frontmatter keys must be plain strings")
			continue
		}
		key := k.Value
		if first, dup := seen[key]; dup {
			p.add(line, key, "duplicate key %q (first defined on line %d)", key, first)
			continue
		}
		seen[key] = line
		if !slices.Contains(knownKeys, key) {
			hint := ""
			if s := tomlx.Closest(strings.ToLower(key), knownKeys); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			p.add(line, key, "unknown key %q%s; an agent definition has the keys %s", key, hint, strings.Join(knownKeys, ", "))
			continue
		}
		if v.Style&yaml.TaggedStyle != 0 {
			p.add(v.Line, key, "%s: explicit YAML tag %s is not allowed", key, v.Tag)
			continue
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			p.add(v.Line, key, "%s has no value; give one or remove the key", key)
			continue
		}
		switch key {
		case "name":
			p.name(v, d)
		case "description":
			if s, ok := p.scalar(key, v); ok {
				d.Description = s
				if s == "" {
					p.add(v.Line, key, "description is empty; say what the agent is for or remove the key")
				} else if len(s) > maxDescriptionLength {
					p.add(v.Line, key, "description is %d bytes; the limit is %d", len(s), maxDescriptionLength)
				}
			}
		case "model":
			if s, ok := p.scalar(key, v); ok {
				d.Model = s
				if s == "" || len(s) > maxModelLength || strings.ContainsFunc(s, unicode.IsSpace) {
					p.add(v.Line, key, "model %q must be a model name of 1 to %d characters without spaces", s, maxModelLength)
				}
			}
		case "temperature":
			p.temperature(v, d)
		case "reasoning_effort":
			if s, ok := p.scalar(key, v); ok {
				d.ReasoningEffort = s
				if !slices.Contains(reasoningEfforts, s) {
					p.add(v.Line, key, "reasoning_effort %q must be one of %s", s, strings.Join(reasoningEfforts, ", "))
				}
			}
		case "tools":
			p.tools(v, d)
		}
	}
	if _, ok := seen["name"]; !ok {
		p.add(1, "name", "name is required: add a line such as \"name: reviewer\" to the frontmatter")
	}
}

// scalar returns v's text, or reports that key needs a single value.
func (p *parser) scalar(key string, v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		p.add(v.Line, key, "%s must be a single value, not a list or mapping", key)
		return "", false
	}
	return v.Value, true
}

func (p *parser) name(v *yaml.Node, d *Definition) {
	s, ok := p.scalar("name", v)
	if !ok {
		return
	}
	d.Name = s
	switch {
	case len(s) > maxNameLength:
		p.add(v.Line, "name", "name is %d bytes; the limit is %d", len(s), maxNameLength)
	case !namePattern.MatchString(s):
		p.add(v.Line, "name", "name %q must be lowercase letters, digits and single hyphens (a-z, 0-9, -), not starting or ending with a hyphen", s)
	}
}

func (p *parser) temperature(v *yaml.Node, d *Definition) {
	line := v.Line
	var t float64
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || v.Decode(&t) != nil {
		p.add(line, "temperature", "temperature must be a number from 0 to 2, not %q", v.Value)
		return
	}
	if !(t >= 0 && t <= 2) { // also catches NaN
		p.add(line, "temperature", "temperature %s is out of range; it must be from 0 to 2", v.Value)
		return
	}
	d.Temperature = &t
}

func (p *parser) tools(v *yaml.Node, d *Definition) {
	type item struct {
		name string
		line int
	}
	var items []item
	switch v.Kind {
	case yaml.ScalarNode:
		// "Read, Grep, Glob" or "read grep": Claude Code's form.
		for _, f := range strings.FieldsFunc(v.Value, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			items = append(items, item{f, v.Line})
		}
	case yaml.SequenceNode:
		for _, c := range v.Content {
			line := c.Line
			if c.Kind != yaml.ScalarNode || c.Style&yaml.TaggedStyle != 0 || c.Tag == "!!null" {
				p.add(line, "tools", "tools must be a list of tool names")
				return
			}
			items = append(items, item{c.Value, line})
		}
	default:
		p.add(v.Line, "tools", "tools must be a list of tool names")
		return
	}
	if len(items) > maxTools {
		p.add(v.Line, "tools", "tools lists %d tools; the limit is %d", len(items), maxTools)
		return
	}
	tools := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		switch {
		case it.name == "" || len(it.name) > maxToolNameLength ||
			strings.ContainsFunc(it.name, func(r rune) bool { return r == ',' || unicode.IsSpace(r) || unicode.IsControl(r) }):
			p.add(it.line, "tools", "%q is not a tool name", it.name)
		case seen[it.name]:
			p.add(it.line, "tools", "tool %q is listed twice", it.name)
		default:
			seen[it.name] = true
			tools = append(tools, it.name)
		}
	}
	d.Tools = tools
}

// LoadDir loads every definition file (*.md, not hidden) directly in dir,
// in name order, with [ParseDefinition]. Files are opened through
// [os.OpenRoot], so a symbolic link cannot lead outside dir. It returns
// the definitions that parsed and an error for each file that did not; a
// dir that does not exist is an error that matches [fs.ErrNotExist]. A
// directory with more than 1000 definition files is refused
// whole.
func LoadDir(dir string, src Source, plugin string) ([]*Definition, []error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("agent: loading definitions: %w", err)}
	}
	defer root.Close()
	return load(root.FS(), func(name string) string { return filepath.Join(dir, name) }, src, plugin)
}

// loadFS is [LoadDir] for the root directory of fsys (use [fs.Sub] for
// another). Files are named by their path in fsys.
func loadFS(fsys fs.FS, src Source, plugin string) ([]*Definition, []error) {
	return load(fsys, func(name string) string { return name }, src, plugin)
}

func load(fsys fs.FS, fileName func(string) string, src Source, plugin string) ([]*Definition, []error) {
	if err := checkOrigin(src, plugin); err != nil {
		return nil, []error{fmt.Errorf("agent: loading definitions: %w", err)}
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, []error{fmt.Errorf("agent: loading definitions: %w", err)}
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || path.Ext(n) != ".md" || e.IsDir() {
			continue
		}
		if t := e.Type(); !t.IsRegular() && t&fs.ModeSymlink == 0 {
			continue
		}
		names = append(names, n)
	}
	if len(names) > maxDirFiles {
		return nil, []error{fmt.Errorf("agent: loading definitions from %s: %d definition files; the limit is %d",
			fileName("."), len(names), maxDirFiles)}
	}
	var (
		defs []*Definition
		errs []error
	)
	for _, n := range names {
		file := fileName(n)
		data, err := readFile(fsys, n)
		if errors.Is(err, errNotRegular) {
			continue // a symbolic link to a directory, say
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("agent: %w", err))
			continue
		}
		d, err := ParseDefinition(data, file, src, plugin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		defs = append(defs, d)
	}
	return defs, errs
}

var errNotRegular = errors.New("not a regular file")

// readFile reads name from fsys, at most one byte more than maxFileSize so
// that ParseDefinition reports an oversized file without reading it all.
func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

//go:embed builtin/*.md
var builtinFS embed.FS

// Builtin returns the definitions shipped with skillrun, with Source
// [SourceBuiltin]: "general", a general-purpose assistant with every tool.
// Each call returns new values, which the caller may modify.
func Builtin() []*Definition {
	sub, err := fs.Sub(builtinFS, "builtin")
	if err != nil {
		panic(err)
	}
	defs, errs := load(sub, func(name string) string { return "builtin/" + name }, SourceBuiltin, "")
	if len(errs) > 0 {
		panic(fmt.Sprintf("agent: invalid builtin definition: %v", errors.Join(errs...)))
	}
	return defs
}
