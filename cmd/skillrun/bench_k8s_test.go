package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// k8sJobs reads examples/bench/k8s-job.yaml as Kubernetes batch/v1 Jobs,
// strictly: a field the API does not have is an error.
func k8sJobs(t *testing.T) []*batchv1.Job {
	t.Helper()
	b, err := os.ReadFile("../../examples/bench/k8s-job.yaml")
	require.NoError(t, err)
	var jobs []*batchv1.Job
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var j batchv1.Job
		require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &j))
		require.Equal(t, "batch/v1", j.APIVersion)
		require.Equal(t, "Job", j.Kind)
		require.NotEmpty(t, j.Spec.Template.Spec.Containers)
		require.Equal(t, "Never", string(j.Spec.Template.Spec.RestartPolicy))
		jobs = append(jobs, &j)
	}
	return jobs
}

// TestK8sJobManifest: the example manifest is a valid Indexed Job whose
// pods run one shard each and a merge Job; the commands they run, run
// here one by one, merge to the totals of the unsharded run.
func TestK8sJobManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	jobs := k8sJobs(t)
	require.Len(t, jobs, 2)
	shards, merge := jobs[0], jobs[1]
	require.NotNil(t, shards.Spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *shards.Spec.CompletionMode)
	n := int(*shards.Spec.Completions)
	require.Equal(t, 4, n)
	c := shards.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"skillrun"}, c.Command)
	assert.Contains(t, strings.Join(c.Args, " "), "--shard $(JOB_COMPLETION_INDEX)/4")
	require.Equal(t, "JOB_COMPLETION_INDEX", c.Env[0].Name)
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", c.Env[0].ValueFrom.FieldRef.FieldPath)

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
