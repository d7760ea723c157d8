package yamlmod

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// FuzzLoad loads arbitrary bytes as a skill.yaml, a tool.yaml and an
// agent file: Load must not panic, and every problem names its file.
// The seeds are the files of testdata/load and the example.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/load/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		require.NoError(f, err)
		for _, af := range ar.Files {
			if strings.HasSuffix(af.Name, ".yaml") {
				f.Add(af.Data)
			}
		}
	}
	for _, p := range []string{"skills/text-report/skill.yaml", "tools/text-tools/tool.yaml", "agents/text-helper.yaml"} {
		data, err := os.ReadFile(filepath.Join(example, filepath.FromSlash(p)))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		// The same text as each kind: the id is "x" in all three places.
		for _, p := range []string{"skills/x/skill.yaml", "tools/x/tool.yaml", "agents/x.yaml"} {
			full := filepath.Join(dir, filepath.FromSlash(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, data, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tools", "x", "x.sh"), []byte("echo x\n"), 0o644))
		set, problems := load(dir, fakeInterpreters)
		for _, p := range problems {
			if p.File == "" || p.Message == "" {
				t.Errorf("a problem without a file or message: %+v", p)
			}
		}
		for _, s := range set.Skills {
			if s.AgentSkill() == nil {
				t.Errorf("skill %s loaded without its Agent Skill", s.ID)
			}
		}
	})
}
