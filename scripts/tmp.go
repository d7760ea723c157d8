package scripts

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/sandbox"
)

// tmpGuestPath is where a run finds its private scratch folder.
const tmpGuestPath = "/tmp"

// privateTmp makes a run's /tmp: a new folder under the host's temporary
// folder, readable by this process only, mounted writable at /tmp with a
// write limit, and removed when the run ends (call the returned func).
// Published scripts use tempfile and mktemp; no grant is needed for it,
// since no one else's files are there, and it is bounded like the run's
// memory (what a tmpfs would take): the effective memory limit, or the
// sandbox's default. The limit is one [sandbox.Quota] for the run and
// every run it starts with exec, which mount the same folder, and for the
// files their captured output goes to (exec.go): a script starting
// children one after another cannot fill the disk.
func privateTmp(eff capabilities.Set) (sandbox.Mount, func(), error) {
	dir, err := os.MkdirTemp("", "skillrun-tmp-")
	if err != nil {
		return sandbox.Mount{}, nil, fmt.Errorf("the run's /tmp: %w", err)
	}
	limit := int64(eff.Memory)
	if limit <= 0 {
		limit = int64(sandbox.DefaultMemory)
	}
	return sandbox.Mount{HostDir: dir, GuestPath: tmpGuestPath, Writable: true, Quota: sandbox.NewQuota(limit)},
		func() { _ = os.RemoveAll(dir) }, nil
}

// withTmp adds a private /tmp to mounts and TMPDIR to env (see
// privateTmp). The returned func removes it.
func withTmp(mounts []sandbox.Mount, env []string, eff capabilities.Set) ([]sandbox.Mount, []string, func(), error) {
	tmp, done, err := privateTmp(eff)
	if err != nil {
		return nil, nil, nil, err
	}
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) // the host's means nothing inside
	return append(mounts, tmp), append(env, "TMPDIR="+tmpGuestPath), done, nil
}
