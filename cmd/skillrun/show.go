package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/internal/yamlmod"
	"github.com/skillrun/skillrun/skills"
)

func newShowCmd() *cobra.Command {
	var asJSON, digest bool
	cmd := &cobra.Command{
		Use:   "show PATH [FILE]",
		Short: "Print a skill's instructions (level 2) or one of its files (level 3)",
		Long: `Show prints what an agent sees when it activates a skill: the body of
SKILL.md followed by the list of the skill's files, then the scripts
skillrun run can run (skill.toml's, and the script files in scripts/). With FILE, a path
relative to the skill folder, it prints that file instead. FILE cannot leave
the skill folder: absolute paths, ".." and symlinks pointing outside are
refused. With --digest it prints the skill's content digest instead, for a
policy to pin: [skills."NAME"] path = "..." digest = "sha256:...".

Exit status: 0 on success, 1 if the skill cannot be loaded or FILE is
refused or missing, 2 on a usage or I/O error.`,
		Example: `  skillrun show examples/csv-stats
  skillrun show examples/csv-stats references/format.md`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShow(cmd, args, asJSON, digest)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&digest, "digest", false, "print the skill's content digest (sha256:...), which a policy can pin")
	return cmd
}

// runShow prints a skill's instructions and files, one of its files, or
// its digest.
func runShow(cmd *cobra.Command, args []string, asJSON, digest bool) error {
	s, err := loadOne(cmd, args[0])
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if digest {
		d, err := s.Digest()
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if asJSON {
			return writeJSON(out, map[string]string{"skill": s.Name, "place": s.Place(), "digest": d})
		}
		fmt.Fprintln(out, d)
		return nil
	}
	if len(args) == 2 {
		data, err := s.ReadResource(args[1])
		if err != nil {
			// Missing, refused or unreadable: FILE was not what was asked.
			return &exitError{code: exitInvalid, err: fmt.Errorf("%s: %w", s.Dir, err)}
		}
		if asJSON {
			return writeJSON(out, map[string]string{"skill": s.Name, "path": args[1], "content": string(data)})
		}
		_, err = out.Write(data)
		return err
	}
	act, err := s.Activate()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	runnable := s.RunnableScripts()
	if asJSON {
		return writeJSON(out, struct {
			*skills.Activation
			Scripts []string `json:"scripts,omitempty"` // what skillrun run DIR:SCRIPT runs
		}{act, runnable})
	}
	fmt.Fprint(out, act.Body)
	if len(act.Body) > 0 && act.Body[len(act.Body)-1] != '\n' {
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "\nFiles of skill %s (read one with: skillrun show %s FILE):\n", termsafe.String(s.Name), termsafe.String(args[0]))
	for _, f := range act.Files {
		fmt.Fprintf(out, "  %s\n", termsafe.String(f))
	}
	if act.Truncated {
		fmt.Fprintf(out, "  ... (more than %d files; list truncated)\n", skills.MaxListedFiles)
	}
	if len(runnable) > 0 {
		fmt.Fprintf(out, "\nScripts of skill %s (run one with: skillrun run %s:SCRIPT):\n", termsafe.String(s.Name), termsafe.String(args[0]))
		for _, name := range runnable {
			fmt.Fprintf(out, "  %s\n", termsafe.String(name))
		}
	}
	return nil
}

// loadOne loads a single skill leniently, printing warnings on stderr:
// an Agent Skill, or a YAML skill module's folder as the Agent Skill it
// is disclosed as (as catalog, mcp and sessions list it).
func loadOne(cmd *cobra.Command, p string) (*skills.Skill, error) {
	if s := yamlSkill(p); s != nil {
		return s, nil
	}
	s, err := skills.Load(p, nil)
	if le, ok := errors.AsType[*skills.LoadError](err); ok {
		for _, pr := range le.Problems {
			fmt.Fprintln(cmd.ErrOrStderr(), pr.Error())
		}
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s: the skill cannot be loaded", p)}
	}
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	for _, pr := range s.Problems {
		fmt.Fprintln(cmd.ErrOrStderr(), pr.Error())
	}
	return s, nil
}

// yamlSkill is the YAML skill module in folder p (holding skill.yaml) as
// an Agent Skill, or nil.
func yamlSkill(p string) *skills.Skill {
	if fi, err := os.Stat(filepath.Join(p, yamlmod.SkillFile)); err != nil || fi.IsDir() {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil
	}
	set, _ := yamlmod.Load(filepath.Dir(filepath.Dir(abs)))
	for _, s := range set.Skills {
		if filepath.Base(filepath.Dir(s.File)) == filepath.Base(abs) {
			return s.AgentSkill()
		}
	}
	return nil
}
