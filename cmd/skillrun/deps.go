package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

func newDepsCmd() *cobra.Command {
	var indexURL, findLinks string
	var refresh, asJSON bool
	cmd := &cobra.Command{
		Use:   "deps SKILL [--index-url URL] [--find-links DIR]",
		Short: "Fetch and pin the pure-Python packages a skill's scripts need",
		Long: `Deps finds what a skill's Python scripts need: PEP 723 "# /// script"
blocks, requirements.txt files, and, for scripts that declare nothing, the
packages their imports name (yaml is PyYAML). It resolves them, with their
dependencies, into pure-Python wheels (py3-none-any) from a package index
(PEP 503/691; default the public index, or PIP_INDEX_URL) or a folder of
wheels, checks every wheel's sha256 and archive, and keeps them in the user
cache dir, content-addressed. skillrun never writes into the skill: the
result is pinned in the cache, and run, shell, sessions and mcp mount it
read-only on the interpreter's path for that skill's scripts.

A package with compiled extensions (numpy, lxml, Pillow) fails with its
name: WebAssembly cannot load them. Exit status: 0 pinned, 1 a package
cannot be had, 2 usage error.`,
		Example: `  skillrun deps ./pdf-skill
  skillrun deps ./pdf-skill --find-links ./wheels --index-url none
  skillrun deps ./pdf-skill --index-url http://127.0.0.1:8080/simple`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := skills.Load(args[0], nil)
			if err != nil {
				return usageErr("%v", err)
			}
			dir := filepath.Dir(s.Location)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return usageErr("%s: deps needs the skill as a folder on disk", termsafe.Quote(args[0], 0))
			}
			need, err := pydeps.Scan(dir)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("%s: %w", termsafe.String(s.Name), err)}
			}
			out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			for _, u := range need.Unresolved {
				fmt.Fprintf(stderr, "skillrun: note: %s\n", termsafe.String(u))
			}
			if len(need.Requirements) == 0 {
				if asJSON {
					fmt.Fprintln(out, `{"requirements":[],"wheels":[]}`)
					return nil
				}
				fmt.Fprintf(out, "%s needs no packages beyond the standard library\n", termsafe.String(s.Name))
				return nil
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			site, err := pydeps.Resolve(ctx, need.Requirements, &pydeps.Options{
				IndexURL: indexURL, FindLinks: findLinks, Refresh: refresh, Progress: stderr,
			})
			if err != nil {
				var names []string
				for _, r := range need.Requirements {
					names = append(names, r.Name+" ("+r.Source+")")
				}
				return &exitError{code: 1, err: fmt.Errorf("%s needs %s: %w", termsafe.String(s.Name), termsafe.String(strings.Join(names, ", ")), err)}
			}
			if err := pydeps.SavePin("", dir, site, need.Requirements); err != nil {
				return &exitError{code: 1, err: fmt.Errorf("pinning the packages of %s: %w", termsafe.String(s.Name), err)}
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"skill": s.Name, "site": site.Dir, "wheels": site.Wheels})
			}
			for _, w := range site.Wheels {
				fmt.Fprintf(out, "%s %s  %s\n", termsafe.String(w.Name), termsafe.String(w.Version), w.SHA256[:min(12, len(w.SHA256))])
			}
			fmt.Fprintf(out, "pinned %d packages for %s (%s)\n", len(site.Wheels), termsafe.String(s.Name), site.Dir)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&indexURL, "index-url", "", "a PEP 503/691 package index `URL` (default: $PIP_INDEX_URL or https://pypi.org/simple; \"none\" for --find-links only)")
	fl.StringVar(&findLinks, "find-links", "", "a `DIR` of .whl files searched before the index")
	fl.BoolVar(&refresh, "refresh", false, "ask the index again instead of reusing the last resolution")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
