package mdskill

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/skills"
)

// maxFiles bounds the skills of one folder.
const maxFiles = 1000

// Files lists the Markdown skill files of dir: dir/.AchillesSkills/*.md
// (the folder may be a symlink, as AchillesAgentLib allows), or dir's own
// *.md files when dir is itself a .AchillesSkills folder. None is not an
// error; an unreadable folder is.
func Files(dir string) ([]string, error) {
	folder := dir
	if filepath.Base(filepath.Clean(dir)) != Folder {
		folder = filepath.Join(dir, Folder)
	}
	entries, err := os.ReadDir(folder)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		out = append(out, filepath.Join(folder, e.Name()))
		if len(out) > maxFiles {
			return nil, fmt.Errorf("%s: more than %d Markdown skills", folder, maxFiles)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Load reads and parses one Markdown skill file, bounded in size. A
// symlink is followed only to a regular file.
func Load(file string) (*Skill, skills.Problems) {
	f, err := os.Open(file)
	if err != nil {
		return nil, skills.Problems{{Severity: skills.Error, File: file, Message: err.Error()}}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, skills.Problems{{Severity: skills.Error, File: file, Message: "not a regular file"}}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, skills.Problems{{Severity: skills.Error, File: file, Message: err.Error()}}
	}
	return Parse(data, file)
}

// LoadDir loads every Markdown skill of dir (see Files). Skills with
// errors are left out; all problems are returned. Two files of one name
// (a.skill.md and a.cgskill.md) are an error: they would be one tool.
func LoadDir(dir string) ([]*Skill, skills.Problems) {
	files, err := Files(dir)
	if err != nil {
		return nil, skills.Problems{{Severity: skills.Error, File: dir, Message: err.Error()}}
	}
	var out []*Skill
	var problems skills.Problems
	byName := map[string]string{}
	for _, f := range files {
		s, ps := Load(f)
		problems = append(problems, ps...)
		if s == nil {
			continue
		}
		if other, dup := byName[s.Name]; dup {
			problems = append(problems, skills.Problem{Severity: skills.Error, File: f,
				Message: fmt.Sprintf("a second skill named %s (the first is %s): both would be the tool %s", s.Name, other, s.ToolName())})
			continue
		}
		byName[s.Name] = f
		out = append(out, s)
	}
	return out, problems
}
