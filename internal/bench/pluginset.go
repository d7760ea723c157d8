package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A PluginSet is what one arm of a comparison gives the agent: skills,
// MCP servers and the tools it may call. Its fields and their YAML keys
// are ADE-bench's (experiment_sets/plugin-sets.yaml), unchanged, so a
// file written for ADE-bench runs here as it is.
type PluginSet struct {
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Default sets run when no set is named.
	Default bool `json:"default" yaml:"default"`
	// Agents are the agents the set is meant for; nil means every agent.
	Agents []string `json:"agents,omitempty" yaml:"agents,omitempty"`
	// Skills are local paths (relative to the file), git URLs or GitHub
	// owner/repo names, as ADE-bench writes them (see ResolveSkills).
	Skills []string `json:"skills" yaml:"skills"`
	// MCPServers are started for each trial, by name.
	MCPServers map[string]MCPServer `json:"mcp_servers" yaml:"mcp_servers"`
	// AllowedTools are Claude Code tool names and globs ("Bash", "Read",
	// "mcp__dbt__*"); see ToolFilter. Empty allows every tool.
	AllowedTools []string `json:"allowed_tools" yaml:"allowed_tools"`
	// PromptSuffix is appended to each task's instruction.
	PromptSuffix string `json:"prompt_suffix,omitempty" yaml:"prompt_suffix,omitempty"`

	// Line is where the set starts in its file.
	Line int `json:"-" yaml:"-"`
}

