package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

// depsFlags are the flags of `skillrun deps`.
type depsFlags struct {
	indexURL, findLinks string
	packages            []string
	refresh, asJSON     bool
	strictPython        bool
}

func newDepsCmd() *cobra.Command {
	var f depsFlags
	cmd := &cobra.Command{
		Use:   "deps SKILL [--index-url URL] [--find-links DIR]",
		Short: "Fetch and pin the pure-Python packages a skill's scripts need",
		Long: `Deps finds what a skill's Python scripts need: PEP 723 "# /// script"
blocks, requirements.txt files, and, for scripts that declare nothing, the
packages their imports name when skillrun knows which package provides
the import (yaml is PyYAML, bs4 is beautifulsoup4). An import it does not
know is never guessed into a package of the same name (anyone may publish
one): deps fails naming the import and where it is, and --package NAME
says which package provides it. It resolves them, with their
dependencies, into pure-Python wheels (py3-none-any) from a package index
(PEP 503/691; default the public index, or PIP_INDEX_URL) or a folder of
wheels, checks every wheel's sha256 and archive, and keeps them in the user
cache dir, content-addressed. skillrun never writes into the skill: the
result is pinned in the cache, and run, shell, sessions and mcp mount it
read-only on the interpreter's path for that skill's scripts.

skillrun's Python has compiled packages built in, which deps never
fetches: ` + builtinList() + `.
A requirement or an import naming one is met by the built-in copy; when
a specifier excludes the built-in version, deps warns, naming who asked,
and uses it anyway. Any other package with compiled extensions (numpy,
pandas, scipy) fails with its name, since WebAssembly cannot load them:
a skill you trust that needs one can run in the native tier (run
--native, or native = true in the skill's policy), as the host's python3
with its own packages. Exit status: 0 pinned (or nothing needed beyond
the standard library and the built-in packages), 1 a package cannot be
had or an import is not provided, 2 usage error.`,
		Example: `  skillrun deps ./pdf-skill
  skillrun deps ./pdf-skill --find-links ./wheels --index-url none
  skillrun deps ./pdf-skill --index-url http://127.0.0.1:8080/simple
  skillrun deps ./pdf-skill --package pdfkit-lite`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDeps(cmd, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.indexURL, "index-url", "", "a PEP 503/691 package index `URL` (default: $PIP_INDEX_URL or https://pypi.org/simple; \"none\" for --find-links only)")
	fl.StringVar(&f.findLinks, "find-links", "", "a `DIR` of .whl files searched before the index")
	fl.StringArrayVar(&f.packages, "package", nil, "a package (a PEP 508 `REQUIREMENT`, e.g. name or name>=1.2) to pin besides what the skill declares; repeatable: how to say which package provides an import skillrun does not know")
	fl.BoolVar(&f.refresh, "refresh", false, "ask the index again instead of reusing the last resolution")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.BoolVar(&f.strictPython, strictPythonFlag, false, strictPythonUsage)
	return cmd
}

// builtinPackages are the compiled packages of skillrun's WASI CPython
// ([interp.PythonPackages]), which deps counts as provided.
func builtinPackages() []pydeps.Provided {
	out := make([]pydeps.Provided, 0, len(interp.PythonPackages))
	for _, p := range interp.PythonPackages {
		out = append(out, pydeps.Provided{Name: p.Name, Version: p.Version, Import: p.Import})
	}
	return out
}

// builtinList names the built-in packages for the help text: "Pillow
// 9.4.0 (import PIL) and lxml 4.9.2".
func builtinList() string {
	var names []string
	for _, p := range interp.PythonPackages {
		n := p.Name + " " + p.Version
		if p.Import != p.Name {
			n += " (import " + p.Import + ")"
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	return pydeps.JoinAnd(names)
}

// unknownImports is deps' refusal when scripts import modules that no
// declared or named package provides: skillrun does not guess a package
// from an import's name, since a package that took that name on the
// index would be pinned and run with the skill's grants. It lists each
// import with where it is, what was inferred from known imports, and
// how to name the package. Nothing is pinned.
func unknownImports(arg, skill string, unknown []pydeps.Import, reqs []pydeps.Requirement) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: nothing pinned: no package skillrun knows or was told of provides ", termsafe.String(skill))
	for i, im := range unknown {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (imported at %s)", termsafe.String(im.Module), termsafe.String(im.Where))
	}
	var inferred []string
	for _, r := range reqs {
		if strings.Contains(r.Source, " imports ") {
			inferred = append(inferred, r.Name+" ("+r.Source+")")
		}
	}
	if len(inferred) > 0 {
		fmt.Fprintf(&b, "; inferred from known imports: %s", termsafe.String(strings.Join(inferred, ", ")))
	}
	fmt.Fprintf(&b, `; skillrun does not guess a package from an import's name (anyone may publish one named like it): if you know the package, name it, as in skillrun deps %s --package NAME, or declare it in the script's "# /// script" block or the skill's requirements.txt`, termsafe.Quote(arg, 0))
	return &exitError{code: 1, err: errors.New(b.String())}
}

// runDeps finds what the skill at arg's Python scripts need, resolves it
// against the built-in packages and the index, and pins the wheels.
func runDeps(cmd *cobra.Command, f *depsFlags, arg string) error {
	s, err := skills.Load(arg, nil)
	if err != nil {
		return usageErr("%v", err)
	}
	dir := filepath.Dir(s.Location)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErr("%s: deps needs the skill as a folder on disk", termsafe.Quote(arg, 0))
	}
	need, err := pydeps.Scan(dir)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("%s: %w", termsafe.String(s.Name), err)}
	}
	out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := pythonWarnings(s.Name, need.Python, f.strictPython, stderr); err != nil {
		return err
	}
	provided := builtinPackages()
	need.UseProvided(provided)
	reqs := need.Requirements
	for _, p := range f.packages {
		r, err := pydeps.ParseRequirement(p)
		if err != nil {
			return usageErr("--package %s: %v", termsafe.Quote(p, 0), err)
		}
		r.Source = "--package"
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 && len(need.Unknown) > 0 {
		// Nothing names a package: the index is not asked.
		return unknownImports(arg, s.Name, need.Unknown, reqs)
	}
	if len(reqs) == 0 {
		if f.asJSON {
			fmt.Fprintln(out, `{"requirements":[],"wheels":[],"provided":[]}`)
			return nil
		}
		fmt.Fprintf(out, "%s needs no packages beyond the standard library\n", termsafe.String(s.Name))
		return nil
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	site, err := pydeps.Resolve(ctx, reqs, &pydeps.Options{
		IndexURL: f.indexURL, FindLinks: f.findLinks, Refresh: f.refresh, Progress: stderr,
		Provided: provided,
	})
	if err != nil {
		var names []string
		for _, r := range reqs {
			names = append(names, r.Name+" ("+r.Source+")")
		}
		return &exitError{code: 1, err: fmt.Errorf("%s needs %s: %w", termsafe.String(s.Name), termsafe.String(strings.Join(names, ", ")), err)}
	}
	var missing []pydeps.Import
	for _, im := range need.Unknown {
		if !site.Provides(im.Module) {
			missing = append(missing, im)
		}
	}
	if len(missing) > 0 {
		return unknownImports(arg, s.Name, missing, reqs)
	}
	return printDeps(cmd.OutOrStdout(), f.asJSON, s, dir, site, reqs)
}

// printDeps pins and reports what a skill needs: the wheels, the
// packages built into skillrun's Python it uses.
func printDeps(out io.Writer, asJSON bool, s *skills.Skill, dir string, site *pydeps.Site, reqs []pydeps.Requirement) error {
	uses := ""
	if len(site.Provided) > 0 {
		var names []string
		for _, p := range site.Provided {
			names = append(names, p.String())
		}
		uses = fmt.Sprintf("uses %s (built into skillrun's Python)", termsafe.String(strings.Join(names, ", ")))
	}
	if len(site.Wheels) == 0 {
		// Only built-in packages: nothing to fetch or pin, as for a
		// skill that needs only the standard library.
		if asJSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"skill": s.Name, "wheels": site.Wheels, "provided": site.Provided})
		}
		fmt.Fprintf(out, "%s needs no packages beyond the standard library and the built-in ones: it %s\n", termsafe.String(s.Name), uses)
		return nil
	}
	if err := pydeps.SavePin("", dir, site, reqs); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("pinning the packages of %s: %w", termsafe.String(s.Name), err)}
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"skill": s.Name, "site": site.Dir, "wheels": site.Wheels, "provided": site.Provided})
	}
	for _, w := range site.Wheels {
		fmt.Fprintf(out, "%s %s  %s\n", termsafe.String(w.Name), termsafe.String(w.Version), w.SHA256[:min(12, len(w.SHA256))])
	}
	if uses != "" {
		fmt.Fprintln(out, uses)
	}
	fmt.Fprintf(out, "pinned %d packages for %s (%s)\n", len(site.Wheels), termsafe.String(s.Name), site.Dir)
	return nil
}
