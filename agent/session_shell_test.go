package agent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// shellRunner builds the shell from this tree on first use. Its compile
// may wait longer than the default bound: under -race on a loaded 2-core
// machine the shell's compile alone took over 2 minutes.
var shellRunner = sync.OnceValues(func() (*scripts.Runner, error) {
	return scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.BuildingInterpreters("", nil),
		Sandbox: &sandbox.Options{CompileTimeout: 10 * time.Minute}})
})

const shellPlan = `
task = "How many lines does notes.txt have?"

[[turn]]
[[turn.call]]
tool = "skill_activate"
input = { name = "pub" }

[[turn]]
expect = ["Base directory for this skill: /skills/pub"]
[[turn.call]]
tool = "shell"
input = { command = "bash /skills/pub/scripts/count.sh notes.txt && echo made > out.txt" }

[[turn]]
expect = ["notes.txt: 3 lines"]
[[turn.call]]
tool = "shell"
input = { command = "cat /etc/passwd" }

[[turn]]
expect = ["exit status 1", "No such file or directory"]
text = "notes.txt has 3 lines."
`

// TestSessionShellTool: a model follows a published SKILL.md as written,
// through the shell tool: the activated skill is read-only at
// /skills/<name>, its script runs in the sandbox over the workspace as
// granted, and the host stays out of reach.
func TestSessionShellTool(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	root := t.TempDir()
	pub := filepath.Join(root, "pub")
	require.NoError(t, os.MkdirAll(filepath.Join(pub, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pub, "SKILL.md"), []byte("---\nname: pub\ndescription: Counts the lines of a file.\n---\nRun `bash scripts/count.sh FILE` from this skill's folder.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pub, "scripts", "count.sh"), []byte("#!/bin/bash\nset -eu\necho \"$1: $(wc -l < \"$1\") lines\"\n"), 0o755))
	ws := filepath.Join(root, "ws")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a\nb\nc\n"), 0o644))
	s, err := skills.Load(pub, nil)
	require.NoError(t, err)
	r, err := shellRunner()
	require.NoError(t, err)

	var requests []*agent.Request
	var buf bytes.Buffer
	sess := &agent.Session{
		Provider: recording(agent.NewScripted(plan(t, shellPlan)), &requests),
		Skills:   []*skills.Skill{s}, Scripts: scriptsWith(t, r, ws, scripts.ShellDeclares(), nil), // --allow-read --allow-write
		Transcript: agent.NewTranscript(&buf),
	}
	res, err := sess.Run(context.Background(), "How many lines does notes.txt have?")
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, res.Outcome, "%v\n%s", res.Err, buf.String())
	assert.Equal(t, "notes.txt has 3 lines.", res.Text)
	assert.Contains(t, toolNames(requests[0].Tools), "shell")
	b, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "made\n", string(b))

	// Without a workspace grant there is no shell tool.
	requests = nil
	sess = &agent.Session{
		Provider: recording(agent.NewScripted(plan(t, csvPlan)), &requests),
		Skills:   []*skills.Skill{s}, Scripts: scriptsWith(t, r, ws, capabilities.Set{}, nil),
	}
	_, _ = sess.Run(context.Background(), "Summarise sales.csv")
	require.NotEmpty(t, requests)
	assert.NotContains(t, toolNames(requests[0].Tools), "shell")
}
