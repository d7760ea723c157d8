package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoad runs 1,000 sandboxed runs (100 with -short) through one
// Runtime, 32 at a time, mixed the way a busy MCP server or session sees
// them: good runs, runs exiting with a code of their own, traps, busy
// loops and sleeps past a 200ms timeout, memory bombs and output floods.
// Four kinds in nine run the hostile Go guest, the rest small hand-made
// modules, which keeps the whole under a minute with -race on two cores.
// It checks that every run got its own outcome, and that afterwards the
// process is back where it started: heap in use (after GC), open file
// descriptors and goroutines (issue 11, "Load"). Counts are asserted,
// never times.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 1,000 runs, 32 at a time (1.5 s at a tenth of that); the full suite runs it")
	}
	total := 1000
	const parallel = 32
	ctx := context.Background()
	r, hostile := ownRuntime(t, Options{})
	trap, err := r.Compile(ctx, modUnreachable())
	require.NoError(t, err)
	spin, err := r.Compile(ctx, modLoop())
	require.NoError(t, err)
	hello, err := r.Compile(ctx, modHello())
	require.NoError(t, err)
	exit7, err := r.Compile(ctx, modExit(7))
	require.NoError(t, err)
	grow, err := r.Compile(ctx, modMemory(1, true, 16))
	require.NoError(t, err)

	type kind struct {
		name  string
		check func(id string) error // runs one and checks its outcome
	}
	run := func(m *CompiledModule, cfg *RunConfig) (*Result, string, error) {
		var out strings.Builder
		cfg.Stdout, cfg.Stderr = &out, &out
		res, err := m.Run(ctx, cfg)
		return res, out.String(), err
	}
	kinds := []kind{
		{"good", func(id string) error {
			res, out, err := run(hostile, &RunConfig{Name: id, Args: []string{"echo", id}, Stdin: strings.NewReader(id + "\n")})
			if want := fmt.Sprintf("arg: %q\n%s\n", id, id); err != nil || res.ExitCode != 0 || out != want {
				return fmt.Errorf("exit %v, err %w, output %q; want 0 and %q", res, err, out, want)
			}
			return nil
		}},
		{"hello", func(id string) error {
			res, out, err := run(hello, &RunConfig{Name: id})
			if err != nil || res.ExitCode != 0 || out != "hello, world\n" {
				return fmt.Errorf("exit %v, err %w, output %q; want 0 and hello, world", res, err, out)
			}
			return nil
		}},
		{"exit code", func(id string) error {
			res, _, err := run(exit7, &RunConfig{Name: id})
			if err != nil || res == nil || res.ExitCode != 7 {
				return fmt.Errorf("exit %v, err %w; want exit code 7", res, err)
			}
			return nil
		}},
		{"raw memory bomb", func(id string) error {
			_, _, err := run(grow, &RunConfig{Name: id, Memory: 8 << 20})
			if !errors.Is(err, ErrMemoryLimit) {
				return fmt.Errorf("err %w; want ErrMemoryLimit", err)
			}
			return nil
		}},
		{"trap", func(id string) error {
			_, _, err := run(trap, &RunConfig{Name: id})
			if !errors.Is(err, ErrTrap) || !strings.Contains(err.Error(), id+": trap") {
				return fmt.Errorf("err %w; want ErrTrap naming the run", err)
			}
			return nil
		}},
		{"busy loop past its timeout", func(id string) error {
			_, _, err := run(spin, &RunConfig{Name: id, Timeout: 200 * time.Millisecond})
			if !errors.Is(err, ErrTimeout) {
				return fmt.Errorf("err %w; want ErrTimeout", err)
			}
			return nil
		}},
		{"memory bomb", func(id string) error {
			_, _, err := run(hostile, &RunConfig{Name: id, Args: []string{"membomb"}, Memory: 16 << 20})
			if !errors.Is(err, ErrMemoryLimit) {
				return fmt.Errorf("err %w; want ErrMemoryLimit", err)
			}
			return nil
		}},
		{"output flood", func(id string) error {
			res, out, err := run(hostile, &RunConfig{Name: id, Args: []string{"flood", "1000000"}, Output: 4096})
			if !errors.Is(err, ErrOutputLimit) || len(out) != 4096 || res.OutputBytes != 4096 {
				return fmt.Errorf("err %w, %d bytes kept; want ErrOutputLimit and 4096 bytes", err, len(out))
			}
			return nil
		}},
		{"guest sleeping past its timeout", func(id string) error {
			_, _, err := run(hostile, &RunConfig{Name: id, Args: []string{"sleep", "1m"}, Timeout: 200 * time.Millisecond})
			if !errors.Is(err, ErrTimeout) {
				return fmt.Errorf("err %w; want ErrTimeout", err)
			}
			return nil
		}},
	}

	// Warm up: one run of each kind, so that what is made once per
	// process or Runtime (pools, the compiled code, wazero's signal
	// handling) is there before the baseline is taken.
	for _, k := range kinds {
		require.NoError(t, k.check("warmup"), "warm-up %s", k.name)
	}
	before := loadSnapshot(t, r)

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		done     = map[string]int{}
		spent    = map[string]time.Duration{} // logged, never asserted
	)
	sem := make(chan struct{}, parallel)
	for i := range total {
		k := kinds[i%len(kinds)]
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			id := fmt.Sprintf("run-%d", i)
			start := time.Now()
			err := k.check(id)
			mu.Lock()
			defer mu.Unlock()
			done[k.name]++
			spent[k.name] += time.Since(start)
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s (%s): %v", id, k.name, err))
			}
		})
	}
	wg.Wait()
	for _, f := range failures[:min(len(failures), 20)] {
		assert.Fail(t, "a run got the wrong outcome", f)
	}
	require.Zero(t, len(failures), "%d of %d runs got the wrong outcome", len(failures), total)
	t.Logf("wall time by kind, %d at a time: %v", parallel, spent)
	want := map[string]int{}
	for i := range total {
		want[kinds[i%len(kinds)].name]++
	}
	require.Equal(t, want, done, "runs checked by kind")

	// Back to the start, allowing for what settles late: goroutines that
	// are still returning, idle pool memory the GC frees on its next cycle.
	var after loadState
	for try := 0; ; try++ {
		after = loadSnapshot(t, r)
		if after.within(before) == nil || try == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d runs: heap %d -> %d KiB, fds %d -> %d, goroutines %d -> %d",
		total, before.heap>>10, after.heap>>10, before.fds, after.fds, before.goroutines, after.goroutines)
	assert.NoError(t, after.within(before))
}

