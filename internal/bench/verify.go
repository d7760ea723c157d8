package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/sandbox"
)

// maxRewardFile bounds reward.txt and reward.json.
const maxRewardFile = 64 << 10

// verify runs the task's tests/test.sh in the sandboxed shell over the
// trial's final workspace, as Harbor's verifier does: the tests folder
// read-only at /tests, /logs/verifier writable (the trial's verifier
// folder, bounded), the workspace at the task's mount point. The reward
// is reward.txt (a number) or reward.json ({"reward": number}); a
// verifier that writes neither is judged by its exit status (0 → 1).
func (r *runner) verify(ctx context.Context, t trial, ws, dir string) (float64, FailureMode, error) {
	ctx, cancel := context.WithTimeout(ctx, t.task.VerifierTimeout)
	defer cancel()
	logs := filepath.Join(dir, verifierDir)
	res, err := r.taskShell(ctx, t, ws, filepath.Join(logs, testOutputFile), "/tests/test.sh",
		sandbox.Mount{HostDir: filepath.Join(t.task.Dir, "tests"), GuestPath: "/tests"},
		sandbox.Mount{HostDir: logs, GuestPath: "/logs/verifier", Writable: true, MaxBytes: maxLogBytes})
	switch {
	case errors.Is(err, sandbox.ErrTimeout) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return 0, FailureTestTimeout, fmt.Errorf("tests/test.sh did not finish within %s", t.task.VerifierTimeout)
	case err != nil:
		return 0, FailureUnknownHarnessError, fmt.Errorf("tests/test.sh: %w", err)
	}
	reward, found, err := readReward(logs)
	if err != nil {
		return 0, FailureParseError, err
	}
	if !found {
		if res.ExitCode == 0 {
			return 1, FailureNone, nil
		}
		return 0, FailureNone, nil
	}
	return reward, FailureNone, nil
}

// readReward reads the reward the verifier wrote, if it wrote one.
func readReward(logs string) (reward float64, found bool, err error) {
	root, err := os.OpenRoot(logs)
	if err != nil {
		return 0, false, err
	}
	defer root.Close()
	read := func(name string) ([]byte, error) {
		f, err := root.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a file", name)
		}
		b, err := io.ReadAll(io.LimitReader(f, maxRewardFile+1))
		if err == nil && len(b) > maxRewardFile {
			err = fmt.Errorf("%s is over %d bytes", name, maxRewardFile)
		}
		return b, err
	}
	if b, err := read("reward.txt"); err == nil {
		v, perr := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, true, fmt.Errorf("the verifier's reward.txt is not a number: %q", agent.Truncate(string(b), 80))
		}
		return v, true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, true, fmt.Errorf("the verifier's reward.txt: %w", err)
	}
	b, err := read("reward.json")
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, true, fmt.Errorf("the verifier's reward.json: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, true, fmt.Errorf("the verifier's reward.json is not a JSON object: %w", err)
	}
	v, ok := m["reward"].(float64)
	if !ok {
		return 0, true, fmt.Errorf(`the verifier's reward.json has no number "reward"`)
	}
	return v, true, nil
}

// capped writes at most n bytes to w and drops the rest, so a verifier
// or solution that floods its output costs a bounded file.
type capped struct {
	w io.Writer
	n int64
}

func (c *capped) Write(p []byte) (int, error) {
	if c.n <= 0 {
		return len(p), nil
	}
	q := p
	if int64(len(q)) > c.n {
		q = q[:c.n]
	}
	_, err := c.w.Write(q)
	c.n -= int64(len(q))
	return len(p), err
}
