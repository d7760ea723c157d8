package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

func newCatalogCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "catalog [PATH...]",
		Short: "Print the level-1 catalog (<available_skills>) of skills",
		Long: `Catalog prints the <available_skills> block an agent puts in its system
prompt: each skill's name, description and SKILL.md location. The text is
byte-identical to the reference implementation's to-prompt. PATH is a skill
folder, SKILL.md, .zip, or a folder of skills; with no PATH, the project's
.agents/skills and .claude/skills and the user's skill folders are searched.

Skills that cannot be loaded are reported on stderr and left out; the exit
status is then 1.`,
		Example: `  skillrun catalog examples
  skillrun catalog --json ~/.claude/skills`,
		RunE: func(cmd *cobra.Command, args []string) error {
			found, err := discoverArgs(cmd, args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				err = writeJSON(out, skills.Catalog(found.Skills()))
			} else {
				err = skills.WritePrompt(out, found.Skills())
			}
			if err != nil {
				return err
			}
			return found.exit()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as JSON (name, description, location, tokens)")
	return cmd
}

// discovered is the outcome of loading the skills a verb was pointed at:
// the catalog of every kind of skill and module the roots hold.
type discovered struct {
	*toolset.Catalog
	failed bool
}

// exit returns the verb's error when some skill could not be loaded: the
// problems were already printed, so only the status is left to report.
func (d discovered) exit() error {
	if d.failed {
		return &exitError{code: exitInvalid}
	}
	return nil
}

// discoverArgs loads the skills named by args leniently (as a client does),
// or the default roots when args is empty, printing every problem on
// stderr. A path that does not exist is a usage error (exit 2).
func discoverArgs(cmd *cobra.Command, args []string) (discovered, error) {
	var roots []skills.Root
	if len(args) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return discovered{}, err
		}
		roots = skills.DefaultRoots(wd)
	}
	for _, a := range args {
		if _, err := os.Stat(a); err != nil {
			return discovered{}, usageErr("%v", err)
		}
		roots = append(roots, skills.Root{Dir: a, Origin: skills.OriginPath})
	}
	stderr := cmd.ErrOrStderr()
	c := toolset.Discover(roots, stderr)
	d := c.Discovery
	for _, p := range d.Problems {
		fmt.Fprintln(stderr, p.Error())
	}
	for _, s := range d.Skills {
		for _, p := range s.Problems {
			fmt.Fprintln(stderr, p.Error())
		}
	}
	for _, f := range d.Failed {
		for _, p := range f.Problems {
			fmt.Fprintln(stderr, p.Error())
		}
		fmt.Fprintf(stderr, "%s: skipped: the skill cannot be loaded\n", f.Dir)
	}
	return discovered{Catalog: c, failed: len(d.Failed) > 0}, nil
}
