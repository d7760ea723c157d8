package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/internal/safefile"
)

// Files of a set's folder, ADE-bench's names.
const (
	runConfigFile = "run_config.yaml"
	resultsFile   = "results.json"
	maxResultFile = 8 << 20
)

// RunConfig is run_config.yaml: what a set's folder was made by. A
// resume or a merge checks that it describes the same matrix.
type RunConfig struct {
	Schema       string     `yaml:"schema" json:"schema"`
	RunID        string     `yaml:"run_id" json:"run_id"`
	Agent        string     `yaml:"agent" json:"agent"`
	Provider     string     `yaml:"provider" json:"provider"`
	Model        string     `yaml:"model" json:"model"`
	Attempts     int        `yaml:"n_attempts" json:"n_attempts"`
	Tasks        []string   `yaml:"task_ids" json:"task_ids"`
	Sets         []string   `yaml:"plugin_sets" json:"plugin_sets"`
	Shard        string     `yaml:"shard" json:"shard"`
	Parallel     int        `yaml:"n_concurrent_trials" json:"n_concurrent_trials"`
	PluginSet    *PluginSet `yaml:"plugin_set" json:"plugin_set"`
	SkillsLoaded []string   `yaml:"skills_loaded" json:"skills_loaded"`
	// NativeSkills are the skills whose scripts ran as confined host
	// processes (`--native`): a different tier is a different matrix.
	NativeSkills []string `yaml:"native_skills,omitempty" json:"native_skills,omitempty"`
	// MergedFrom are the shard folders `bench merge` made this one of.
	MergedFrom []string `yaml:"merged_from,omitempty" json:"merged_from,omitempty"`
}

// Results is a set's results.json: the run's metadata, the set's whole
// configuration, every trial, and the totals (ADE-bench's
// BenchmarkResults fields at the top level).
type Results struct {
	Schema    string         `json:"schema"`
	Run       RunMetadata    `json:"run_metadata"`
	PluginSet *PluginSet     `json:"plugin_set"`
	Trials    []*TrialResult `json:"results"`
	Totals
}

// RunMetadata are ADE-bench's run fields that mean something here.
type RunMetadata struct {
	RunID       string   `json:"run_id"`
	AgentName   string   `json:"agent_name"`
	ModelName   string   `json:"model_name"`
	Provider    string   `json:"provider"`
	NAttempts   int      `json:"n_attempts"`
	NConcurrent int      `json:"n_concurrent_trials"`
	DatasetSize int      `json:"dataset_size"`
	TaskIDs     []string `json:"task_ids"`
	Shard       string   `json:"shard"`
	EndTime     string   `json:"end_time"`
}

func (r *runner) runConfig() RunConfig {
	var sets []string
	for _, a := range r.arms {
		sets = append(sets, a.set.Name)
	}
	return RunConfig{Schema: SchemaVersion, RunID: r.cfg.RunID, Agent: r.cfg.Agent, Provider: r.cfg.ProviderName,
		Model: r.cfg.Model, Attempts: r.cfg.Attempts, Parallel: r.cfg.Parallel, Tasks: taskIDs(r.cfg.Tasks), Sets: sets, Shard: r.cfg.Shard.String()}
}

// prepareDir makes a set's folder for a new run (refusing one that
// exists) or checks it for a resume.
func (r *runner) prepareDir(a *arm, rc RunConfig) error {
	rc.PluginSet = a.set
	rc.SkillsLoaded = skillNames(a.skills)
	rc.NativeSkills = nil
	for sk := range a.natives {
		rc.NativeSkills = append(rc.NativeSkills, sk.Name)
	}
	slices.Sort(rc.NativeSkills)
	file := filepath.Join(a.dir, runConfigFile)
	_, statErr := os.Lstat(a.dir)
	if r.cfg.Resume && errors.Is(statErr, os.ErrNotExist) {
		// A resume of a run that never started starts it, so that one
		// command both starts and finishes a run (a retried Kubernetes
		// pod runs the same command).
		return r.newDir(a, rc, file)
	}
	if !r.cfg.Resume {
		if statErr == nil {
			return fmt.Errorf("%s exists: resume that run with --resume %s, or choose another --out", a.dir, r.cfg.RunID)
		}
		return r.newDir(a, rc, file)
	}
	old, err := readRunConfig(file)
	if err != nil {
		return fmt.Errorf("--resume %s: %w", r.cfg.RunID, err)
	}
	if diff := diffRunConfig(old, rc); diff != "" {
		return fmt.Errorf("--resume %s: %s was made by another command (%s); run it as it was, or start a new run", r.cfg.RunID, file, diff)
	}
	return nil
}

func (r *runner) newDir(a *arm, rc RunConfig, file string) error {
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return err
	}
	return writeYAML(file, rc)
}

