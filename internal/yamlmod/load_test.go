package yamlmod

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

var update = flag.Bool("update", false, "rewrite the want files of testdata/load/*.txtar")

// fakeInterpreters finds the shell and JavaScript and no Python, so
// that what Load says of requirements does not depend on the machine.
func fakeInterpreters(_ context.Context, lang string) (*scripts.SourceInterpreter, error) {
	if lang == "python" {
		return nil, fmt.Errorf("%w: Python is not installed here", scripts.ErrNotRunnable)
	}
	return &scripts.SourceInterpreter{Language: lang}, nil
}

// TestLoadGolden loads each testdata/load/*.txtar as a module folder:
// its files are the folder's, and its "want" file the problems Load
// reports (paths relative to the folder) and the ids that loaded.
func TestLoadGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/load/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			dir := t.TempDir()
			var want *txtar.File
			for i, f := range ar.Files {
				if f.Name == "want" {
					want = &ar.Files[i]
					continue
				}
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, f.Data, 0o644))
			}
			set, problems := load(dir, fakeInterpreters)
			got := report(dir, set, problems)
			if *update {
				if want == nil {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					want = &ar.Files[len(ar.Files)-1]
				}
				want.Data = []byte(got)
				require.NoError(t, os.WriteFile(file, txtar.Format(ar), 0o644))
				return
			}
			require.NotNil(t, want, "no want file; run go test -update")
			assert.Equal(t, string(want.Data), got)
		})
	}
}

// report is what a golden file holds: the problems, one a line, with
// paths relative to dir, then the ids of what loaded.
func report(dir string, set *Set, problems skills.Problems) string {
	var b strings.Builder
	for _, p := range problems {
		if rel, err := filepath.Rel(dir, p.File); err == nil {
			p.File = filepath.ToSlash(rel)
		}
		b.WriteString(p.Error() + "\n")
	}
	var ids []string
	for _, s := range set.Skills {
		ids = append(ids, s.ID)
	}
	fmt.Fprintf(&b, "skills: %s\n", strings.Join(ids, " "))
	ids = nil
	for _, t := range set.Tools {
		ids = append(ids, t.ID)
	}
	fmt.Fprintf(&b, "tools: %s\n", strings.Join(ids, " "))
	ids = nil
	for _, a := range set.Agents {
		ids = append(ids, a.ID)
	}
	fmt.Fprintf(&b, "agents: %s\n", strings.Join(ids, " "))
	return b.String()
}

// TestLoadExample: the example folder loads whole, without a problem
// on a machine where the shell is found.
func TestLoadExample(t *testing.T) {
	set, problems := load(example, fakeInterpreters)
	require.Empty(t, problems)
	require.Len(t, set.Skills, 1)
	require.Len(t, set.Tools, 1)
	require.Len(t, set.Agents, 1)

	s := set.Skill("text-report")
	require.NotNil(t, s)
	assert.Equal(t, []string{"word count", "sort lines", "text statistics"}, s.Triggers)
	require.Len(t, s.Methodology, 3)
	assert.Equal(t, Step{Step: "Count the words", Description: "Count the words of the text with the counting tool.",
		Tools:           []string{"text-tools.count_words"},
		DecisionFactors: []string{"A word is a run of characters between spaces; punctuation stays with its word."},
		Line:            31}, s.Methodology[0])
	assert.Equal(t, []string{"text-tools__count_words", "text-tools__sort_lines"}, s.ToolNames())
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string","description":"the text to report on"}},"required":["text"]}`, string(s.InputSchema))

	tool := set.Tool("text-tools")
	require.NotNil(t, tool)
	require.Len(t, tool.Actions, 2)
	assert.Equal(t, "count_words.sh", tool.Actions[0].Script)
	assert.Equal(t, "text-tools__sort_lines", tool.Actions[1].ToolName())
	assert.Equal(t, []Requirement{{Name: "sh", Met: true, Reason: interpreterWhat["sh"]}}, tool.Requires())
	abs, err := filepath.Abs(filepath.Join(example, "tools", "text-tools"))
	require.NoError(t, err)
	assert.Equal(t, abs, tool.Dir)

	a := set.Agent("text-helper")
	require.NotNil(t, a)
	assert.Equal(t, []string{"text-report"}, a.SkillNames())
	assert.Equal(t, []string{"text-tools__count_words", "text-tools__sort_lines"}, a.Tools)
	assert.Nil(t, set.Agent("nobody"))
}

// TestLoadMissing: a folder that is not there, or holds none of the
// three folders, is empty; a file where the folder should be is a
// problem.
func TestLoadMissing(t *testing.T) {
	set, problems := Load(filepath.Join(t.TempDir(), "nothing"))
	assert.Empty(t, problems)
	assert.Empty(t, set.Skills)

	set, problems = Load(t.TempDir())
	assert.Empty(t, problems)
	assert.Empty(t, set.Tools)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skills"), []byte("x"), 0o644))
	_, problems = Load(dir)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Message, "not a folder")
}

// TestLoadBounds: a file over the size limit and a folder of too many
// entries are refused without being read.
func TestLoadBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "skills", "big")
	require.NoError(t, os.MkdirAll(big, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(big, SkillFile), []byte("skill:\n  id: big\n#"+strings.Repeat("x", MaxFile)+"\n"), 0o644))
	for i := range maxEntries + 1 {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "tools", fmt.Sprint("t", i)), 0o755))
	}
	set, problems := Load(dir)
	assert.Empty(t, set.Skills)
	require.Len(t, problems, 2)
	assert.Equal(t, filepath.Join(dir, "tools"), problems[0].File)
	assert.Contains(t, problems[0].Message, "more than 1000 entries")
	assert.Equal(t, filepath.Join(big, SkillFile), problems[1].File)
	assert.Contains(t, problems[1].Message, "over the 1048576-byte limit")
}

// TestLoadSymlinkOut: a module file or a script that is a link out of
// the folder is not read.
func TestLoadSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "skill.yaml"), []byte("skill:\n  id: s\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "run.sh"), []byte("cat /etc/passwd\n"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", "s"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "skill.yaml"), filepath.Join(dir, "skills", "s", SkillFile)))
	tdir := filepath.Join(dir, "tools", "t")
	require.NoError(t, os.MkdirAll(tdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tdir, ToolFile), []byte("tool:\n  id: t\n  actions:\n    - name: run\n      description: Runs.\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "run.sh"), filepath.Join(tdir, "run.sh")))

	set, problems := load(dir, fakeInterpreters)
	assert.Empty(t, set.Skills)
	assert.Empty(t, set.Tools)
	require.Len(t, problems, 2)
	for _, p := range problems {
		assert.Contains(t, p.Message, "a symbolic link leads out of the module folder", p.Error())
	}
}

// TestUnimplementedActionNotServed: an action declared before its script
// is written is listed with the tool and not served: the tool's host
// tools are its implemented actions.
func TestUnimplementedActionNotServed(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"tools/later/tool.yaml": "tool:\n  id: later\n  actions:\n    - name: done\n      description: Implemented.\n    - name: todo\n      description: Not yet.\n",
		"tools/later/done.sh":   "echo done\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	set, problems := load(dir, fakeInterpreters)
	tool := set.Tool("later")
	require.NotNil(t, tool, "%v", problems)
	require.Len(t, tool.Actions, 2, "both actions are listed")
	var served []string
	for _, ht := range tool.HostTools(nil, capabilities.Set{}, nil) {
		served = append(served, ht.Definition().Name)
	}
	assert.Equal(t, []string{"later__done"}, served)
	assert.Nil(t, tool.ScriptSkill().Manifest.Scripts["todo"])
}
