package skills

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codes returns the sorted problem codes of ps, graded strictly.
func strictCodes(ps Problems) []string {
	grade(ps, true)
	var out []string
	for _, p := range ps.Errors() {
		out = append(out, p.Code)
	}
	sort.Strings(out)
	return out
}

func fm(lines ...string) []byte {
	return []byte("---\n" + strings.Join(lines, "\n") + "\n---\n# Body\n")
}

func TestValidateRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name string
		md   []byte
		dir  string
		want []string // error codes, sorted; nil = valid
	}{
		{"minimal valid", fm("name: pdf", "description: Read PDFs."), "pdf", nil},
		{"all optional fields", fm("name: pdf", "description: d", "license: MIT", "compatibility: Needs poppler",
			"metadata:", "  author: me", "allowed-tools: Read Bash(git:*)"), "pdf", nil},
		{"allowed-tools as list", fm("name: pdf", "description: d", "allowed-tools:", "  - Read", "  - Write"), "pdf", nil},
		{"missing name", fm("description: d"), "pdf", []string{codeNameMissing}},
		{"empty name", fm("name: ''", "description: d"), "pdf", []string{codeNameMissing}},
		{"blank name", fm("name: '   '", "description: d"), "pdf", []string{codeNameMissing}},
		{"name is a list", fm("name:", "  - a", "description: d"), "pdf", []string{codeNameMissing}},
		{"number name read as string", fm("name: 123", "description: d"), "123", nil},
		{"uppercase", fm("name: PDF", "description: d"), "PDF", []string{codeNameCase}},
		{"title case with space", fm("name: Attio Automation", "description: d"), "attio-automation",
			[]string{codeNameDirMismatch, codeNameChars, codeNameCase}},
		{"leading hyphen", fm("name: -pdf", "description: d"), "-pdf", []string{codeNameHyphen}},
		{"trailing hyphen", fm("name: pdf-", "description: d"), "pdf-", []string{codeNameHyphen}},
		{"double hyphen", fm("name: pdf--x", "description: d"), "pdf--x", []string{codeNameHyphen}},
		{"underscore", fm("name: zoho_books", "description: d"), "zoho_books", []string{codeNameChars}},
		{"64 chars ok", fm("name: "+long(64), "description: d"), long(64), nil},
		{"65 chars", fm("name: "+long(65), "description: d"), long(65), []string{codeNameTooLong}},
		{"unicode letters and digits", fm("name: données-٣", "description: d"), "données-٣", nil},
		{"cjk name", fm("name: 技能", "description: d"), "技能", nil},
		{"nfkc: fullwidth matches dir", fm("name: ｐｄｆ", "description: d"), "pdf", nil},
		{"nfkc: dir normalised too", fm("name: pdf", "description: d"), "ｐｄｆ", nil},
		{"nfkc ligature", fm("name: ﬁle", "description: d"), "file", nil},
		{"name trimmed", fm("name: '  pdf  '", "description: d"), "pdf", nil},
		{"dir mismatch", fm("name: pdf", "description: d"), "pdf-tools", []string{codeNameDirMismatch}},
		{"missing description", fm("name: pdf"), "pdf", []string{codeDescriptionMissing}},
		{"empty description", fm("name: pdf", "description: ''"), "pdf", []string{codeDescriptionMissing}},
		{"null description", fm("name: pdf", "description:"), "pdf", []string{codeDescriptionMissing}},
		{"description is a mapping", fm("name: pdf", "description:", "  a: b"), "pdf", []string{codeDescriptionMissing}},
		{"description 1024 ok", fm("name: pdf", "description: "+long(1024)), "pdf", nil},
		{"description 1025", fm("name: pdf", "description: "+long(1025)), "pdf", []string{codeDescriptionTooLong}},
		{"description counts code points", fm("name: pdf", "description: "+strings.Repeat("é", 1024)), "pdf", nil},
		{"compatibility 500 ok", fm("name: pdf", "description: d", "compatibility: "+long(500)), "pdf", nil},
		{"compatibility 501", fm("name: pdf", "description: d", "compatibility: "+long(501)), "pdf", []string{codeCompatibility}},
		{"compatibility list", fm("name: pdf", "description: d", "compatibility:", "  - x"), "pdf", []string{codeCompatibility}},
		{"allowed-tools mapping", fm("name: pdf", "description: d", "allowed-tools:", "  a: b"), "pdf", []string{codeAllowedTools}},
		{"allowed-tools nested list", fm("name: pdf", "description: d", "allowed-tools:", "  - - a"), "pdf", []string{codeAllowedTools}},
		{"unexpected fields", fm("name: pdf", "description: d", "author: me", "requires: x"), "pdf", []string{codeUnexpectedField}},
		{"metadata not a map is advisory", fm("name: pdf", "description: d", "metadata: x"), "pdf", nil},
		{"every error at once", fm("name: Bad_Name-", "author: x"), "other",
			[]string{codeDescriptionMissing, codeNameDirMismatch, codeNameHyphen, codeNameChars, codeNameCase, codeUnexpectedField}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := parseSkillMD(tt.md, "x/SKILL.md", tt.dir)
			assert.Equal(t, tt.want, strictCodes(ps), "codes; problems:\n%v", ps)
		})
	}
}

