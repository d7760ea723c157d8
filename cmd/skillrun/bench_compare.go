package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/bench"
	"github.com/skillrun/skillrun/internal/safefile"
)

type benchCompareFlags struct {
	baseline string
	out      string
	html     string
	json     bool
	tsv      bool
	seed     uint64
}

func newBenchCompareCmd() *cobra.Command {
	var f benchCompareFlags
	cmd := &cobra.Command{
		Use:   "compare RUN...",
		Short: "Compare plugin sets: totals, and each set against a baseline, task by task",
		Long: `Compare reads the results of bench run and prints, for each plugin set, the
trials resolved, unresolved and errored, accuracy with and without the
errored trials, pass@k, mean and max runtime, tokens and cost; and for each
set against the baseline, paired by task: the mean difference in success
rate with a 95% bootstrap interval over tasks, the exact McNemar test over
task × attempt pairs, and whether the set's skills were activated at all.
Tasks only one of two sets ran are listed and left out of the pairing.

Each RUN is a set's folder (it holds results.json), a folder holding set
folders, or a run id: every folder <RUN>__<set> under --out, as bench run
names them. Two sets of one name are refused: merge a sharded run first
(bench merge). The baseline is --baseline, else the set named no-plugins or
baseline, else the first set.

--json and --tsv print the comparison for machines; --html FILE writes a
self-contained page (charts and the per-task grid; it loads nothing from
the network) as well.

Exit status: 0 compared, 2 usage or I/O error.`,
		Example: `  skillrun bench compare 2026-11-26__18-00-00
  skillrun bench compare experiments/run1__no-plugins experiments/run2__example-skills --baseline no-plugins
  skillrun bench compare run1 --html report.html --tsv > report.tsv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchCompare(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.baseline, "baseline", "", "the baseline set `NAME` (default: no-plugins or baseline, else the first set)")
	fl.StringVar(&f.out, "out", "experiments", "the `DIR` where a RUN given by id is looked for")
	fl.StringVar(&f.html, "html", "", "also write the comparison as a self-contained HTML page to `FILE`")
	fl.BoolVar(&f.json, "json", false, "print the comparison as JSON")
	fl.BoolVar(&f.tsv, "tsv", false, "print the comparison as tab-separated values")
	fl.Uint64Var(&f.seed, "seed", 1, "the bootstrap's seed `N` (the same seed prints the same intervals)")
	return cmd
}

func runBenchCompare(cmd *cobra.Command, f *benchCompareFlags, args []string) error {
	if f.json && f.tsv {
		return usageErr("--json and --tsv: choose one")
	}
	if f.html != "" {
		if err := checkHTMLTarget(f.html); err != nil {
			return err
		}
	}
	groups, err := compareFolders(args, f.out)
	if err != nil {
		return err
	}
	var sets []*bench.Results
	loaded := map[string][]string{}
	for _, dirs := range groups {
		group, err := readCompareGroup(dirs, loaded)
		if err != nil {
			return err
		}
		sets = append(sets, group...)
	}
	c, err := bench.Compare(sets, f.baseline, bench.CompareOptions{Seed: f.seed, SkillsLoaded: loaded})
	if err != nil {
		return usageErr("%v", err)
	}
	if f.html != "" {
		if err := safefile.WriteAtomic(f.html, 0o644, c.WriteHTML); err != nil {
			return usageErr("--html %s: %v", f.html, safefile.Cause(err))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "skillrun: wrote %s\n", f.html)
	}
	return printComparison(cmd.OutOrStdout(), c, f)
}

// readCompareGroup reads the set folders one RUN named, in the order
// their run listed its sets (the plugin-sets file's), and records the
// skills each set's run loaded.
func readCompareGroup(dirs []string, loaded map[string][]string) ([]*bench.Results, error) {
	var out []*bench.Results
	var order []string
	for _, d := range dirs {
		r, err := bench.ReadResults(d)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		rc, err := bench.ReadRunConfig(d)
		switch {
		case errors.Is(err, fs.ErrNotExist): // results copied without it: the entries stand for the skills
		case err != nil:
			return nil, usageErr("%v", err)
		case r.PluginSet != nil:
			loaded[r.PluginSet.Name] = rc.SkillsLoaded
			if order == nil {
				order = rc.Sets
			}
		}
		out = append(out, r)
	}
	rank := func(r *bench.Results) int {
		if r.PluginSet != nil {
			if i := slices.Index(order, r.PluginSet.Name); i >= 0 {
				return i
			}
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b *bench.Results) int { return rank(a) - rank(b) })
	return out, nil
}

func printComparison(w io.Writer, c *bench.Comparison, f *benchCompareFlags) error {
	switch {
	case f.json:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	case f.tsv:
		return c.WriteTSV(w)
	}
	return c.WriteTable(w)
}

// checkHTMLTarget refuses an --html path that is a symlink or a folder
// before any work: the page replaces a file by a rename, and replacing a
// link someone planted (or the user's own) would surprise either way.
func checkHTMLTarget(file string) error {
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErr("--html %s: %v", file, safefile.Cause(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return usageErr("--html %s is a symlink; skillrun does not write through one: name the file itself", file)
	case !fi.Mode().IsRegular():
		return usageErr("--html %s exists and is not a file", file)
	}
	return nil
}

// compareFolders expands each RUN to set folders: a folder holding
// results.json, a folder's subfolders that hold one, or, for a RUN that
// is no folder, the folders <out>/<RUN>__* that bench run wrote. There
// is one group of folders per RUN.
func compareFolders(args []string, out string) ([][]string, error) {
	var groups [][]string
	for _, a := range args {
		if hasResults(a) {
			groups = append(groups, []string{a})
			continue
		}
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			sub, err := setsIn(a, "")
			if err != nil {
				return nil, err
			}
			if len(sub) == 0 {
				return nil, usageErr("%s: no results.json in it or in its folders (a set's folder has one once its run has ended)", a)
			}
			groups = append(groups, sub)
			continue
		}
		if strings.ContainsAny(a, `/\`) {
			return nil, usageErr("%s: no such folder", a)
		}
		sub, err := setsIn(out, a+"__")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if len(sub) == 0 {
			return nil, usageErr("%s: not a set's folder, and no run %s in %s (its folders are named %s__<set>; --out names where bench run wrote them)",
				a, a, out, a)
		}
		groups = append(groups, sub)
	}
	return groups, nil
}

// setsIn lists dir's subfolders whose names start with prefix and that
// hold results.json, in name order. A subfolder of a run that has not
// ended (no results.json yet) is an error, so that a set is not left out
// of a comparison unnoticed.
func setsIn(dir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, usageErr("%s: %v", dir, safefile.Cause(err))
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		d := filepath.Join(dir, e.Name())
		switch {
		case hasResults(d):
			out = append(out, d)
		case isFile(filepath.Join(d, "run_config.yaml")):
			return nil, usageErr("%s: its run has not ended (no results.json); finish it with bench run --resume", d)
		}
	}
	return out, nil
}

func hasResults(dir string) bool { return isFile(filepath.Join(dir, "results.json")) }

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}