// An MCPServer is a command that speaks MCP over stdio, as ADE-bench
// writes it.
type MCPServer struct {
	Command string            `json:"command" yaml:"command"`
	Args    []string          `json:"args,omitempty" yaml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
}

// PluginSets are the sets of one file, in its order.
type PluginSets struct {
	Sets []*PluginSet
	// File is where they were read from; skill paths are relative to its
	// folder.
	File string
}

// CompatibleWith reports whether the set may run with agent.
func (s *PluginSet) CompatibleWith(agent string) bool {
	return s.Agents == nil || slices.Contains(s.Agents, agent)
}

// Bounds of a plugin-sets file: it is the operator's, but a wrong file
// (a log, a dump) must fail fast, not be parsed for minutes.
const (
	maxSetsFile  = 1 << 20
	maxSetsDepth = 16
	maxSets      = 1000
)

// LoadPluginSets reads a plugin-sets file (see ParsePluginSets).
func LoadPluginSets(file string) (*PluginSets, error) {
	data, err := readBounded(file, maxSetsFile)
	if err != nil {
		return nil, err
	}
	return ParsePluginSets(data, file)
}

// ParsePluginSets parses a plugin-sets file strictly: an unknown key, a
// value of the wrong type, a duplicate set name, a tab in the
// indentation, a YAML anchor or alias are errors, each naming file:line.
// Keys and defaults are ADE-bench's.
func ParsePluginSets(data []byte, file string) (*PluginSets, error) {
	if len(data) > maxSetsFile {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit for a plugin-sets file", file, len(data), maxSetsFile)
	}
	p := &setsParser{file: file}
	for i, line := range bytes.Split(data, []byte("\n")) {
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			p.errf(i+1, "a tab in the indentation; YAML indents with spaces")
		}
	}
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty; a plugin-sets file holds sets: [...]", file)
	}
	root := doc.Content[0]
	if !p.dialect(root, 0) {
		return nil, p.err()
	}
	out := &PluginSets{File: file}
	sets := p.mapping(root, "the file", map[string]bool{"sets": true})
	seq, ok := sets["sets"]
	switch {
	case !ok:
		p.errf(root.Line, "no sets: a plugin-sets file holds sets: [...]")
	case seq.Kind != yaml.SequenceNode:
		p.errf(seq.Line, "sets must be a list of sets")
	case len(seq.Content) > maxSets:
		p.errf(seq.Line, "%d sets, over the limit of %d", len(seq.Content), maxSets)
	default:
		names := map[string]int{}
		for _, n := range seq.Content {
			s := p.set(n)
			if s == nil {
				continue
			}
			if first, dup := names[s.Name]; dup {
				p.errf(s.Line, "duplicate set name %q (first on line %d)", s.Name, first)
				continue
			}
			names[s.Name] = s.Line
			out.Sets = append(out.Sets, s)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	return out, nil
}

// Select returns the sets named, in the order named, or every default
// set when names is empty, each compatible with agent. An unknown name
// (the error lists the known ones), an incompatible set, or no set at
// all is an error: nothing should run on a selection the operator did
// not mean.
func (ps *PluginSets) Select(names []string, agent string) ([]*PluginSet, error) {
	var out []*PluginSet
	if len(names) == 0 {
		for _, s := range ps.Sets {
			if s.Default && s.CompatibleWith(agent) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no default set for agent %q; name one with --plugin-set (%s)", ps.File, agent, ps.names())
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, n := range names {
		i := slices.IndexFunc(ps.Sets, func(s *PluginSet) bool { return s.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("%s: unknown plugin set %q; available: %s", ps.File, n, ps.names())
		}
		s := ps.Sets[i]
		if !s.CompatibleWith(agent) {
			return nil, fmt.Errorf("%s:%d: plugin set %q is for agents %s, not %q", ps.File, s.Line, n, strings.Join(s.Agents, ", "), agent)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, s)
		}
	}
	return out, nil
}

func (ps *PluginSets) names() string {
	var n []string
	for _, s := range ps.Sets {
		n = append(n, s.Name)
	}
	if len(n) == 0 {
		return "the file has none"
	}
	return strings.Join(n, ", ")
}

// setsParser collects every problem of a file, each on its line.
type setsParser struct {
	file string
	errs []error
}

func (p *setsParser) errf(line int, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...)))
}

func (p *setsParser) err() error { return errors.Join(p.errs...) }

// dialect refuses what the file never needs and an attacker would use:
// anchors and aliases (expansion bombs), deep nesting, complex keys.
func (p *setsParser) dialect(n *yaml.Node, depth int) bool {
	if depth > maxSetsDepth {
		p.errf(n.Line, "nests deeper than %d levels", maxSetsDepth)
		return false
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		p.errf(n.Line, "YAML anchors and aliases (&, *) are not allowed")
		return false
	}
	for _, c := range n.Content {
		if !p.dialect(c, depth+1) {
			return false
		}
	}
	return true
}

// mapping returns n's keys and values, refusing a non-mapping, a key not
// in known, and a duplicate key.
func (p *setsParser) mapping(n *yaml.Node, what string, known map[string]bool) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.errf(n.Line, "%s must be a mapping of keys to values", what)
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errf(k.Line, "keys of %s must be plain strings", what)
			continue
		}
		if known != nil && !known[k.Value] {
			p.errf(k.Line, "unknown key %q in %s (known: %s)", k.Value, what, sortedKeys(known))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errf(k.Line, "duplicate key %q in %s", k.Value, what)
			continue
		}
		out[k.Value] = v
	}
	return out
}

var setKeys = map[string]bool{"name": true, "description": true, "default": true, "agents": true, "skills": true,
	"mcp_servers": true, "allowed_tools": true, "prompt_suffix": true}

var serverKeys = map[string]bool{"command": true, "args": true, "env": true}

func (p *setsParser) set(n *yaml.Node) *PluginSet {
	before := len(p.errs)
	f := p.mapping(n, "a set", setKeys)
	s := &PluginSet{Line: n.Line, Skills: []string{}, MCPServers: map[string]MCPServer{}, AllowedTools: []string{}}
	if v, ok := f["name"]; ok {
		s.Name = p.str(v, "name")
	}
	if strings.TrimSpace(s.Name) == "" {
		p.errf(n.Line, "a set needs a name")
	} else if strings.ContainsAny(s.Name, "/\\\x00") || s.Name == "." || s.Name == ".." {
		p.errf(n.Line, "set name %q cannot name a results folder (no /, \\, . or ..)", s.Name)
	}
	if v, ok := f["description"]; ok {
		s.Description = p.str(v, "description")
	}
	if v, ok := f["default"]; ok {
		s.Default = p.boolean(v, "default")
	}
	if v, ok := f["agents"]; ok && v.Tag != "!!null" {
		s.Agents = p.strs(v, "agents")
		if s.Agents == nil {
			s.Agents = []string{}
		}
	}
	if v, ok := f["skills"]; ok {
		s.Skills = p.strs(v, "skills")
	}
	if v, ok := f["allowed_tools"]; ok {
		s.AllowedTools = p.strs(v, "allowed_tools")
	}
	if v, ok := f["prompt_suffix"]; ok {
		s.PromptSuffix = p.str(v, "prompt_suffix")
	}
	if v, ok := f["mcp_servers"]; ok && v.Tag != "!!null" {
		servers := p.mapping(v, "mcp_servers", nil)
		for _, name := range sortedNodeKeys(servers) {
			sv := servers[name]
			if !validServerName(name) {
				p.errf(sv.Line, "MCP server name %q: use letters, digits, - and _ (it names tools mcp__%s__...)", name, name)
				continue
			}
			sf := p.mapping(sv, "MCP server "+name, serverKeys)
			var srv MCPServer
			if c, ok := sf["command"]; ok {
				srv.Command = p.str(c, "command")
			}
			if strings.TrimSpace(srv.Command) == "" {
				p.errf(sv.Line, "MCP server %s needs a command", name)
			}
			if a, ok := sf["args"]; ok {
				srv.Args = p.strs(a, "args")
			}
			if e, ok := sf["env"]; ok && e.Tag != "!!null" {
				srv.Env = map[string]string{}
				env := p.mapping(e, "env of "+name, nil)
				for _, k := range sortedNodeKeys(env) {
					srv.Env[k] = p.str(env[k], "env "+k)
				}
			}
			s.MCPServers[name] = srv
		}
	}
	if len(p.errs) > before {
		return nil
	}
	return s
}

// str reads a scalar as a string. ADE-bench's examples quote env values
// ("true") but YAML would also read a bare true or 3 as a string field.
func (p *setsParser) str(n *yaml.Node, key string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n.Line, "%s must be a string", key)
		return ""
	}
	return n.Value
}

func (p *setsParser) boolean(n *yaml.Node, key string) bool {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		p.errf(n.Line, "%s must be true or false", key)
	}
	return b
}

func (p *setsParser) strs(n *yaml.Node, key string) []string {
	if n.Tag == "!!null" {
		return []string{}
	}
	if n.Kind != yaml.SequenceNode {
		p.errf(n.Line, "%s must be a list", key)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
			p.errf(c.Line, "each of %s must be a string", key)
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

func validServerName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// sortedNodeKeys returns m's keys in the order of their lines, so errors
// come out in the file's order.
func sortedNodeKeys(m map[string]*yaml.Node) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.SortFunc(k, func(a, b string) int { return m[a].Line - m[b].Line })
	return k
}

func sortedKeys(m map[string]bool) string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return strings.Join(k, ", ")
}

// readBounded reads file, refusing one over limit bytes.
func readBounded(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s: over the %d-byte limit", file, limit)
	}
	return buf.Bytes(), nil
}