func readRunConfig(file string) (RunConfig, error) {
	var rc RunConfig
	b, err := readBounded(file, maxResultFile)
	if err != nil {
		return rc, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&rc); err != nil {
		return rc, fmt.Errorf("%s: %w", file, err)
	}
	if rc.Schema != SchemaVersion {
		return rc, fmt.Errorf("%s: schema %q, not %q", file, rc.Schema, SchemaVersion)
	}
	return rc, nil
}

// diffRunConfig names the first field in which two configurations of one
// set differ, or "".
func diffRunConfig(a, b RunConfig) string {
	switch {
	case a.Agent != b.Agent:
		return fmt.Sprintf("agent %q, now %q", a.Agent, b.Agent)
	case a.Provider != b.Provider:
		return fmt.Sprintf("provider %q, now %q", a.Provider, b.Provider)
	case a.Model != b.Model:
		return fmt.Sprintf("model %q, now %q", a.Model, b.Model)
	case a.Attempts != b.Attempts:
		return fmt.Sprintf("%d attempts, now %d", a.Attempts, b.Attempts)
	case !reflect.DeepEqual(a.Tasks, b.Tasks):
		return fmt.Sprintf("tasks %v, now %v", a.Tasks, b.Tasks)
	case !reflect.DeepEqual(a.Sets, b.Sets):
		return fmt.Sprintf("plugin sets %v, now %v", a.Sets, b.Sets)
	case a.Shard != b.Shard:
		return fmt.Sprintf("shard %s, now %s", a.Shard, b.Shard)
	case !slices.Equal(a.NativeSkills, b.NativeSkills):
		return fmt.Sprintf("native tier for %v, now %v", a.NativeSkills, b.NativeSkills)
	case !samePluginSet(a.PluginSet, b.PluginSet):
		return "the plugin set's definition changed"
	}
	return ""
}

func samePluginSet(a, b *PluginSet) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.Line, y.Line = 0, 0
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func newResults(rc RunConfig, a *arm, trials []*TrialResult) *Results {
	if trials == nil {
		trials = []*TrialResult{}
	}
	return &Results{
		Schema: SchemaVersion,
		Run: RunMetadata{RunID: rc.RunID, AgentName: rc.Agent, ModelName: rc.Model, Provider: rc.Provider,
			NAttempts: rc.Attempts, NConcurrent: rc.Parallel, DatasetSize: len(rc.Tasks), TaskIDs: rc.Tasks, Shard: rc.Shard,
			EndTime: time.Now().UTC().Format(time.RFC3339)},
		PluginSet: a.set,
		Trials:    trials,
		Totals:    Total(trials),
	}
}

// trialFile is result.json: the trial and a checksum of it, so a result
// changed by hand is found before a resume or a merge builds on it.
type trialFile struct {
	*TrialResult
	Checksum string `json:"checksum"`
}

func trialChecksum(r *TrialResult) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func writeTrialResult(file string, r *TrialResult) error {
	sum, err := trialChecksum(r)
	if err != nil {
		return err
	}
	return writeJSON(file, trialFile{TrialResult: r, Checksum: sum})
}

// readTrialResult reads a result.json, refusing one whose checksum does
// not match (edited by hand) or of another schema.
func readTrialResult(file string) (*TrialResult, error) {
	b, err := readBounded(file, maxResultFile)
	if err != nil {
		return nil, err
	}
	tf := trialFile{TrialResult: &TrialResult{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return nil, fmt.Errorf("%s: not a trial result: %w", file, err)
	}
	if tf.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema %q, not %q", file, tf.Schema, SchemaVersion)
	}
	sum, err := trialChecksum(tf.TrialResult)
	if err != nil {
		return nil, err
	}
	if sum != tf.Checksum {
		return nil, fmt.Errorf("%s was changed after the trial wrote it (its checksum does not match)", file)
	}
	return tf.TrialResult, nil
}

// checkTrial checks that a result read back is the trial expected there.
func checkTrial(res *TrialResult, t trial) error {
	if res.TaskID != t.task.ID || res.Attempt != t.attempt || res.PluginSetName != t.arm.set.Name {
		return fmt.Errorf("%s holds the result of task %s attempt %d of set %s", filepath.Join(t.rel(), resultFile),
			res.TaskID, res.Attempt, res.PluginSetName)
	}
	return nil
}

// writeJSON writes v as indented JSON, atomically: a reader (or a
// resume after a kill) sees the old file or the new, never a part.
func writeJSON(file string, v any) error {
	return safefile.WriteAtomic(file, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

func writeYAML(file string, v any) error {
	return safefile.WriteAtomic(file, 0o644, func(w io.Writer) error {
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(v); err != nil {
			return err
		}
		return enc.Close()
	})
}

// ReadResults reads a set's results.json.
func ReadResults(dir string) (*Results, error) {
	b, err := readBounded(filepath.Join(dir, resultsFile), 1<<30)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s (not a set's results folder, or its run has not ended)", dir, resultsFile)
		}
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, resultsFile), err)
	}
	if r.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema %q, not %q", filepath.Join(dir, resultsFile), r.Schema, SchemaVersion)
	}
	return &r, nil
}
