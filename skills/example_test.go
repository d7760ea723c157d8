package skills_test

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillrun/skillrun/skills"
)

//go:embed testdata/embedded
var embedded embed.FS

// A program can carry its skills inside its binary with embed.FS.
func ExampleLoadFS() {
	s, err := skills.LoadFS(embedded, "testdata/embedded/hello", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, "-", s.Description)
	act, _ := s.Activate()
	fmt.Println(act.Files)
	phrases, _ := s.ReadResource("references/phrases.md")
	fmt.Print(string(phrases))
	// Output:
	// hello - Greet the user in their language. Use when the user says hello.
	// [SKILL.md references/phrases.md]
	// en: Hello
	// fr: Bonjour
}

// Validation reports every problem with its file and line.
func ExampleLoadDir_strict() {
	dir := filepath.Join(os.TempDir(), "skillrun-example", "report")
	os.MkdirAll(dir, 0o755)
	defer os.RemoveAll(filepath.Dir(dir))
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: Report_Tool\nauthor: me\n---\n"), 0o644)

	_, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	var le *skills.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Printf("line %d: %s\n", p.Line, p.Code)
		}
	}
	// Output:
	// line 3: unexpected-field
	// line 2: name-not-lowercase
	// line 2: name-invalid-characters
	// line 2: name-dir-mismatch
	// line 0: description-missing
}

// Level 3 reads stay inside the skill folder.
func ExampleSkill_ReadResource() {
	s, _ := skills.LoadFS(embedded, "testdata/embedded/hello", nil)
	_, err := s.ReadResource("../../../go.mod")
	fmt.Println(errors.Is(err, skills.ErrOutsideSkill), errors.Is(err, fs.ErrPermission))
	// Output:
	// true true
}

// The catalog is the <available_skills> block for a system prompt.
func ExamplePrompt() {
	s, _ := skills.LoadFS(embedded, "testdata/embedded/hello", nil)
	fmt.Println(skills.Prompt([]*skills.Skill{s}))
	// Output:
	// <available_skills>
	// <skill>
	// <name>
	// hello
	// </name>
	// <description>
	// Greet the user in their language. Use when the user says hello.
	// </description>
	// <location>
	// testdata/embedded/hello/SKILL.md
	// </location>
	// </skill>
	// </available_skills>
}

// A tool that names a new skill checks the name before it writes anything.
func ExampleValidateName() {
	fmt.Println(skills.ValidateName("pdf-tools"))
	if ps, ok := errors.AsType[skills.Problems](skills.ValidateName("PDF_tools")); ok {
		for _, p := range ps {
			fmt.Println(p.Code+":", p.Message)
		}
	}
	// Output:
	// <nil>
	// name-not-lowercase: skill name "PDF_tools" must be lowercase
	// name-invalid-characters: skill name "PDF_tools" contains invalid characters '_'; only letters, digits, and hyphens are allowed
}
