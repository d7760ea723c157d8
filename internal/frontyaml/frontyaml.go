// Package frontyaml reads Markdown files that open with YAML frontmatter
// (SKILL.md, agent definitions) from untrusted authors: bounded in size
// and depth, refusing YAML anchors and aliases before anything could expand
// them, with every problem placed on its line of the file.
package frontyaml

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"
)

// Issue codes. Stable identifiers callers match on; messages are for people.
const (
	CodeTooLarge       = "too-large"
	CodeEncoding       = "encoding"
	CodeBOM            = "byte-order-mark"
	CodeNoFrontmatter  = "no-frontmatter"
	CodeUnclosed       = "frontmatter-unclosed"
	CodeYAMLSyntax     = "yaml-syntax"
	CodeNotMapping     = "frontmatter-not-mapping"
	CodeYAMLAlias      = "yaml-alias"
	CodeYAMLDepth      = "yaml-depth"
	CodeYAMLDuplicate  = "yaml-duplicate-key"
	CodeYAMLFlowStyle  = "yaml-flow-style"
	CodeYAMLTag        = "yaml-tag"
	CodeYAMLComplexKey = "yaml-complex-key"
)

// Limits bound one kind of file. Name is how messages call it
// ("SKILL.md", "agent definition").
type Limits struct {
	Name        string
	File        int // bytes of the whole file
	Frontmatter int // bytes of the YAML between the --- lines
	Depth       int // nesting of mappings and sequences
}

// An Issue is one problem, placed on a line of the file (0: no line).
// Field is the frontmatter key concerned, when there is one.
type Issue struct {
	Code    string
	Line    int
	Field   string
	Message string
}

// A Doc is a file split in two: the frontmatter as a YAML node tree (lines
// are lines of the file) and the Markdown body.
type Doc struct {
	Fields   *yaml.Node // a MappingNode
	Body     string
	BodyLine int // 1-based line of the body's first line
}

var (
	yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)
	bom      = []byte("\xEF\xBB\xBF")
)

// offset turns a line of the YAML into a line of the file: the YAML starts
// on line 2, after the opening ---.
const offset = 1

// Parse splits data and parses its frontmatter. A nil Doc means the file
// cannot be read at all, and the last issue says why. A Doc with issues
// has only gradable ones, which the caller decides on: a UTF-8 byte-order
// mark (stripped), flow-style collections and explicit tags.
//
// The closing --- must be a line of its own, so a value containing "---"
// parses correctly.
func Parse(data []byte, l Limits) (*Doc, []Issue) {
	var is []Issue
	add := func(code string, line int, format string, args ...any) {
		is = append(is, Issue{Code: code, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	if len(data) > l.File {
		add(CodeTooLarge, 0, "%s is %d bytes; the limit is %d KiB", l.Name, len(data), l.File>>10)
		return nil, is
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8Offset(data)], []byte("\n"))
		add(CodeEncoding, line, "%s is not valid UTF-8 (first bad byte on this line); save it as UTF-8", l.Name)
		return nil, is
	}
	data = lonelyCRs(data)
	if bytes.HasPrefix(data, bom) {
		add(CodeBOM, 1, "%s starts with a UTF-8 byte-order mark; remove it so the file starts with ---", l.Name)
		data = data[len(bom):]
	}
	if !startsWithDelimiter(data) {
		add(CodeNoFrontmatter, 1, "%s must start with YAML frontmatter: a first line of exactly ---", l.Name)
		return nil, is
	}

	var raw []byte
	format := frontmatter.NewFormat("---", "---", func(b []byte, _ any) error {
		raw = b
		return nil
	})
	body, err := frontmatter.MustParse(bytes.NewReader(data), nil, format)
	if errors.Is(err, frontmatter.ErrNotFound) {
		add(CodeUnclosed, 1, "%s frontmatter is not closed: add a line of exactly --- after the YAML", l.Name)
		return nil, is
	}
	if err != nil { // only I/O errors from a bytes.Reader: cannot happen
		add(CodeYAMLSyntax, 1, "reading frontmatter: %v", err)
		return nil, is
	}
	if len(raw) > l.Frontmatter {
		add(CodeTooLarge, 2, "frontmatter is %d bytes; the limit is %d KiB", len(raw), l.Frontmatter>>10)
		return nil, is
	}

	doc := &Doc{
		Body:     string(body),
		BodyLine: 1 + bytes.Count(data[:len(data)-len(body)], []byte("\n")),
	}
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		msg, line := err.Error(), 0
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + offset
			msg = msg[len(m[0]):]
		}
		add(CodeYAMLSyntax, line, "invalid YAML in frontmatter: %s", trimYAMLPrefix(msg))
		return nil, is
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		add(CodeNotMapping, 2, "%s frontmatter must be a YAML mapping of fields such as name: and description:", l.Name)
		return nil, is
	}
	doc.Fields = root.Content[0]
	if checkDialect(doc.Fields, 1, l.Depth, &is) {
		return nil, is
	}
	shiftLines(doc.Fields, offset)
	return doc, is
}

// lonelyCRs returns data with every CR not followed by LF made an LF: a
// file with old Mac line endings (CR only) reads as its lines, as Python's
// universal newlines read it for the reference validator. CRLF is kept.
func lonelyCRs(data []byte) []byte {
	i := bytes.IndexByte(data, '\r')
	if i < 0 {
		return data
	}
	out := bytes.Clone(data)
	for ; i < len(out); i++ {
		if out[i] == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// startsWithDelimiter reports whether the first line is exactly "---"
// (allowing trailing spaces and CRLF, as the frontmatter library does).
func startsWithDelimiter(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

func trimYAMLPrefix(msg string) string {
	const p = "yaml: "
	if len(msg) > len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}

// checkDialect walks the node tree once. Anchors and aliases (which could
// expand into a billion laughs in a naive consumer), nesting deeper than
// maxDepth, and duplicate or non-scalar keys are fatal; flow style and
// explicit tags are gradable issues. It reports whether the document must
// be refused.
func checkDialect(n *yaml.Node, depth, maxDepth int, is *[]Issue) (fatal bool) {
	add := func(code string, n *yaml.Node, field, format string, args ...any) {
		*is = append(*is, Issue{Code: code, Line: n.Line + offset, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if depth > maxDepth {
		add(CodeYAMLDepth, n, "", "frontmatter nests deeper than %d levels", maxDepth)
		return true
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		add(CodeYAMLAlias, n, "", "YAML anchors and aliases (&, *) are not allowed in frontmatter")
		return true
	}
	if n.Style&yaml.TaggedStyle != 0 {
		add(CodeYAMLTag, n, "", "explicit YAML tag %s is not allowed; every value is read as a string", n.Tag)
	}
	if n.Style&yaml.FlowStyle != 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
		add(CodeYAMLFlowStyle, n, "", "flow-style YAML ([...] or {...}) is not allowed by the reference validator; use one \"- item\" per line")
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				add(CodeYAMLComplexKey, k, "", "frontmatter keys must be plain strings")
				return true
			}
			if first, dup := seen[k.Value]; dup {
				add(CodeYAMLDuplicate, k, k.Value, "duplicate key %q (first defined on line %d)", k.Value, first+offset)
				return true
			}
			seen[k.Value] = k.Line
			if checkDialect(k, depth+1, maxDepth, is) || checkDialect(n.Content[i+1], depth+1, maxDepth, is) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if checkDialect(c, depth+1, maxDepth, is) {
				return true
			}
		}
	}
	return false
}

// shiftLines turns YAML-relative line numbers into file line numbers.
func shiftLines(n *yaml.Node, offset int) {
	n.Line += offset
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}
