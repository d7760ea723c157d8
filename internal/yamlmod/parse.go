package yamlmod

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/skills"
)

// Bounds of a module file: it is a stranger's.
const (
	// MaxFile is the largest skill.yaml, tool.yaml or agent file read.
	MaxFile = 1 << 20
	// maxEntries bounds the entries of skills/, tools/ and agents/.
	maxEntries = 1000
	// maxYAMLDepth bounds nesting; schemas nest, so it is deeper than
	// mdskill's step lists allow.
	maxYAMLDepth = 32
	// maxList bounds every list in a file.
	maxList = 256
	// maxTriggers and maxTriggerLen are skill.toml's bounds on triggers,
	// which a disclosed skill's triggers become.
	maxTriggers   = 64
	maxTriggerLen = 64
	// maxIDLen bounds ids and action names: a tool's action is served as
	// <tool>__<action>, at most 128 bytes.
	maxIDLen = 62
)

// idPattern is what an id (a folder or file name) may hold.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// A parser collects the problems of one file.
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

func (p *parser) failed() bool { return len(p.problems.Errors()) > 0 }

// document parses data as one YAML document whose root is a mapping
// with the one key top ("skill", "tool", "agent") and returns its fields,
// or nil after reporting why not.
func (p *parser) document(data []byte, top string, known []string) *fields {
	if len(data) > MaxFile {
		p.errf(0, "", "%d bytes, over the %d-byte limit for a module file", len(data), MaxFile)
		return nil
	}
	if !utf8.Valid(data) {
		p.errf(invalidUTF8Line(data), "", "not UTF-8 text")
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errf(1, top, "the file is empty; it holds one mapping, %s: {...}", top)
		} else {
			p.yamlError(data, err)
		}
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			line = yamlErrLine(err)
		}
		p.errf(line, "", "a second YAML document (after ---): the file holds one %s", top)
		return nil
	}
	if len(doc.Content) == 0 {
		p.errf(1, top, "the file is empty; it holds one mapping, %s: {...}", top)
		return nil
	}
	root := doc.Content[0]
	if msg, at := refuseYAML(root, 0); msg != "" {
		p.errf(at, "", "%s", msg)
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errf(root.Line, "", "the file is %s; it must be a mapping with one key, %s", describe(root), top)
		return nil
	}
	f := p.mapping(root, "", []string{top})
	if f == nil {
		return nil
	}
	v := f.vals[top]
	if v == nil {
		p.errf(f.lineOf(top), top, "no %s: the file is one mapping, %s: {...}", top, top)
		return nil
	}
	return p.mapping(v, top, known)
}

// yamlErrRE finds the line in a go.yaml.in/yaml/v3 syntax error.
var yamlErrRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlErrLine(err error) int {
	if m := yamlErrRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// yamlError reports a YAML syntax error at its line. A tab in the
// indentation gets a message of its own: the parser's names the line
// before it, and says nothing of tabs.
func (p *parser) yamlError(data []byte, err error) {
	line, msg := yamlErrLine(err), strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlErrRE.FindStringSubmatch(err.Error()); m != nil {
		msg = m[2]
	}
	lines := strings.Split(string(data), "\n")
	for n := max(line, 1); n <= line+1 && n <= len(lines); n++ {
		l := lines[n-1]
		if indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]; strings.Contains(indent, "\t") {
			p.errf(n, "", "a tab in the indentation: YAML indents with spaces only")
			return
		}
	}
	p.errf(line, "", "invalid YAML: %s", msg)
}

func invalidUTF8Line(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return bytes.Count(data[:i], []byte("\n")) + 1
		}
		i += n
	}
	return 0
}

// refuseYAML finds what a module file never needs and an attacker would
// use: anchors and aliases (expansion bombs, merge keys) and deep
// nesting. It returns what is wrong and its line.
func refuseYAML(n *yaml.Node, depth int) (string, int) {
	if depth > maxYAMLDepth {
		return fmt.Sprintf("nests deeper than %d levels", maxYAMLDepth), n.Line
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return "YAML anchors and aliases (&, *, <<) are not allowed: write the value out", n.Line
	}
	for _, c := range n.Content {
		if msg, at := refuseYAML(c, depth+1); msg != "" {
			return msg, at
		}
	}
	return "", 0
}

