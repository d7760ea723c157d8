package skills

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// Limits from the Agent Skills specification, counted in Unicode code
// points as the reference validator counts them.
const (
	maxNameLength          = 64
	maxDescriptionLength   = 1024
	maxCompatibilityLength = 500
)

// Problem codes for the field rules of the specification.
const (
	codeUnexpectedField     = "unexpected-field"
	codeNameMissing         = "name-missing"
	codeNameTooLong         = "name-too-long"
	codeNameCase            = "name-not-lowercase"
	codeNameHyphen          = "name-hyphen"
	codeNameChars           = "name-invalid-characters"
	codeNameDirMismatch     = "name-dir-mismatch"
	codeDescriptionMissing  = "description-missing"
	codeDescriptionTooLong  = "description-too-long"
	codeCompatibility       = "compatibility-invalid"
	codeAllowedTools        = "allowed-tools-invalid"
	codeMetadata            = "metadata-invalid"
	codeStringField         = "field-not-string"
	codeSkillFileMissing    = "skill-md-missing"
	codeManifest            = "manifest-invalid"
	codeManifestPathOutside = "manifest-path-outside"
	// codeSymlinkOutside: a symbolic link in the skill leads out of its
	// folder; codeTooManyFiles: the skill is too large to check for them.
	codeSymlinkOutside = "symlink-outside"
	codeTooManyFiles   = "too-many-files"
)

// fatalWhenLoading lists the problems that make a skill unusable even for
// a lenient client, following the spec's client guidance: without parsable
// frontmatter, a name or a description there is nothing to disclose.
var fatalWhenLoading = map[string]bool{
	codeTooLarge: true, codeEncoding: true, codeNoFrontmatter: true, codeUnclosed: true,
	codeYAMLSyntax: true, codeNotMapping: true, codeYAMLAlias: true, codeYAMLDepth: true,
	codeYAMLDuplicate: true, codeYAMLComplexKey: true, codeNameMissing: true,
	codeDescriptionMissing: true, codeSkillFileMissing: true, codeManifest: true,
	codeManifestPathOutside: true, codeSymlinkOutside: true, codeTooManyFiles: true,
}

// advisory lists problems the reference validator does not report; they
// are warnings even when validating, so verdicts match the reference.
var advisory = map[string]bool{codeMetadata: true}

// grade sets each problem's severity. Strict (validation) grading makes
// every spec violation an error; lenient (loading) grading keeps only
// fatalWhenLoading problems as errors.
func grade(ps Problems, strict bool) {
	for i := range ps {
		c := ps[i].Code
		switch {
		case advisory[c]:
			ps[i].Severity = Warning
		case strict || fatalWhenLoading[c]:
			ps[i].Severity = Error
		default:
			ps[i].Severity = Warning
		}
	}
}

