package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// MixedFolder copies into a new temporary folder one of every kind of
// skill and module skillrun serves, taken from the examples folder
// (examples, relative to the test's package): an Agent Skill with a
// Python script (py-csv-report), Markdown skills (.AchillesSkills) and
// YAML skill, tool and agent modules (text-report, text-tools,
// text-helper). Front ends that list the same skills and tools for it
// agree on what a skill is.
func MixedFolder(t testing.TB, examples string) string {
	t.Helper()
	dir := t.TempDir()
	for dst, src := range map[string]string{
		"py-csv-report":   "py-csv-report",
		".AchillesSkills": "achilles/.AchillesSkills",
		"skills":          "yamlmod/skills",
		"tools":           "yamlmod/tools",
		"agents":          "yamlmod/agents",
	} {
		if err := os.CopyFS(filepath.Join(dir, dst), os.DirFS(filepath.Join(examples, src))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
