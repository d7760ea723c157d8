package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// disclosureSkill writes and loads a skill folder named name with files.
func disclosureSkill(t *testing.T, name string, files map[string]string) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files["SKILL.md"] = "---\nname: " + name + "\ndescription: Work with " + name + " files when a task needs them.\n---\nRead references/guide.md first.\n"
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := skills.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func disclosureCall(t *testing.T, tools []host.Tool, name, args string) *host.ToolResult {
	t.Helper()
	for _, tl := range tools {
		if tl.Definition().Name == name {
			res, err := tl.Call(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s %s: Go error %v (model mistakes must be results)", name, args, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestDisclosureTools: one implementation of skill_search, skill_activate
// and skill_read, with one argument schema ("name", and "skill" accepted
// for skill_read), binary files an error result, long files cut with a
// note.
func TestDisclosureTools(t *testing.T) {
	long := strings.Repeat("é", host.MaxSkillRead) // 2 bytes a rune: twice the bound
	pdf := disclosureSkill(t, "pdf", map[string]string{
		"references/guide.md": "# Guide\n",
		"assets/logo.png":     "\x89PNG\r\n\x1a\n\x00\xff",
		"references/long.md":  long,
	})
	csv := disclosureSkill(t, "csv", map[string]string{})
	var activated []string
	tools := host.DisclosureTools([]*skills.Skill{pdf, csv, nil}, &host.DisclosureOptions{
		ResourceURI: func(skill, file string) string { return "skill://" + skill + "/" + file },
		Activated: func(_ context.Context, s *skills.Skill) string {
			activated = append(activated, s.Name)
			return "scripts: none"
		},
	})
	if len(tools) != 3 {
		t.Fatalf("%d tools, want 3", len(tools))
	}
	for _, tc := range []struct {
		tool, args string
		isErr      bool
		want       string
	}{
		{"skill_search", `{"query":"pdf files"}`, false, "pdf: Work with pdf files"},
		{"skill_search", `{"query":"zzzz"}`, false, `no skill matches "zzzz"`},
		{"skill_search", `{}`, true, `skill_search: missing argument "query"`},
		{"skill_search", `{"query":"x","limit":"3"}`, true, `argument "limit" must be an integer`},
		{"skill_activate", `{"name":"pdf"}`, false, "Read references/guide.md first.\n\nFiles of skill pdf (read them with skill_read or as resources skill://pdf/<path>):\n"},
		{"skill_activate", `{"name":"pdf"}`, false, "\nscripts: none\n"},
		{"skill_activate", `{"name":"nope"}`, true, `skill_activate: argument "name": no skill is named "nope"; the skills are: pdf, csv`},
		{"skill_activate", `{"skill":"pdf"}`, true, `unknown argument "skill"`},
		{"skill_activate", `[1]`, true, "arguments must be a JSON object"},
		{"skill_read", `{"name":"pdf","path":"references/guide.md"}`, false, "# Guide\n"},
		{"skill_read", `{"skill":"pdf","path":"references/guide.md"}`, false, "# Guide\n"},
		{"skill_read", `{"name":"pdf","skill":"csv","path":"SKILL.md"}`, true, `arguments "name" ("pdf") and "skill" ("csv") differ`},
		{"skill_read", `{"path":"SKILL.md"}`, true, `missing argument "name"`},
		{"skill_read", `{"name":"pdf"}`, true, `missing argument "path"`},
		{"skill_read", `{"name":"pdf","path":"nope.md"}`, true, `skill "pdf" has no file "nope.md" (skill_activate lists its files)`},
		{"skill_read", `{"name":"pdf","path":"../csv/SKILL.md"}`, true, "outside"},
		{"skill_read", `{"name":"pdf","path":"assets/logo.png"}`, true, "assets/logo.png is a binary file (10 bytes); it cannot be shown as text; read it as resource skill://pdf/assets/logo.png"},
		{"skill_read", `{"name":"pdf","path":"references/long.md"}`, false, "\n[cut: the file has 524288 bytes; the first 262144 are shown]"},
	} {
		res := disclosureCall(t, tools, tc.tool, tc.args)
		if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s %s = (error %v) %q, want (error %v) containing %q", tc.tool, tc.args, res.IsError, res.Content, tc.isErr, tc.want)
		}
	}
	if strings.Join(activated, ",") != "pdf,pdf" {
		t.Errorf("Activated called for %q, want pdf twice", activated)
	}
}

// TestDisclosureSchemas: the schemas require "name" (and "path"), list
// the names when asked, and forbid other arguments.
func TestDisclosureSchemas(t *testing.T) {
	pdf := disclosureSkill(t, "pdf", map[string]string{})
	for _, enum := range []bool{false, true} {
		for _, tl := range host.DisclosureTools([]*skills.Skill{pdf}, &host.DisclosureOptions{EnumNames: enum}) {
			def := tl.Definition()
			var s struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
				Additional bool                       `json:"additionalProperties"`
			}
			if err := json.Unmarshal(def.InputSchema, &s); err != nil {
				t.Fatalf("%s: %v", def.Name, err)
			}
			if s.Type != "object" || s.Additional || len(s.Required) == 0 || def.Source != host.SourceCore {
				t.Errorf("%s: schema %s, source %v", def.Name, def.InputSchema, def.Source)
			}
			if name, ok := s.Properties["name"]; ok && strings.Contains(string(name), `"enum":["pdf"]`) != enum {
				t.Errorf("%s (enum %v): name schema %s", def.Name, enum, name)
			}
		}
	}
}
