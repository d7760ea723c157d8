package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/bench"
	"github.com/skillrun/skillrun/internal/safefile"
)

func newBenchMergeCmd() *cobra.Command {
	var out, runID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge RUN...",
		Short: "Combine the folders of a sharded run into one run",
		Long: `Merge combines what the shards of one run wrote (bench run --shard I/N on
many machines) into one folder per plugin set under --out, named
<run-id>__<set>, with the totals an unsharded run would have. Each RUN is a
set's folder, or a folder holding them (one machine's --out).

It refuses, saying why: folders of different runs (another agent, model,
task list, attempts or plugin set), a shard missing or given twice, a trial
missing or present twice, and results changed by hand.`,
		Example: `  skillrun bench merge /results/shard-0 /results/shard-1 /results/shard-2 --out experiments`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := setFolders(args)
			if err != nil {
				return err
			}
			if runID == "" {
				runID = time.Now().UTC().Format("2006-01-02__15-04-05") + "-merged"
			}
			sum, err := bench.Merge(dirs, out, runID)
			if err != nil {
				return usageErr("%v", err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(benchSummaryJSON(sum))
			}
			printBenchSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "experiments", "the `DIR` to write the merged run into")
	cmd.Flags().StringVar(&runID, "run-id", "", "the merged run's `ID` (default: now, UTC, and -merged)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// setFolders expands each argument to the set folders it names: itself
// when it holds run_config.yaml, else its subfolders that do.
func setFolders(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, "run_config.yaml")); err == nil {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, usageErr("%s: %v", a, safefile.Cause(err))
		}
		n := 0
		for _, e := range entries {
			d := filepath.Join(a, e.Name())
			if _, err := os.Stat(filepath.Join(d, "run_config.yaml")); e.IsDir() && err == nil {
				out = append(out, d)
				n++
			}
		}
		if n == 0 {
			return nil, usageErr("%s: no results of bench run in it (a set's folder holds run_config.yaml)", a)
		}
	}
	return out, nil
}
