package native

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A pidsCgroup bounds the processes of one run: the kernel refuses a fork
// past pids.max, for root as for anyone (RLIMIT_NPROC, counted per user,
// does not bind root). skillrun makes one beside its own cgroup when it
// may (root, or a delegated cgroup v2 with the pids controller), and
// removes it after the run.
type pidsCgroup struct{ dir string }

var cgroupSeq atomic.Int64

// newPidsCgroup makes a pids cgroup of at most max processes, or says why
// it cannot.
func newPidsCgroup(max int) (*pidsCgroup, error) {
	bases := cachedPidsBases()
	if len(bases) == 0 {
		return nil, errors.New("no pids cgroup controller is mounted")
	}
	var errs []error
	for _, base := range bases {
		dir := filepath.Join(base, fmt.Sprintf("skillrun-native-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
			_ = os.Remove(dir)
			errs = append(errs, err)
			continue
		}
		return &pidsCgroup{dir: dir}, nil
	}
	return nil, errors.Join(errs...)
}

func (c *pidsCgroup) add(pid int) error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// killAll kills every process of the cgroup, again until none is left
// (a fork may race a round), for at most a second.
func (c *pidsCgroup) killAll() {
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return // cgroup v2 kills them all at once
	}
	for range 100 {
		data, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// remove kills what is left and removes the cgroup, which the kernel
// refuses while a process is in it.
func (c *pidsCgroup) remove() {
	c.killAll()
	for range 100 {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cachedPidsBases is pidsBases, read once per process: the cgroups a
// process is in do not change under it.
var cachedPidsBases = sync.OnceValue(pidsBases)

// pidsBases are the cgroups skillrun is in that have the pids controller:
// its cgroup v2 (when pids is enabled for its children) and its cgroup v1
// pids hierarchy.
func pidsBases() []string {
	mine := map[string]string{} // "" for v2, else the v1 controllers → path
	if f, err := os.Open("/proc/self/cgroup"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) == 3 {
				mine[parts[1]] = parts[2]
			}
		}
		_ = f.Close()
	}
	var out []string
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 {
			continue
		}
		mount := fields[4]
		switch tail[0] {
		case "cgroup2":
			path, ok := mine[""]
			if !ok {
				continue
			}
			base := filepath.Join(mount, path)
			if ctl, err := os.ReadFile(filepath.Join(base, "cgroup.subtree_control")); err == nil &&
				slices.Contains(strings.Fields(string(ctl)), "pids") {
				out = append(out, base)
			}
		case "cgroup":
			if !slices.Contains(strings.Split(tail[2], ","), "pids") {
				continue
			}
			for ctls, path := range mine {
				if slices.Contains(strings.Split(ctls, ","), "pids") {
					out = append(out, filepath.Join(mount, path))
				}
			}
		}
	}
	return out
}
