// Package k8s checks examples/bench/k8s-job.yaml against Kubernetes' own
// API types. It is a module of its own so that k8s.io/api, which only
// this test needs, stays out of skillrun's requirements; `make test`
// runs it.
package k8s

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestJobManifest: the example manifest is, strictly (a field the API
// does not have is an error), an Indexed Job of 4 pods, each running its
// shard (the completion index from the pod's annotation), and a Job that
// merges them; cmd/skillrun's TestK8sJobManifest runs their commands.
func TestJobManifest(t *testing.T) {
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
	require.Len(t, jobs, 2)
	shards := jobs[0]
	require.NotNil(t, shards.Spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *shards.Spec.CompletionMode)
	require.NotNil(t, shards.Spec.Completions)
	assert.Equal(t, int32(4), *shards.Spec.Completions)
	c := shards.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"skillrun"}, c.Command)
	assert.Contains(t, strings.Join(c.Args, " "), "--shard $(JOB_COMPLETION_INDEX)/4")
	require.NotEmpty(t, c.Env)
	require.Equal(t, "JOB_COMPLETION_INDEX", c.Env[0].Name)
	require.NotNil(t, c.Env[0].ValueFrom)
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", c.Env[0].ValueFrom.FieldRef.FieldPath)
}
