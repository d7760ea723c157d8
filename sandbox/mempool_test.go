package sandbox

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// waitPooled waits until p keeps n memories (put zeroes them in the
// background).
func waitPooled(t *testing.T, p *memPool, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.free) == n
	}, 10*time.Second, time.Millisecond)
}

// TestMemPoolZeroes: a memory a run wrote goes back to the pool only when
// its run has ended, and the next run gets it zeroed: nothing one run
// left in memory reaches the next (the attack: a script that reads what
// the previous one, another skill's, left in its memory).
func TestMemPoolZeroes(t *testing.T) {
	pool := &memPool{max: 1 << 30}
	first := &memoryLimit{limit: 1 << 30, pool: pool}
	lm := first.Allocate(1<<20, 1<<30).(*linearMemory)
	buf := lm.Reallocate(64 << 10)
	copy(buf[1000:], "secret of the first run")
	buf = lm.Reallocate(1 << 20) // grows within its capacity
	copy(buf[900<<10:], "another secret")
	lm.Free()
	assert.Empty(t, pool.free, "not pooled while the run may still be running")
	first.recycle()
	waitPooled(t, pool, 1)

	second := &memoryLimit{limit: 1 << 30, pool: pool}
	lm2 := second.Allocate(1<<20, 1<<30).(*linearMemory)
	got := lm2.Reallocate(1 << 20)
	assert.Same(t, &buf[0], &got[0], "the same memory, reused")
	assert.Len(t, got, 1<<20)
	assert.True(t, bytes.Equal(got, make([]byte, 1<<20)), "zeroed")
	assert.Empty(t, pool.free)
	copy(got[500<<10:], "the second run's")
	lm2.Free()
	second.recycle()
	waitPooled(t, pool, 1)

	// A run that asks for less gets the larger memory with its capacity
	// cut to what it asked (what counts against its limit), and grows into
	// the rest without a copy.
	third := &memoryLimit{limit: 1 << 30, pool: pool}
	lm3 := third.Allocate(512<<10, 1<<30).(*linearMemory)
	small := lm3.Reallocate(4096)
	assert.Same(t, &buf[0], &small[0])
	assert.Equal(t, 512<<10, cap(small))
	assert.Equal(t, uint64(512<<10), third.held.Load())
	grown := lm3.Reallocate(1 << 20)
	assert.Same(t, &buf[0], &grown[0], "grown in place")
	assert.Equal(t, uint64(1<<20), third.held.Load())
	assert.True(t, bytes.Equal(grown, make([]byte, 1<<20)), "zeroed")
}

// TestMemPoolBounds: the pool keeps at most poolMaxBuffers memories and
// max bytes, the oldest dropped first; a memory over max is never kept;
// a request it cannot meet gets nothing.
func TestMemPoolBounds(t *testing.T) {
	pool := &memPool{max: 10 << 20}
	pool.put(make([]byte, 1, 11<<20)) // over max: dropped at once
	for i := range poolMaxBuffers + 2 {
		size := (i + 1) << 20
		pool.put(make([]byte, 1, size))
		require.Eventually(t, func() bool {
			pool.mu.Lock()
			defer pool.mu.Unlock()
			return len(pool.free) > 0 && cap(pool.free[len(pool.free)-1]) == size
		}, 10*time.Second, time.Millisecond)
		pool.mu.Lock()
		assert.LessOrEqual(t, pool.bytes, pool.max)
		assert.LessOrEqual(t, len(pool.free), poolMaxBuffers)
		pool.mu.Unlock()
	}
	pool.mu.Lock()
	assert.Len(t, pool.free, 1, "6 MiB: the older ones went first to make room")
	pool.mu.Unlock()
	assert.Nil(t, pool.get(1, 7<<20))
	b := pool.get(10, 4<<20)
	require.NotNil(t, b)
	assert.Len(t, b, 10)
	assert.Equal(t, 6<<20, cap(b))
}

// TestRunsReuseMemory: consecutive runs of a Go guest reuse the memory of
// the run before, and print the same as a first run.
func TestRunsReuseMemory(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true})
	require.NoError(t, err)
	defer r.Close(ctx)
	m, err := r.Compile(ctx, testkit.Wasm(t, "fib"))
	require.NoError(t, err)
	var outs []string
	for i := range 3 {
		var out bytes.Buffer
		res, err := m.Run(ctx, &RunConfig{Name: "fib", Args: []string{"12"}, Stdout: &out})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode)
		outs = append(outs, out.String())
		if i == 0 {
			waitPooled(t, &r.memPool, 1)
		}
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Equal(t, outs[0], outs[2])
}

// TestMemoryLeftoversAttack runs the attack as a hostile skill would:
// one run fills 32 MiB of fresh memory with a secret and exits; the next
// run of the same module (another skill's script, say) takes 32 MiB of
// fresh memory, which Go's runtime trusts to be zero as memory.grow gives
// it, and counts the bytes that are not. The pool hands the first run's
// memory to the second: it must be zero.
func TestMemoryLeftoversAttack(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true})
	require.NoError(t, err)
	defer r.Close(ctx)
	m, err := r.Compile(ctx, testkit.Wasm(t, "hostile"))
	require.NoError(t, err)
	run := func(args ...string) string {
		var out bytes.Buffer
		res, err := m.Run(ctx, &RunConfig{Name: "hostile", Args: args, Stdout: &out, Memory: 256 << 20})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode)
		return out.String()
	}
	assert.Equal(t, "planted 32 MiB\n", run("plant", "32"))
	waitPooled(t, &r.memPool, 1)
	assert.Equal(t, "nonzero 0 in 32 MiB\n", run("snoop", "32"), "a run saw what the run before it left in memory")
}
