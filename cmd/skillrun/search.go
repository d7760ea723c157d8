package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/skills"
)

func newSearchCmd() *cobra.Command {
	var (
		asJSON bool
		regex  bool
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "search QUERY [PATH...]",
		Short: "Rank skills for a query (BM25 over name, description, triggers)",
		Long: `Search ranks skills by how well their name, description and skill.toml
triggers match QUERY, with BM25; --regex matches a regular expression instead.
PATH is as for catalog; with no PATH the default skill folders are searched.

Exit status: 0 when something matched, 1 when nothing did, 2 on a usage error
(including a bad --regex pattern).`,
		Example: `  skillrun search "csv statistics" examples
  skillrun search --regex '^pdf' ~/.claude/skills`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return usageErr("--limit must be at least 1, got %d", limit)
			}
			found, err := discoverArgs(cmd, args[1:])
			if err != nil {
				return err
			}
			ix := skills.NewIndex(found.Skills())
			results, err := ix.Search(args[0], &skills.SearchOptions{Limit: limit, Regex: regex})
			if err != nil {
				return usageErr("%v", err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				type row struct {
					Name        string  `json:"name"`
					Description string  `json:"description"`
					Location    string  `json:"location"`
					Score       float64 `json:"score"`
				}
				rows := make([]row, len(results))
				for i, r := range results {
					rows[i] = row{r.Skill.Name, r.Skill.Description, r.Skill.Location, r.Score}
				}
				if err := writeJSON(out, rows); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					fmt.Fprintf(out, "%6.2f  %s  %s\n", r.Score, r.Skill.Name, firstLine(r.Skill.Description, 80))
				}
			}
			if len(results) == 0 {
				if !asJSON {
					fmt.Fprintf(cmd.ErrOrStderr(), "no skill matches %q\n", args[0])
				}
				return &exitError{code: exitInvalid}
			}
			return found.exit()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print results as JSON")
	cmd.Flags().BoolVar(&regex, "regex", false, "treat QUERY as a regular expression (RE2 syntax)")
	cmd.Flags().IntVar(&limit, "limit", 10, "show at most this many results")
	return cmd
}

// firstLine shortens s to its first line and at most n characters.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
