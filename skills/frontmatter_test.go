package skills

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFrontmatterSyntax(t *testing.T) {
	tests := []struct {
		name string
		in   string
		code string // the expected fatal code, "" for none
		line int
	}{
		{"no frontmatter", "# Title\n", CodeNoFrontmatter, 1},
		{"empty file", "", CodeNoFrontmatter, 1},
		{"leading blank line", "\n---\nname: a\n---\n", CodeNoFrontmatter, 1},
		{"dashes then text", "---name: a\n---\n", CodeNoFrontmatter, 1},
		{"unclosed", "---\nname: a\ndescription: d\n", CodeUnclosed, 1},
		{"not a mapping", "---\n- a\n- b\n---\n", CodeNotMapping, 2},
		{"empty frontmatter", "---\n---\nbody\n", CodeNotMapping, 2},
		{"scalar frontmatter", "---\njust text\n---\n", CodeNotMapping, 2},
		{"syntax error line", "---\nname: a\ndescription: d\nbad: x: y\n---\n", CodeYAMLSyntax, 4},
		{"tab indentation", "---\nname: a\nmetadata:\n\tk: v\n---\n", CodeYAMLSyntax, 4},
		{"anchor", "---\nname: &n a\ndescription: *n\n---\n", CodeYAMLAlias, 2},
		{"merge key alias", "---\nbase: &b {x: 1}\nother:\n  <<: *b\n---\n", CodeYAMLAlias, 2},
		{"duplicate key", "---\nname: a\ndescription: d\nname: b\n---\n", CodeYAMLDuplicate, 4},
		{"complex key", "---\n? [a, b]\n: c\n---\n", CodeYAMLComplexKey, 2},
		{"invalid utf-8", "---\nname: a\ndescription: \xff\xfe\n---\n", CodeEncoding, 3},
		{"too large", "---\nname: a\n---\n" + strings.Repeat("x", maxSkillFileSize), CodeTooLarge, 0},
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
				if doc == nil || len(ps) > 0 {
					t.Fatalf("want success, got %v", ps)
				}
				return
			}
			if doc != nil {
				t.Fatalf("want failure %s, got a document", tt.code)
			}
			last := ps[len(ps)-1]
			if last.Code != tt.code || last.Line != tt.line {
				t.Errorf("got %s at line %d (%q), want %s at line %d", last.Code, last.Line, last.Message, tt.code, tt.line)
			}
		})
	}
}

func TestFrontmatterGradedDialect(t *testing.T) {
	// Flow style, tags and a BOM parse but are reported, so the caller can
	// grade them: errors when validating (as strictyaml), warnings when loading.
	tests := []struct{ name, in, code string }{
		{"flow list", "---\nname: a\ndescription: d\nallowed-tools: [Read, Write]\n---\n", CodeYAMLFlowStyle},
		{"flow map", "---\nname: a\ndescription: d\nmetadata: {a: b}\n---\n", CodeYAMLFlowStyle},
		{"tag", "---\nname: !!str a\ndescription: d\n---\n", CodeYAMLTag},
		{"bom", "\xEF\xBB\xBF---\nname: a\ndescription: d\n---\n", CodeBOM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, ps := parseFrontmatter([]byte(tt.in), "SKILL.md")
			if doc == nil {
				t.Fatalf("document refused: %v", ps)
			}
			if len(ps) != 1 || ps[0].Code != tt.code {
				t.Fatalf("got %v, want one %s", ps, tt.code)
			}
		})
	}
}

// TestDelimiterInsideValue is where the reference validator, which splits
// on the first "---" substring, goes wrong; a line of its own closes.
func TestDelimiterInsideValue(t *testing.T) {
	s, ps := parseSkillMD([]byte("---\nname: a\ndescription: before---after\n---\nbody --- text\n"), "SKILL.md", "a")
	grade(ps, true)
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if s.Description != "before---after" || s.Body != "body --- text\n" {
		t.Errorf("description %q body %q", s.Description, s.Body)
	}
}

func TestBodyLine(t *testing.T) {
	s, _ := parseSkillMD([]byte("---\nname: a\ndescription: d\n---\n\n# Title\n"), "SKILL.md", "a")
	if s.BodyLine != 5 || s.Body != "\n# Title\n" {
		t.Errorf("BodyLine %d Body %q", s.BodyLine, s.Body)
	}
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
	if doc != nil || len(ps) == 0 || ps[len(ps)-1].Code != CodeYAMLAlias {
		t.Fatalf("alias bomb not refused: %v", ps)
	}
	if !strings.Contains(ps[len(ps)-1].Message, "anchors and aliases") {
		t.Errorf("message %q does not explain", ps[len(ps)-1].Message)
	}
	// Not a timing assertion on speed, a hang guard: expansion would take
	// minutes and gigabytes.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestDeepNesting(t *testing.T) {
	in := "---\nname: a\ndescription: d\nmetadata:\n" + strings.Repeat("  ", 1) + "x: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n"
	doc, ps := parseFrontmatter([]byte(in), "SKILL.md")
	if doc != nil || ps[len(ps)-1].Code != CodeYAMLDepth {
		t.Fatalf("deep nesting not refused: %v", ps)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
