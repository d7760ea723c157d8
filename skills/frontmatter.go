package skills

import (
	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/internal/frontyaml"
)

// Bounds on untrusted SKILL.md input. The largest real SKILL.md we have seen
// is 74 KB; the bounds leave room while keeping a hostile file cheap to refuse.
const (
	// maxSkillFileSize bounds SKILL.md, frontmatter and body together.
	// The frontmatter has no bound of its own: the reference validator
	// accepts any within the file, and what makes YAML costly (aliases,
	// depth) is refused by the dialect and maxYAMLDepth.
	maxSkillFileSize = 1 << 20
	// maxYAMLDepth bounds nesting of mappings and sequences in frontmatter.
	maxYAMLDepth = 32
)

// Problem codes for frontmatter syntax. Codes are stable identifiers that
// tools (and the lenient loader) match on; messages are for people.
const (
	codeTooLarge       = frontyaml.CodeTooLarge
	codeEncoding       = frontyaml.CodeEncoding
	codeBOM            = frontyaml.CodeBOM
	codeNoFrontmatter  = frontyaml.CodeNoFrontmatter
	codeUnclosed       = frontyaml.CodeUnclosed
	codeYAMLSyntax     = frontyaml.CodeYAMLSyntax
	codeNotMapping     = frontyaml.CodeNotMapping
	codeYAMLAlias      = frontyaml.CodeYAMLAlias
	codeYAMLDepth      = frontyaml.CodeYAMLDepth
	codeYAMLDuplicate  = frontyaml.CodeYAMLDuplicate
	codeYAMLFlowStyle  = frontyaml.CodeYAMLFlowStyle
	codeYAMLTag        = frontyaml.CodeYAMLTag
	codeYAMLComplexKey = frontyaml.CodeYAMLComplexKey
)

var skillLimits = frontyaml.Limits{Name: "SKILL.md", File: maxSkillFileSize, Frontmatter: maxSkillFileSize, Depth: maxYAMLDepth}

// frontmatterDoc is SKILL.md split in two: the YAML frontmatter as a node
// tree (so every value keeps its line) and the Markdown body.
type frontmatterDoc struct {
	fields   *yaml.Node // a MappingNode
	body     string
	bodyLine int // 1-based line of the body's first line in the file
}

// parseFrontmatter splits data into frontmatter and body and parses the
// frontmatter in skillrun's YAML dialect (RATIONALE.md "YAML dialect"):
// anchors, aliases and duplicate keys are always errors; explicit tags,
// flow style and a byte-order mark are problems the caller grades (errors
// when validating, as strictyaml does, warnings when loading).
func parseFrontmatter(data []byte, file string) (*frontmatterDoc, Problems) {
	doc, issues := frontyaml.Parse(data, skillLimits)
	var ps Problems
	for _, is := range issues {
		ps = append(ps, Problem{File: file, Line: is.Line, Code: is.Code, Message: is.Message})
	}
	if doc == nil {
		return nil, ps
	}
	return &frontmatterDoc{fields: doc.Fields, body: doc.Body, bodyLine: doc.BodyLine}, ps
}