// fields are the keys of one mapping: the values (null ones left out, as
// if absent) and the line of every key.
type fields struct {
	line  int // the mapping's
	field string
	vals  map[string]*yaml.Node
	lines map[string]int
}

// lineOf is the line of key k, or of the mapping when k is absent.
func (f *fields) lineOf(k string) int {
	if l, ok := f.lines[k]; ok {
		return l
	}
	return f.line
}

// path is the field name of key k of f.
func (f *fields) path(k string) string { return join(f.field, k) }

func join(field, k string) string {
	if field == "" {
		return k
	}
	return field + "." + k
}

// mapping checks that n is a mapping whose keys are among known, each
// once, and returns them. field names n in problems.
func (p *parser) mapping(n *yaml.Node, field string, known []string) *fields {
	if n.Kind != yaml.MappingNode {
		p.errf(n.Line, field, "%s is %s; it must be a mapping with keys %s", field, describe(n), strings.Join(known, ", "))
		return nil
	}
	f := &fields{line: n.Line, field: field, vals: map[string]*yaml.Node{}, lines: map[string]int{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errf(k.Line, field, "a key of %s is %s; keys are plain words", orTop(field), describe(k))
			continue
		}
		name := k.Value
		if !slices.Contains(known, name) {
			p.errf(k.Line, join(field, name), "unknown key %q in %s (the keys are %s)", name, orTop(field), strings.Join(known, ", "))
			continue
		}
		if first, dup := f.lines[name]; dup {
			p.errf(k.Line, join(field, name), "%s again (first on line %d)", name, first)
			continue
		}
		f.lines[name] = k.Line
		if v.ShortTag() != "!!null" {
			f.vals[name] = v
		}
	}
	return f
}

func orTop(field string) string {
	if field == "" {
		return "the file"
	}
	return field
}

// describe names what a node is, for "must be X, not Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	}
	switch t := n.ShortTag(); t {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "empty"
	case "!!timestamp":
		return "a date"
	default:
		return "a value tagged " + t
	}
}

// str returns the string value of key k ("" when absent). A value of
// another type is an error.
func (p *parser) str(f *fields, k string) string {
	v := f.vals[k]
	if v == nil {
		return ""
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		p.errf(v.Line, f.path(k), "%s must be a string, not %s", f.path(k), describe(v))
		return ""
	}
	return strings.TrimSpace(v.Value)
}

// need reports key k of f as missing when s is empty.
func (p *parser) need(f *fields, k, s, what string) {
	if s == "" && !p.reported(f.path(k)) {
		p.errf(f.lineOf(k), f.path(k), "%s has no %s: %s", orTop(f.field), k, what)
	}
}

// reported says whether a problem about field was reported already.
func (p *parser) reported(field string) bool {
	for _, pr := range p.problems {
		if pr.Field == field {
			return true
		}
	}
	return false
}

// version returns a version: a string, or a number as written (1.0).
func (p *parser) version(f *fields, k string) string {
	v := f.vals[k]
	if v == nil {
		return ""
	}
	if t := v.ShortTag(); v.Kind != yaml.ScalarNode || t != "!!str" && t != "!!int" && t != "!!float" {
		p.errf(v.Line, f.path(k), "%s must be a string such as \"1.2.0\", not %s", f.path(k), describe(v))
		return ""
	}
	return strings.TrimSpace(v.Value)
}

// boolean returns the boolean value of key k (false when absent).
func (p *parser) boolean(f *fields, k string) bool {
	v := f.vals[k]
	if v == nil {
		return false
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
		p.errf(v.Line, f.path(k), "%s must be true or false, not %s", f.path(k), describe(v))
		return false
	}
	b, _ := strconv.ParseBool(strings.ToLower(v.Value))
	return b
}

