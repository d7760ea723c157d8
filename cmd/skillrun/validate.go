package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
	"github.com/spf13/cobra"
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
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	opts := &skills.LoadOptions{Strict: true}
	code := exitOK
	results := []validateResult{}
	for _, arg := range args {
		paths, err := expandSkillPaths(arg)
		if err != nil {
			code = max(code, exitUsage)
			results = append(results, validateResult{Path: arg, Error: err.Error(), Problems: skills.Problems{}})
			if !asJSON {
				fmt.Fprintf(stderr, "%s: %v\n", arg, err)
			}
			continue
		}
		for _, p := range paths {
			s, err := skills.Load(p, opts)
			r := validateResult{Path: p, Problems: skills.Problems{}}
			if s != nil {
				r.Name = s.Name
				r.Problems = append(r.Problems, s.Problems...)
				r.Place = s.Place()
				if asJSON {
					if d, derr := s.Digest(); derr == nil {
						r.Digest = d
					}
				}
			}
			if le, ok := errors.AsType[*skills.LoadError](err); ok {
				r.Problems = le.Problems
				code = max(code, exitInvalid)
			} else if err != nil {
				r.Error = err.Error()
				code = max(code, exitUsage)
			} else {
				r.Valid = true
			}
			results = append(results, r)
			if asJSON {
				continue
			}
			for _, pr := range r.Problems {
				fmt.Fprintln(stderr, pr.Error())
			}
			switch {
			case r.Error != "":
				fmt.Fprintf(stderr, "%s: %s\n", termsafe.String(p), termsafe.String(r.Error))
			case r.Valid:
				fmt.Fprintf(stdout, "valid: %s (%s)\n", termsafe.String(p), termsafe.String(r.Name))
			}
		}
	}
	if asJSON {
		if err := writeJSON(stdout, results); err != nil {
			return err
		}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
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
