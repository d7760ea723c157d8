package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"errors"
	"fmt"
	"io/fs"

	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/internal/yamlmod"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

func newValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check skills against the Agent Skills specification",
		Long: `Validate checks each skill exactly as the specification's reference
validator does: frontmatter fields, name rules, lengths, directory match, and
skill.toml when present, and that no symbolic link leads out of the skill
folder. PATH is a skill folder, its SKILL.md, a .zip, or a folder of skills
(each is validated). --json also gives each skill's place and digest, which
a policy can pin (path = "...", digest = "...").

Exit status: 0 if every skill is valid, 1 if any is invalid, 2 on a usage or
I/O error. Problems go to stderr, one per line, prefixed by file and line.`,
		Example: `  skillrun validate examples/csv-stats
  skillrun validate --json ~/.claude/skills`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd, args, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print results as JSON on stdout")
	return cmd
}

// validateResult is one skill's verdict in --json output.
type validateResult struct {
	Path  string `json:"path"`
	Name  string `json:"name,omitempty"`
	Valid bool   `json:"valid"`
	// Place and Digest identify the skill for a policy that pins it
	// (path = "...", digest = "..."); set for a skill that loads.
	Place    string          `json:"place,omitempty"`
	Digest   string          `json:"digest,omitempty"`
	Problems skills.Problems `json:"problems"`
	Error    string          `json:"error,omitempty"`
}

func runValidate(cmd *cobra.Command, args []string, asJSON bool) error {
	v := &validator{stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(), asJSON: asJSON, code: exitOK, results: []validateResult{}}
	for _, arg := range args {
		md, agents, onlyMD, err := markdownSkills(arg)
		ym := yamlModuleResults(arg)
		md = append(md, ym...)
		if len(ym) > 0 && len(skills.FindSkills(arg).Paths) == 0 {
			onlyMD = true // nothing else to validate
		}
		for _, r := range md {
			v.add(r, exitInvalid)
		}
		for _, p := range agents {
			v.skill(p)
		}
		if err != nil {
			v.failed(arg, err)
			continue
		}
		if onlyMD {
			continue
		}
		paths, err := expandSkillPaths(arg)
		if err != nil {
			v.failed(arg, err)
			continue
		}
		for _, p := range paths {
			v.skill(p)
		}
	}
	if asJSON {
		if err := writeJSON(v.stdout, v.results); err != nil {
			return err
		}
	}
	if v.code != exitOK {
		return &exitError{code: v.code}
	}
	return nil
}

// validator is one `skillrun validate`: its results so far and its worst
// exit code.
type validator struct {
	stdout, stderr io.Writer
	asJSON         bool
	code           int
	results        []validateResult
}

// add records r, printed unless asJSON; invalid, it costs code.
func (v *validator) add(r validateResult, code int) {
	if !r.Valid {
		v.code = max(v.code, code)
	}
	v.results = append(v.results, r)
	if !v.asJSON {
		printValidateResult(v.stdout, v.stderr, r)
	}
}

// failed records an argument that could not be read (exit 2).
func (v *validator) failed(arg string, err error) {
	v.code = max(v.code, exitUsage)
	v.results = append(v.results, validateResult{Path: arg, Error: err.Error(), Problems: skills.Problems{}})
	if !v.asJSON {
		fmt.Fprintf(v.stderr, "%s: %v\n", arg, err)
	}
}

// skill validates the skill at p strictly.
func (v *validator) skill(p string) {
	s, err := skills.Load(p, &skills.LoadOptions{Strict: true})
	r := validateResult{Path: p, Problems: skills.Problems{}}
	if s != nil {
		r.Name = s.Name
		r.Problems = append(r.Problems, s.Problems...)
		r.Place = s.Place()
		if v.asJSON {
			if d, derr := s.Digest(); derr == nil {
				r.Digest = d
			}
		}
	}
	code := exitOK
	if le, ok := errors.AsType[*skills.LoadError](err); ok {
		r.Problems = le.Problems
		code = exitInvalid
	} else if err != nil {
		r.Error = err.Error()
		code = exitUsage
	} else {
		r.Valid = true
	}
	v.add(r, code)
}

func printValidateResult(stdout, stderr io.Writer, r validateResult) {
	for _, pr := range r.Problems {
		fmt.Fprintln(stderr, pr.Error())
	}
	switch {
	case r.Error != "":
		fmt.Fprintf(stderr, "%s: %s\n", termsafe.String(r.Path), termsafe.String(r.Error))
	case r.Valid:
		fmt.Fprintf(stdout, "valid: %s (%s)\n", termsafe.String(r.Path), termsafe.String(r.Name))
	}
}