// item is one string of a list, with its line.
type item struct {
	s    string
	line int
}

// list returns the items of the list of strings at key k, at most limit.
func (p *parser) list(f *fields, k string, limit int) []item {
	v := f.vals[k]
	if v == nil {
		return nil
	}
	field := f.path(k)
	if v.Kind != yaml.SequenceNode {
		p.errf(v.Line, field, "%s must be a list of strings, not %s", field, describe(v))
		return nil
	}
	if len(v.Content) > limit {
		p.errf(v.Line, field, "%s has %d entries, over the limit of %d", field, len(v.Content), limit)
		return nil
	}
	var out []item
	for i, c := range v.Content {
		if c.Kind != yaml.ScalarNode || c.ShortTag() != "!!str" {
			p.errf(c.Line, field, "%s entry %d must be a string, not %s", field, i+1, describe(c))
			continue
		}
		s := strings.TrimSpace(c.Value)
		if s == "" {
			p.errf(c.Line, field, "%s entry %d is empty", field, i+1)
			continue
		}
		out = append(out, item{s, c.Line})
	}
	return out
}

func strs(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.s
	}
	return out
}

// mappings returns the entries of the list of mappings at key k.
func (p *parser) mappings(f *fields, k string, limit int) []*yaml.Node {
	v := f.vals[k]
	if v == nil {
		return nil
	}
	field := f.path(k)
	if v.Kind != yaml.SequenceNode {
		p.errf(v.Line, field, "%s must be a list, not %s", field, describe(v))
		return nil
	}
	if len(v.Content) > limit {
		p.errf(v.Line, field, "%s has %d entries, over the limit of %d", field, len(v.Content), limit)
		return nil
	}
	return v.Content
}

// id checks the id at key k: present, a string of letters, digits, -
// and _, and want (the folder's or file's name).
func (p *parser) id(f *fields, want, where string) string {
	id := p.str(f, "id")
	p.need(f, "id", id, fmt.Sprintf("add id: %s, the name of its %s", want, where))
	switch {
	case id == "" || p.reported(f.path("id")):
	case !validID(id):
		p.errf(f.lineOf("id"), f.path("id"), "id %q: letters, digits, - and _, at most %d", id, maxIDLen)
	case id != want:
		p.errf(f.lineOf("id"), f.path("id"), "id %q does not match its %s %q: rename one so they agree", id, where, want)
	}
	return id
}

func validID(s string) bool { return len(s) <= maxIDLen && idPattern.MatchString(s) }

// toJSON converts a YAML node to the JSON value it stands for, or
// reports why it cannot be one.
func (p *parser) toJSON(n *yaml.Node, field string) (any, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		lines := map[string]int{}
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				p.errf(k.Line, field, "%s: a key is %s; JSON keys are strings", field, describe(k))
				return nil, false
			}
			if first, dup := lines[k.Value]; dup {
				p.errf(k.Line, field, "%s: key %q again (first on line %d)", field, k.Value, first)
				return nil, false
			}
			lines[k.Value] = k.Line
			v, vok := p.toJSON(n.Content[i+1], field+"."+k.Value)
			ok = ok && vok
			m[k.Value] = v
		}
		return m, ok
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		ok := true
		for _, c := range n.Content {
			v, vok := p.toJSON(c, field)
			ok = ok && vok
			s = append(s, v)
		}
		return s, ok
	case yaml.ScalarNode:
		return p.scalarJSON(n, field)
	}
	p.errf(n.Line, field, "%s: %s cannot be a JSON value", field, describe(n))
	return nil, false
}

func (p *parser) scalarJSON(n *yaml.Node, field string) (any, bool) {
	switch n.ShortTag() {
	case "!!str", "!!timestamp": // a date stays the text written
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
	}
	p.errf(n.Line, field, "%s: %q (%s) cannot be a JSON value", field, n.Value, describe(n))
	return nil, false
}