// parseSkillMD parses and checks one SKILL.md. dirName is the name of the
// directory holding it (for the name rule); file is used in problems. The
// skill is nil when the frontmatter cannot be read at all. Problems are
// returned ungraded.
func parseSkillMD(data []byte, file, dirName string) (*Skill, Problems) {
	doc, ps := parseFrontmatter(data, file)
	if doc == nil {
		return nil, ps
	}
	s := &Skill{Body: doc.body, BodyLine: doc.bodyLine}
	add := func(code, field string, n *yaml.Node, format string, args ...any) {
		p := Problem{File: file, Field: field, Code: code, Message: fmt.Sprintf(format, args...)}
		if n != nil {
			p.Line = n.Line
		}
		ps = append(ps, p)
	}

	fields := map[string]*yaml.Node{}
	keyLine := map[string]*yaml.Node{}
	var extra []string
	for i := 0; i+1 < len(doc.fields.Content); i += 2 {
		k, v := doc.fields.Content[i], doc.fields.Content[i+1]
		fields[k.Value], keyLine[k.Value] = v, k
		if !isSpecField(k.Value) {
			extra = append(extra, k.Value)
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[k.Value] = nodeValue(v)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		first := keyLine[extra[0]]
		for _, k := range extra[1:] {
			if keyLine[k].Line < first.Line {
				first = keyLine[k]
			}
		}
		add(codeUnexpectedField, strings.Join(extra, ","), first,
			"unexpected fields in frontmatter: %s (only %s are allowed; put custom data under metadata:)",
			strings.Join(extra, ", "), strings.Join(specFields, ", "))
	}

	// name
	if n, ok := fields["name"]; !ok {
		add(codeNameMissing, "name", nil, "missing required field in frontmatter: name")
	} else if v, ok := scalar(n); !ok || trimSpace(v) == "" {
		add(codeNameMissing, "name", n, "field 'name' must be a non-empty string")
	} else {
		// The rules apply to the NFKC form; the name is kept as written
		// (trimmed), which is what the reference prints in the catalog.
		s.Name = trimSpace(v)
		for _, p := range nameProblems(s.Name) {
			add(p.Code, "name", n, "%s", p.Message)
		}
		if dirName != "" {
			if d, name := norm.NFKC.String(dirName), norm.NFKC.String(s.Name); d != name {
				add(codeNameDirMismatch, "name", n, "directory name %q must match skill name %q%s", dirName, s.Name, nfkcNote(s.Name, name))
			}
		}
	}

	// description
	if n, ok := fields["description"]; !ok {
		add(codeDescriptionMissing, "description", nil, "missing required field in frontmatter: description")
	} else if v, ok := scalar(n); !ok || trimSpace(v) == "" {
		add(codeDescriptionMissing, "description", n, "field 'description' must be a non-empty string")
	} else {
		s.Description = trimSpace(v)
		if c := utf8.RuneCountInString(v); c > maxDescriptionLength {
			add(codeDescriptionTooLong, "description", n, "description exceeds %d character limit (%d chars)", maxDescriptionLength, c)
		}
	}

	// compatibility
	if n, ok := fields["compatibility"]; ok {
		if v, ok := scalar(n); !ok {
			add(codeCompatibility, "compatibility", n, "field 'compatibility' must be a string")
		} else {
			s.Compatibility = v
			if c := utf8.RuneCountInString(v); c > maxCompatibilityLength {
				add(codeCompatibility, "compatibility", n, "compatibility exceeds %d character limit (%d chars)", maxCompatibilityLength, c)
			}
		}
	}

	// allowed-tools: a string, or a list of strings joined with spaces.
	if n, ok := fields["allowed-tools"]; ok {
		if v, ok := scalar(n); ok {
			s.AllowedTools = v
		} else if items, ok := scalarList(n); ok {
			s.AllowedTools = strings.Join(items, " ")
		} else if n.Kind == yaml.SequenceNode {
			add(codeAllowedTools, "allowed-tools", n, "field 'allowed-tools' list items must all be strings")
		} else {
			add(codeAllowedTools, "allowed-tools", n, "field 'allowed-tools' must be either a string or a list of strings")
		}
	}

	// license: any scalar; the reference does not check it further.
	if n, ok := fields["license"]; ok {
		if v, ok := scalar(n); ok {
			s.License = v
		} else {
			add(codeStringField, "license", n, "field 'license' must be a string")
		}
	}

	// metadata: the spec says a map of string to string. The reference
	// does not check it, so problems here are advisory.
	if n, ok := fields["metadata"]; ok {
		switch n.Kind {
		case yaml.MappingNode:
			s.Metadata = make(map[string]string, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if sv, ok := scalar(v); ok {
					s.Metadata[k.Value] = sv
				} else {
					add(codeMetadata, "metadata."+k.Value, v, "metadata value %q should be a string; nested values are ignored", k.Value)
				}
			}
		default:
			if v, ok := scalar(n); !ok || v != "" {
				add(codeMetadata, "metadata", n, "field 'metadata' should be a mapping of string keys to string values")
			}
		}
	}
	return s, ps
}

// ValidateName checks name against the specification's rules for a
// skill's name, as validating a SKILL.md does (the rules apply to its
// NFKC form): 1 to 64 characters, lowercase, only letters, digits and
// hyphens, no hyphen at either end and no two in a row. It returns nil
// for a valid name, else a [Problems] with one entry per broken rule
// (Field "name", a Code such as [codeNameCase], no file or line).
//
// The name is checked as given: surrounding white space is an invalid
// character here, while a SKILL.md's name is trimmed first.
func ValidateName(name string) error {
	if ps := nameProblems(name); len(ps) > 0 {
		return ps
	}
	return nil
}

// nameProblems lists the name rules name breaks, ungraded.
func nameProblems(name string) Problems {
	var ps Problems
	add := func(code, format string, args ...any) {
		ps = append(ps, Problem{Field: "name", Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if name == "" {
		add(codeNameMissing, "skill name must not be empty")
		return ps
	}
	nfkc := norm.NFKC.String(name)
	if c := utf8.RuneCountInString(nfkc); c > maxNameLength {
		add(codeNameTooLong, "skill name %q exceeds %d character limit (%d chars)", name, maxNameLength, c)
	}
	if nfkc != strings.ToLower(nfkc) {
		add(codeNameCase, "skill name %q must be lowercase", name)
	}
	if strings.HasPrefix(nfkc, "-") || strings.HasSuffix(nfkc, "-") {
		add(codeNameHyphen, "skill name %q cannot start or end with a hyphen", name)
	}
	if strings.Contains(nfkc, "--") {
		add(codeNameHyphen, "skill name %q cannot contain consecutive hyphens", name)
	}
	if bad := invalidNameRunes(nfkc); bad != "" {
		add(codeNameChars, "skill name %q contains invalid characters %s; only letters, digits, and hyphens are allowed", name, bad)
	}
	return ps
}

// nfkcNote says what name is compared as, when NFKC changes it.
func nfkcNote(raw, nfkc string) string {
	if raw == nfkc {
		return ""
	}
	return fmt.Sprintf(" (compared in NFKC form as %q)", nfkc)
}

// scalar returns a scalar node's text. Following the reference validator's
// strictyaml, every scalar is a string: 123, true and ~ are read as the
// strings "123", "true" and "~"; an empty value is "".
func scalar(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.Tag == "!!null" && n.Value == "" {
		return "", true
	}
	return n.Value, true
}

func scalarList(n *yaml.Node) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		v, ok := scalar(c)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// nodeValue converts a checked node tree (no aliases, bounded depth) into
// plain Go values: strings, []any and map[string]any.
func nodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.ScalarNode:
		v, _ := scalar(n)
		return v
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			out[i] = nodeValue(c)
		}
		return out
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = nodeValue(n.Content[i+1])
		}
		return out
	}
	return nil
}

// invalidNameRunes lists, quoted, the runes of name that are neither
// letters nor numbers (Unicode categories L and N, as Python's isalnum) nor
// '-'. It returns "" when there are none.
func invalidNameRunes(name string) string {
	var bad []string
	seen := map[rune]bool{}
	for _, r := range name {
		if r == '-' || unicode.IsLetter(r) || unicode.IsNumber(r) || seen[r] {
			continue
		}
		seen[r] = true
		bad = append(bad, fmt.Sprintf("%q", r))
	}
	return strings.Join(bad, ", ")
}

// trimSpace trims what Python's str.strip() trims (the reference
// implementation's rule): Unicode white space plus the ASCII separators
// U+001C to U+001F, which unicode.IsSpace does not include.
func trimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}
