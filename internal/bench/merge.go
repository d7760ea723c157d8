package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Merge combines the folders of a sharded run (each a set's folder
// written by `bench run --shard I/N`) into one folder per set under out,
// named runID__<set>, with the totals an unsharded run would have. It
// refuses, saying why, shards of different runs (another agent, model,
// task list, attempts or plugin set), a shard missing or given twice, a
// trial missing or present twice, and any result changed by hand (its
// checksum, or a results.json that does not add up to its trials).
func Merge(dirs []string, out, runID string) (*Summary, error) {
	type shardDir struct {
		dir    string
		rc     RunConfig
		shard  Shard
		trials []*TrialResult
	}
	bySet := map[string][]*shardDir{}
	var order []string
	for _, d := range dirs {
		rc, err := readRunConfig(filepath.Join(d, runConfigFile))
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		sh, err := ParseShard(rc.Shard)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: run_config.yaml: %w", d, err)
		}
		trials, err := readTrials(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if err := checkResultsFile(d, trials); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if rc.PluginSet == nil {
			return nil, fmt.Errorf("merge: %s: run_config.yaml has no plugin_set", d)
		}
		name := rc.PluginSet.Name
		if _, ok := bySet[name]; !ok {
			order = append(order, name)
		}
		bySet[name] = append(bySet[name], &shardDir{dir: d, rc: rc, shard: sh, trials: trials})
	}
	if len(order) == 0 {
		return nil, errors.New("merge: no folders")
	}
	// The sets in the run's order, as `bench run` reports them.
	runOrder := bySet[order[0]][0].rc.Sets
	slices.SortStableFunc(order, func(a, b string) int { return slices.Index(runOrder, a) - slices.Index(runOrder, b) })
	sum := &Summary{RunID: runID}
	for _, name := range order {
		parts := bySet[name]
		first := parts[0]
		n := first.shard.N
		seen := map[int]string{}
		for _, p := range parts {
			if p.shard.N != n {
				return nil, fmt.Errorf("merge: set %s: %s is shard %s and %s is shard %s: not one sharding", name, first.dir, first.rc.Shard, p.dir, p.rc.Shard)
			}
			if other, dup := seen[p.shard.I]; dup {
				return nil, fmt.Errorf("merge: set %s: shard %s given twice (%s and %s)", name, p.rc.Shard, other, p.dir)
			}
			seen[p.shard.I] = p.dir
			a, b := first.rc, p.rc
			a.Shard, b.Shard, a.RunID, b.RunID, a.Parallel, b.Parallel = "", "", "", "", 0, 0
			if diff := diffRunConfig(a, b); diff != "" {
				return nil, fmt.Errorf("merge: set %s: %s and %s are not shards of one run: %s", name, first.dir, p.dir, diff)
			}
		}
		for i := range n {
			if _, ok := seen[i]; !ok {
				return nil, fmt.Errorf("merge: set %s: shard %d/%d is missing", name, i, n)
			}
		}
		var all []*TrialResult
		from := map[string]string{}
		for _, p := range parts {
			for _, t := range p.trials {
				key := t.TaskID + "/" + strconv.Itoa(t.Attempt)
				if other, dup := from[key]; dup {
					return nil, fmt.Errorf("merge: set %s: task %s attempt %d is in %s and %s", name, t.TaskID, t.Attempt, other, p.dir)
				}
				from[key] = p.dir
				all = append(all, t)
			}
		}
		for _, task := range first.rc.Tasks {
			for at := 1; at <= first.rc.Attempts; at++ {
				if _, ok := from[task+"/"+strconv.Itoa(at)]; !ok {
					return nil, fmt.Errorf("merge: set %s: task %s attempt %d is in no shard (finish its shard with --resume)", name, task, at)
				}
			}
		}
		if len(all) != len(first.rc.Tasks)*first.rc.Attempts {
			return nil, fmt.Errorf("merge: set %s: %d trials for %d tasks × %d attempts", name, len(all), len(first.rc.Tasks), first.rc.Attempts)
		}
		sortTrials(all)
		rc := first.rc
		rc.RunID, rc.Shard, rc.Parallel = runID, "0/1", 0
		for _, p := range parts {
			rc.MergedFrom = append(rc.MergedFrom, p.dir)
			rc.Parallel = max(rc.Parallel, p.rc.Parallel)
		}
		dst := filepath.Join(out, runID+"__"+name)
		if _, err := os.Lstat(dst); err == nil {
			return nil, fmt.Errorf("merge: %s exists; give another --run-id or --out", dst)
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return nil, err
		}
		for _, t := range all {
			src := filepath.Join(from[t.TaskID+"/"+strconv.Itoa(t.Attempt)], t.TaskID, strconv.Itoa(t.Attempt))
			if err := copyTree(filepath.Join(dst, t.TaskID, strconv.Itoa(t.Attempt)), src); err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
		}
		if err := writeYAML(filepath.Join(dst, runConfigFile), rc); err != nil {
			return nil, err
		}
		res := newResults(rc, &arm{set: rc.PluginSet}, all)
		if err := writeJSON(filepath.Join(dst, resultsFile), res); err != nil {
			return nil, err
		}
		sum.Sets = append(sum.Sets, res)
		sum.Dirs = append(sum.Dirs, dst)
	}
	return sum, nil
}

// readTrials reads every <task>/<attempt>/result.json of a set's folder,
// each checked against its checksum.
func readTrials(dir string) ([]*TrialResult, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []*TrialResult
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.Count(p, "/") >= 2 {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && d.Name() == resultFile && strings.Count(p, "/") == 2 {
			r, err := readTrialResult(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			if want := filepath.ToSlash(filepath.Join(r.TaskID, strconv.Itoa(r.Attempt), resultFile)); want != p {
				return fmt.Errorf("%s holds the result of %s", filepath.Join(dir, p), want)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// checkResultsFile checks that a set's results.json adds up to its
// trials: totals edited by hand would otherwise pass into the merge.
func checkResultsFile(dir string, trials []*TrialResult) error {
	res, err := ReadResults(dir)
	if err != nil {
		return err
	}
	got, want := Total(res.Trials), Total(trials)
	if len(res.Trials) != len(trials) || got.NResolved != want.NResolved || res.Totals.NResolved != want.NResolved ||
		res.Totals.NTrials != want.NTrials || res.Totals.NErrored != want.NErrored {
		return fmt.Errorf("%s: results.json does not add up to its trials' result.json files (edited by hand, or its run did not finish: --resume it)", dir)
	}
	return nil
}

func sortTrials(l []*TrialResult) {
	slices.SortFunc(l, func(a, b *TrialResult) int {
		if c := strings.Compare(a.TaskID, b.TaskID); c != 0 {
			return c
		}
		return a.Attempt - b.Attempt
	})
}
