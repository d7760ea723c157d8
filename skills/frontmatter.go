package skills

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

// Bounds on untrusted SKILL.md input. The largest real SKILL.md we have seen
// is 74 KB; the bounds leave room while keeping a hostile file cheap to refuse.
const (
	// MaxSkillFileSize bounds SKILL.md (frontmatter and body).
	MaxSkillFileSize = 1 << 20
	// MaxFrontmatterSize bounds the YAML between the two --- lines.
	MaxFrontmatterSize = 64 << 10
	// MaxYAMLDepth bounds nesting of mappings and sequences in frontmatter.
	MaxYAMLDepth = 32
)

// Problem codes for frontmatter syntax. Codes are stable identifiers that
// tools (and the lenient loader) match on; messages are for people.
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

// frontmatterDoc is SKILL.md split in two: the YAML frontmatter as a node
// tree (so every value keeps its line) and the Markdown body.
type frontmatterDoc struct {
	fields   *yaml.Node // a MappingNode
	body     string
	bodyLine int // 1-based line of the body's first line in the file
}

// yamlLine matches the "yaml: line N:" prefix yaml.v3 puts on syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// bom is the UTF-8 byte-order mark some Windows editors prepend.
var bom = []byte("\xEF\xBB\xBF")

// parseFrontmatter splits data into frontmatter and body and parses the
// frontmatter as YAML in skillrun's dialect (see RATIONALE.md "YAML
// dialect"): anchors, aliases and duplicate keys are always errors; explicit
// tags and flow-style collections are problems that the caller grades
// (errors when validating, as strictyaml does, warnings when loading).
//
// Unlike the reference validator, which splits on the first "---"
// substring, the closing delimiter must be a line of its own, so a
// description containing "---" parses correctly.
func parseFrontmatter(data []byte, file string) (*frontmatterDoc, Problems) {
	var ps Problems
	add := func(code string, line int, format string, args ...any) {
		ps = append(ps, Problem{File: file, Line: line, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if len(data) > MaxSkillFileSize {
		add(CodeTooLarge, 0, "SKILL.md is %d bytes; the limit is %d KiB", len(data), MaxSkillFileSize>>10)
		return nil, ps
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8Offset(data)], []byte("\n"))
		add(CodeEncoding, line, "SKILL.md is not valid UTF-8 (first bad byte on this line); save it as UTF-8")
		return nil, ps
	}
	if bytes.HasPrefix(data, bom) {
		// Graded by the caller: the reference validator rejects it, clients
		// can strip it harmlessly.
		add(CodeBOM, 1, "SKILL.md starts with a UTF-8 byte-order mark; remove it so the file starts with ---")
		data = data[len(bom):]
	}
	if !startsWithDelimiter(data) {
		add(CodeNoFrontmatter, 1, "SKILL.md must start with YAML frontmatter: a first line of exactly ---")
		return nil, ps
	}

	var raw []byte
	format := frontmatter.NewFormat("---", "---", func(b []byte, _ any) error {
		raw = b
		return nil
	})
	body, err := frontmatter.MustParse(bytes.NewReader(data), nil, format)
	if errors.Is(err, frontmatter.ErrNotFound) {
		add(CodeUnclosed, 1, "SKILL.md frontmatter is not closed: add a line of exactly --- after the YAML")
		return nil, ps
	}
	if err != nil { // only I/O errors from a bytes.Reader: cannot happen
		add(CodeYAMLSyntax, 1, "reading frontmatter: %v", err)
		return nil, ps
	}
	if len(raw) > MaxFrontmatterSize {
		add(CodeTooLarge, 2, "frontmatter is %d bytes; the limit is %d KiB", len(raw), MaxFrontmatterSize>>10)
		return nil, ps
	}

	const offset = 1 // the YAML starts on line 2, after the opening ---
	doc := &frontmatterDoc{
		body:     string(body),
		bodyLine: 1 + bytes.Count(data[:len(data)-len(body)], []byte("\n")),
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
		return nil, ps
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		add(CodeNotMapping, 2, "SKILL.md frontmatter must be a YAML mapping of fields such as name: and description:")
		return nil, ps
	}
	doc.fields = root.Content[0]
	fatal := checkDialect(doc.fields, 1, offset, file, &ps)
	if fatal {
		return nil, ps
	}
	shiftLines(doc.fields, offset)
	return doc, ps
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

// checkDialect walks the node tree once. It reports anchors and aliases
// (which could expand into a billion laughs in a naive consumer), nesting
// deeper than MaxYAMLDepth, and duplicate or non-scalar keys as fatal; flow
// style and explicit tags as gradable problems. It returns whether the
// document must be refused.
func checkDialect(n *yaml.Node, depth, offset int, file string, ps *Problems) (fatal bool) {
	add := func(code string, n *yaml.Node, format string, args ...any) {
		*ps = append(*ps, Problem{File: file, Line: n.Line + offset, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if depth > MaxYAMLDepth {
		add(CodeYAMLDepth, n, "frontmatter nests deeper than %d levels", MaxYAMLDepth)
		return true
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		add(CodeYAMLAlias, n, "YAML anchors and aliases (&, *) are not allowed in frontmatter")
		return true
	}
	if n.Style&yaml.TaggedStyle != 0 {
		add(CodeYAMLTag, n, "explicit YAML tag %s is not allowed; every value is read as a string", n.Tag)
	}
	if n.Style&yaml.FlowStyle != 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
		add(CodeYAMLFlowStyle, n, "flow-style YAML ([...] or {...}) is not allowed by the reference validator; use one \"- item\" per line")
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				add(CodeYAMLComplexKey, k, "frontmatter keys must be plain strings")
				return true
			}
			if first, dup := seen[k.Value]; dup {
				add(CodeYAMLDuplicate, k, "duplicate key %q (first defined on line %d)", k.Value, first+offset)
				return true
			}
			seen[k.Value] = k.Line
			if checkDialect(k, depth+1, offset, file, ps) || checkDialect(n.Content[i+1], depth+1, offset, file, ps) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if checkDialect(c, depth+1, offset, file, ps) {
				return true
			}
		}
	}
	return false
}

// shiftLines turns YAML-relative line numbers into SKILL.md line numbers.
func shiftLines(n *yaml.Node, offset int) {
	n.Line += offset
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}
