package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// k8sJob is what this test reads of a Job of examples/bench/k8s-job.yaml
// (test/k8s checks the whole manifest against Kubernetes' own types).
type k8sJob struct {
	Spec struct {
		Completions *int `yaml:"completions"`
		Template    struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// k8sJobs reads the Jobs of examples/bench/k8s-job.yaml.
func k8sJobs(t *testing.T) []*k8sJob {
	t.Helper()
	b, err := os.ReadFile("../../examples/bench/k8s-job.yaml")
	require.NoError(t, err)
	var jobs []*k8sJob
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var j k8sJob
		require.NoError(t, yaml.Unmarshal([]byte(doc), &j))
		require.NotEmpty(t, j.Spec.Template.Spec.Containers)
		jobs = append(jobs, &j)
	}
	return jobs
}

// TestK8sJobManifest: the example manifest's Indexed Job runs one shard
// per pod and its second Job merges them; the commands they run, run
// here one by one, merge to the totals of the unsharded run.
func TestK8sJobManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	jobs := k8sJobs(t)
	require.Len(t, jobs, 2)
	shards, merge := jobs[0], jobs[1]
	require.NotNil(t, shards.Spec.Completions)
	n := *shards.Spec.Completions
	require.Equal(t, 4, n)
	c := shards.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"skillrun"}, c.Command)
	assert.Contains(t, strings.Join(c.Args, " "), "--shard $(JOB_COMPLETION_INDEX)/4")

	// The pods' paths, here: the image's /bench is examples/bench, the
	// volume's /results a temporary folder.
	bench, err := filepath.Abs("../../examples/bench")
	require.NoError(t, err)
	results := t.TempDir()
	local := func(args []string, index string) []string {
		var out []string
		for _, a := range args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", index)
			a = strings.Replace(a, "/bench/", bench+"/", 1)
			a = strings.Replace(a, "/results", results, 1)
			out = append(out, a)
		}
		return out
	}
	for i := range n {
		var stdout, stderr bytes.Buffer
		code := run(local(c.Args, string(rune('0'+i))), strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, 0, code, "shard %d: %s", i, stderr.String())
	}
	merged := runBenchJSON(t, local(merge.Spec.Template.Spec.Containers[0].Args, "")...)

	// The same command without --shard, in one process.
	whole := local(c.Args, "0")
	for i, a := range whole {
		if a == "--shard" {
			whole = append(whole[:i:i], whole[i+2:]...)
			break
		}
	}
	for i, a := range whole {
		if a == "--out" {
			whole[i+1] = filepath.Join(results, "whole")
		}
	}
	want := runBenchJSON(t, whole...)
	require.Len(t, merged.Sets, 2)
	assert.Equal(t, want.Sets, merged.Sets)
	assert.Equal(t, 12, merged.Sets[0].Totals.NTrials, "6 tasks × 2 attempts")
}