// markdownSkills validates the Markdown skills (AchillesAgentLib's
// .AchillesSkills/<name>.<kind>.md and .AchillesSkills/<name>/<kind>.md)
// arg names: arg itself when it is one such file, or those of its
// .AchillesSkills folder, each file with its problems (and a result for
// each entry refused). agents are the Agent Skills (SKILL.md) of that
// folder, which the caller validates as skills. onlyMD says arg holds
// nothing else to validate: a Markdown skill file, a .AchillesSkills
// folder, or a folder with Markdown skills and no SKILL.md skill.
func markdownSkills(arg string) (results []validateResult, agents []string, onlyMD bool, err error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, nil, false, nil //nolint:nilerr // expandSkillPaths reports it
	}
	one := func(s *mdskill.Skill, file string, ps skills.Problems) validateResult {
		r := validateResult{Path: file, Valid: ps.Errors() == nil, Problems: append(skills.Problems{}, ps...)}
		if s != nil {
			r.Name = s.ToolName()
		}
		return r
	}
	base := filepath.Base(filepath.Clean(arg))
	if !fi.IsDir() {
		if !mdskill.IsSkillFile(arg) {
			return nil, nil, false, nil
		}
		s, ps := mdskill.Load(arg)
		return []validateResult{one(s, arg, ps)}, nil, true, nil
	}
	l, err := mdskill.List(arg)
	if err != nil {
		return nil, nil, true, err
	}
	// Nothing else to validate: the folder is .AchillesSkills, or holds
	// no Agent Skill outside it.
	onlyMD = base == mdskill.Folder || len(skills.FindSkills(arg).Paths) == 0
	if len(l.Files) == 0 && len(l.Problems) == 0 {
		return nil, l.AgentSkills, onlyMD && (base == mdskill.Folder || len(l.AgentSkills) > 0), nil
	}
	list, ps := l.Load()
	byFile := map[string]*mdskill.Skill{}
	for _, s := range list {
		byFile[s.File] = s
	}
	files := slices.Clone(l.Files)
	for _, p := range ps {
		if !slices.Contains(files, p.File) {
			files = append(files, p.File) // an entry refused, a spec file
		}
	}
	for _, f := range files {
		var mine skills.Problems
		for _, p := range ps {
			if p.File == f {
				mine = append(mine, p)
			}
		}
		results = append(results, one(byFile[f], f, mine))
	}
	return results, l.AgentSkills, onlyMD, nil
}

// yamlModuleResults validates the YAML modules of the folder arg
// (skills/*/skill.yaml, tools/*/tool.yaml, agents/*.yaml): a result per
// file, named by its id (a tool by its actions' tool names).
func yamlModuleResults(arg string) []validateResult {
	if fi, err := os.Stat(arg); err != nil || !fi.IsDir() || !yamlmod.Holds(arg) {
		return nil
	}
	set, problems := yamlmod.Load(arg)
	byFile := map[string]*validateResult{}
	var order []string
	result := func(file string) *validateResult {
		if r, ok := byFile[file]; ok {
			return r
		}
		path := file
		if path == "" {
			path = arg
		}
		r := &validateResult{Path: path, Problems: skills.Problems{}}
		byFile[file] = r
		order = append(order, file)
		return r
	}
	for _, s := range set.Skills {
		r := result(s.File)
		r.Name, r.Valid = s.ID, true
	}
	for _, t := range set.Tools {
		var names []string
		for _, a := range t.Actions {
			names = append(names, a.ToolName())
		}
		r := result(t.File)
		r.Name, r.Valid = strings.Join(names, ", "), true
	}
	for _, a := range set.Agents {
		r := result(a.File)
		r.Name, r.Valid = "agent "+a.ID, true
	}
	for _, p := range problems {
		r := result(p.File)
		r.Problems = append(r.Problems, p)
		if p.Severity == skills.Error {
			r.Valid = false
		}
	}
	out := make([]validateResult, 0, len(order))
	for _, f := range order {
		out = append(out, *byFile[f])
	}
	return out
}

// expandSkillPaths turns a PATH argument into skill paths: the path itself
// when it is a skill (folder with SKILL.md, SKILL.md, .zip), else every
// skill found below it. A folder with no skill at all is returned as is, so
// validating it reports the missing SKILL.md.
func expandSkillPaths(arg string) ([]string, error) {
	d := skills.FindSkills(arg)
	if d.Err != nil {
		if errors.Is(d.Err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no such file or directory")
		}
		return nil, d.Err
	}
	if len(d.Paths) == 0 {
		return []string{arg}, nil
	}
	return d.Paths, nil
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
