package mdskill

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: whatever the file holds, Parse returns a skill or errors
// with lines inside the file, never panics, and a skill it returns has a
// valid name, a description and a schema that is JSON.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../examples/achilles/.AchillesSkills/*.md")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(b, filepath.Base(file))
		}
	}
	// The folder layout's descriptors, named <folder>/<kind>.md.
	folders, _ := filepath.Glob("testdata/*/.AchillesSkills/*/*.md")
	for _, file := range folders {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(b, filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)))
		}
	}
	f.Add([]byte("# x\n\nd\n## Orchestration\n```yaml\nsteps: [{tool: a, params: {x: '{{steps.y}}'}}]\n```\n"), "x.oskill.md")
	f.Add([]byte("# T\n## Fields\n### a\n#### Type\nvarchar(9)\n#### Field Value Enumerator\n[\"x\"]\n#### PrimaryKey\n"), "t/tskill.md")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		s, problems := Parse(data, name)
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		for _, p := range problems {
			if p.Line < 0 || p.Line > lines || p.Message == "" {
				t.Fatalf("problem out of the file: %+v", p)
			}
		}
		if s == nil {
			if problems.Errors() == nil {
				t.Fatal("no skill and no error")
			}
			return
		}
		if problems.Errors() != nil || s.Description == "" || !validName(s.Name) {
			t.Fatalf("a skill with errors or without a name or description: %+v %v", s, problems)
		}
		if len(s.InputSchema()) == 0 {
			t.Fatal("no schema")
		}
	})
}