func TestValidateMessages(t *testing.T) {
	_, ps := parseSkillMD(fm("name: PDF_x", "description: d", "zeta: 1", "alpha: 2"), "pdf/SKILL.md", "pdf")
	grade(ps, true)
	text := ps.Error()
	for _, want := range []string{
		`pdf/SKILL.md:4: unexpected fields in frontmatter: alpha, zeta`,
		`pdf/SKILL.md:2: skill name "PDF_x" must be lowercase`,
		`contains invalid characters '_'`,
		`directory name "pdf" must match skill name "PDF_x"`,
	} {
		assert.Contains(t, text, want, "problems")
	}
	var unexpected Problem
	for _, p := range ps {
		if p.Code == codeUnexpectedField {
			unexpected = p
		}
	}
	assert.Equal(t, "alpha,zeta", unexpected.Field, "unexpected-field Field")
}

func TestParsedFields(t *testing.T) {
	s, ps := parseSkillMD(fm(
		"name: pdf",
		"description: >",
		"  Read and",
		"  fill PDFs.",
		"license: 'Apache-2.0'",
		"compatibility: Needs python3",
		"metadata:",
		"  author: me",
		"  version: 1.0",
		"allowed-tools:",
		"  - Read",
		"  - Bash(git add:*)",
		"x-extra:",
		"  - 1",
		"  - k: v",
	), "pdf/SKILL.md", "pdf")
	require.NotNil(t, s, "no skill: %v", ps)
	want := &Skill{
		Name:          "pdf",
		Description:   "Read and fill PDFs.",
		License:       "Apache-2.0",
		Compatibility: "Needs python3",
		AllowedTools:  "Read Bash(git add:*)",
		Metadata:      map[string]string{"author": "me", "version": "1.0"},
		Extra:         map[string]any{"x-extra": []any{"1", map[string]any{"k": "v"}}},
		Body:          "# Body\n",
		BodyLine:      18,
	}
	assert.Equal(t, want, s, "skill")
}

func TestLenientGrading(t *testing.T) {
	tests := []struct {
		name     string
		md       []byte
		dir      string
		fatal    bool
		warnings []string
	}{
		{"dir mismatch loads", fm("name: pdf", "description: d"), "other", false, []string{codeNameDirMismatch}},
		{"long name loads", fm("name: "+strings.Repeat("a", 70), "description: d"), strings.Repeat("a", 70), false, []string{codeNameTooLong}},
		{"title case loads", fm("name: Attio", "description: d"), "attio", false, []string{codeNameDirMismatch, codeNameCase}},
		{"extra keys load", fm("name: pdf", "description: d", "requires: x"), "pdf", false, []string{codeUnexpectedField}},
		{"flow list loads", fm("name: pdf", "description: d", "allowed-tools: [Read, Write]"), "pdf", false, []string{codeYAMLFlowStyle}},
		{"missing description skips", fm("name: pdf"), "pdf", true, nil},
		{"missing name skips", fm("description: d"), "pdf", true, nil},
		{"bad yaml skips", fm("name: pdf", "description: [unclosed"), "pdf", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := parseSkillMD(tt.md, "SKILL.md", tt.dir)
			grade(ps, false)
			require.Equal(t, tt.fatal, len(ps.Errors()) > 0, "fatal: %v", ps)
			var warn []string
			for _, p := range ps.Warnings() {
				warn = append(warn, p.Code)
			}
			sort.Strings(warn)
			if !tt.fatal {
				assert.Equal(t, tt.warnings, warn, "warnings")
			}
		})
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		want []string // codes, sorted; nil = valid
	}{
		{"pdf", nil},
		{"count-words-2", nil},
		{strings.Repeat("a", 64), nil},
		{"données", nil}, // letters of any script, as the reference
		{"", []string{codeNameMissing}},
		{strings.Repeat("a", 65), []string{codeNameTooLong}},
		{"Bad_Name", []string{codeNameChars, codeNameCase}},
		{"-x", []string{codeNameHyphen}},
		{"x-", []string{codeNameHyphen}},
		{"a--b", []string{codeNameHyphen}},
		{" pdf", []string{codeNameChars}}, // not trimmed
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		var got []string
		if err != nil {
			ps, ok := errors.AsType[Problems](err)
			require.True(t, ok, "ValidateName(%q) = %T, want Problems", tt.name, err)
			got = strictCodes(ps)
		}
		assert.Equal(t, tt.want, got, "ValidateName(%q) codes", tt.name)
	}
}
