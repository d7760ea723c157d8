package skills

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrontmatterSyntax(t *testing.T) {
	tests := []struct {
		name string
		in   string
		code string // the expected fatal code, "" for none
		line int
	}{
		{"no frontmatter", "# Title\n", codeNoFrontmatter, 1},
		{"empty file", "", codeNoFrontmatter, 1},
		{"leading blank line", "\n---\nname: a\n---\n", codeNoFrontmatter, 1},
		{"dashes then text", "---name: a\n---\n", codeNoFrontmatter, 1},
		{"unclosed", "---\nname: a\ndescription: d\n", codeUnclosed, 1},
		{"not a mapping", "---\n- a\n- b\n---\n", codeNotMapping, 2},
		{"empty frontmatter", "---\n---\nbody\n", codeNotMapping, 2},
		{"scalar frontmatter", "---\njust text\n---\n", codeNotMapping, 2},
		{"syntax error line", "---\nname: a\ndescription: d\nbad: x: y\n---\n", codeYAMLSyntax, 4},
		{"tab indentation", "---\nname: a\nmetadata:\n\tk: v\n---\n", codeYAMLSyntax, 4},
		{"anchor", "---\nname: &n a\ndescription: *n\n---\n", codeYAMLAlias, 2},
		{"merge key alias", "---\nbase: &b {x: 1}\nother:\n  <<: *b\n---\n", codeYAMLAlias, 2},
		{"duplicate key", "---\nname: a\ndescription: d\nname: b\n---\n", codeYAMLDuplicate, 4},
		{"complex key", "---\n? [a, b]\n: c\n---\n", codeYAMLComplexKey, 2},
		{"invalid utf-8", "---\nname: a\ndescription: \xff\xfe\n---\n", codeEncoding, 3},
		{"too large", "---\nname: a\n---\n" + strings.Repeat("x", maxSkillFileSize), codeTooLarge, 0},
		{"ok frontmatter over 64 KiB", "---\nname: a\ndescription: d\nmetadata:\n  notes: " + strings.Repeat("x", 100<<10) + "\n---\n", "", 0},
		{"ok with CR only", "---\rname: a\rdescription: d\r---\rbody\r", "", 0},
		{"ok", "---\nname: a\ndescription: d\n---\nbody\n", "", 0},
		{"ok with CRLF", "---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n", "", 0},
		{"ok closing without newline", "---\nname: a\ndescription: d\n---", "", 0},
		{"ok trailing spaces on delimiters", "---  \nname: a\ndescription: d\n---\t\nbody", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, ps := parseFrontmatter([]byte(tt.in), "SKILL.md")
			if tt.code == "" {
				require.NotNil(t, doc, "want success, got %v", ps)
				require.Empty(t, ps, "want success")
				return
			}
			require.Nil(t, doc, "want failure %s, got a document", tt.code)
			require.NotEmpty(t, ps, "want failure %s", tt.code)
			last := ps[len(ps)-1]
			assert.Equal(t, tt.code, last.Code, "code of the last problem (%q)", last.Message)
			assert.Equal(t, tt.line, last.Line, "line of the last problem (%q)", last.Message)
		})
	}
}

func TestFrontmatterGradedDialect(t *testing.T) {
	// Flow style, tags and a BOM parse but are reported, so the caller can
	// grade them: errors when validating (as strictyaml), warnings when loading.
	tests := []struct{ name, in, code string }{
		{"flow list", "---\nname: a\ndescription: d\nallowed-tools: [Read, Write]\n---\n", codeYAMLFlowStyle},
		{"flow map", "---\nname: a\ndescription: d\nmetadata: {a: b}\n---\n", codeYAMLFlowStyle},
		{"tag", "---\nname: !!str a\ndescription: d\n---\n", codeYAMLTag},
		{"bom", "\xEF\xBB\xBF---\nname: a\ndescription: d\n---\n", codeBOM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, ps := parseFrontmatter([]byte(tt.in), "SKILL.md")
			require.NotNil(t, doc, "document refused: %v", ps)
			require.Len(t, ps, 1, "want one %s", tt.code)
			require.Equal(t, tt.code, ps[0].Code, "problem code")
		})
	}
}

// TestDelimiterInsideValue is where the reference validator, which splits
// on the first "---" substring, goes wrong; a line of its own closes.
func TestDelimiterInsideValue(t *testing.T) {
	s, ps := parseSkillMD([]byte("---\nname: a\ndescription: before---after\n---\nbody --- text\n"), "SKILL.md", "a")
	grade(ps, true)
	require.Empty(t, ps, "problems")
	assert.Equal(t, "before---after", s.Description, "description")
	assert.Equal(t, "body --- text\n", s.Body, "body")
}

func TestBodyLine(t *testing.T) {
	s, _ := parseSkillMD([]byte("---\nname: a\ndescription: d\n---\n\n# Title\n"), "SKILL.md", "a")
	assert.Equal(t, 5, s.BodyLine, "BodyLine")
	assert.Equal(t, "\n# Title\n", s.Body, "Body")
}

// TestBillionLaughs checks that an alias bomb is refused before any
// expansion: quickly and with a clear message.
func TestBillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("l" + itoa(i) + ": &l" + itoa(i) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	start := time.Now()
	doc, ps := parseFrontmatter([]byte(b.String()), "SKILL.md")
	require.Nil(t, doc, "alias bomb not refused: %v", ps)
	require.NotEmpty(t, ps, "alias bomb not refused")
	require.Equal(t, codeYAMLAlias, ps[len(ps)-1].Code, "alias bomb not refused: %v", ps)
	assert.Contains(t, ps[len(ps)-1].Message, "anchors and aliases", "the message does not explain")
	// Not a timing assertion on speed, a hang guard: expansion would take
	// minutes and gigabytes.
	assert.LessOrEqual(t, time.Since(start), 10*time.Second, "took too long")
}

func TestDeepNesting(t *testing.T) {
	in := "---\nname: a\ndescription: d\nmetadata:\n" + strings.Repeat("  ", 1) + "x: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n"
	doc, ps := parseFrontmatter([]byte(in), "SKILL.md")
	require.Nil(t, doc, "deep nesting not refused: %v", ps)
	require.NotEmpty(t, ps, "deep nesting not refused")
	require.Equal(t, codeYAMLDepth, ps[len(ps)-1].Code, "deep nesting not refused: %v", ps)
}

func itoa(i int) string { return strconv.Itoa(i) }