// loadState is what TestLoad compares before and after.
type loadState struct {
	// heap is HeapAlloc after a GC, less what r's memory pool keeps: the
	// pool holds up to poolMaxBytes of ended runs' memories by design,
	// and which ones depends on which of 32 parallel runs ended last.
	heap       uint64
	fds        int // open file descriptors, or -1 where they cannot be counted
	goroutines int
}

func loadSnapshot(t *testing.T, r *Runtime) loadState {
	t.Helper()
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	r.memPool.mu.Lock()
	pooled := r.memPool.bytes
	r.memPool.mu.Unlock()
	s := loadState{heap: ms.HeapAlloc - min(pooled, ms.HeapAlloc), fds: -1, goroutines: goruntime.NumGoroutine()}
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.fds = len(entries)
	}
	return s
}

// within reports how s is above base by more than the slack: 64 MiB of
// heap (a run's guest memory is up to 32 MiB and 32 run at once, so a
// leak of even one run in ten would pass that), 4 descriptors, 4
// goroutines.
func (s loadState) within(base loadState) error {
	var errs []error
	if s.heap > base.heap+64<<20 {
		errs = append(errs, fmt.Errorf("heap in use grew from %d MiB to %d MiB", base.heap>>20, s.heap>>20))
	}
	if base.fds >= 0 && s.fds > base.fds+4 {
		errs = append(errs, fmt.Errorf("open file descriptors grew from %d to %d", base.fds, s.fds))
	}
	if s.goroutines > base.goroutines+4 {
		errs = append(errs, fmt.Errorf("goroutines grew from %d to %d", base.goroutines, s.goroutines))
	}
	return errors.Join(errs...)
}
