package admission

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// admitAsync starts Admit in a goroutine and returns where its outcome
// arrives; synctest.Wait then lets it block in the queue.
func admitAsync(ctx context.Context, c *Controller, memory int64) <-chan admitted {
	ch := make(chan admitted, 1)
	go func() {
		_, release, err := c.Admit(ctx, memory)
		ch <- admitted{release, err}
	}()
	return ch
}

type admitted struct {
	release func()
	err     error
}

// TestAdmitFIFO: runs waiting for a slot are admitted in the order they
// came, and a small run does not overtake a large one waiting ahead of
// it even when it would fit.
func TestAdmitFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(Limits{Runs: 1, Memory: 1 << 30, Wait: time.Hour})
		_, first, err := c.Admit(t.Context(), 1)
		require.NoError(t, err)
		var waiting []<-chan admitted
		for range 4 {
			waiting = append(waiting, admitAsync(t.Context(), c, 1))
			synctest.Wait() // queued before the next starts
		}
		release := first
		for i, ch := range waiting {
			for j, other := range waiting[i:] {
				select {
				case <-other:
					require.FailNow(t, "a waiter was admitted before its turn", "waiter %d", i+j)
				default:
				}
			}
			release()
			synctest.Wait()
			a := <-ch
			require.NoError(t, a.err, "waiter %d", i)
			release = a.release
		}
		release()
		runs, mem := c.InUse()
		assert.Equal(t, 0, runs)
		assert.Equal(t, int64(0), mem)
	})

	synctest.Test(t, func(t *testing.T) {
		c := New(Limits{Runs: 10, Memory: 100, Wait: time.Hour})
		_, hold, err := c.Admit(t.Context(), 60)
		require.NoError(t, err)
		big := admitAsync(t.Context(), c, 50) // does not fit beside 60
		synctest.Wait()
		small := admitAsync(t.Context(), c, 10) // would fit, but comes later
		synctest.Wait()
		select {
		case <-small:
			require.FailNow(t, "a later run overtook one waiting ahead of it")
		default:
		}
		hold()
		synctest.Wait()
		b, s := <-big, <-small
		require.NoError(t, b.err)
		require.NoError(t, s.err)
		runs, mem := c.InUse()
		assert.Equal(t, 2, runs)
		assert.Equal(t, int64(60), mem)
		b.release()
		s.release()
	})
}

// TestAdmitWaitBound: a run that waits past Limits.Wait fails with a
// BusyError that names the flags and what is in use, and leaves the
// queue.
func TestAdmitWaitBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(Limits{Runs: 2, Memory: 1 << 30, Wait: 5 * time.Second})
		for range 2 {
			_, _, err := c.Admit(t.Context(), 64<<20)
			require.NoError(t, err)
		}
		start := time.Now()
		_, release, err := c.Admit(t.Context(), 256<<20)
		assert.Nil(t, release)
		require.ErrorIs(t, err, ErrBusy)
		assert.Equal(t, 5*time.Second, time.Since(start))
		be, ok := errors.AsType[*BusyError](err)
		require.True(t, ok)
		assert.Equal(t, &BusyError{Waited: 5 * time.Second, Runs: 2, MaxRuns: 2, Memory: 128 << 20, MaxMemory: 1 << 30, Need: 256 << 20}, be)
		assert.Equal(t, "too many runs in flight: waited 5s for a turn; 2 of 2 runs in flight (--max-runs), 128MiB of 1GiB memory reserved (--max-run-memory), this run needs 256MiB, 0 more waiting; raise --max-runs or --max-run-memory, or call again when fewer runs are in flight", err.Error())
		c.mu.Lock()
		assert.Empty(t, c.queue)
		c.mu.Unlock()
	})
}

// TestAdmitCancel: a waiting run whose context ends returns its error at
// once and gives up its place; the run behind it moves up.
func TestAdmitCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(Limits{Runs: 1, Memory: 100, Wait: time.Hour})
		_, hold, err := c.Admit(t.Context(), 60)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		head := admitAsync(ctx, c, 80)
		synctest.Wait()
		next := admitAsync(t.Context(), c, 10)
		synctest.Wait()
		cancel()
		synctest.Wait()
		h := <-head
		require.ErrorIs(t, h.err, context.Canceled)
		assert.Contains(t, h.err.Error(), "waiting for a turn to run")
		select {
		case <-next:
			require.FailNow(t, "admitted past the run bound")
		default:
		}
		hold()
		synctest.Wait()
		n := <-next
		require.NoError(t, n.err)
		runs, mem := c.InUse()
		assert.Equal(t, 1, runs)
		assert.Equal(t, int64(10), mem)
		n.release()
	})
}

// TestAdmitTooLarge: a run whose memory limit is over the whole bound is
// refused at once, never queued, with the flag to raise.
func TestAdmitTooLarge(t *testing.T) {
	c := New(Limits{Runs: 4, Memory: 1 << 30, Wait: time.Hour})
	start := time.Now()
	_, _, err := c.Admit(context.Background(), 2<<30)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Less(t, time.Since(start), time.Second)
	assert.Contains(t, err.Error(), "this run's memory limit 2GiB is more than all runs together may reserve (--max-run-memory 1GiB); raise --max-run-memory")
	runs, _ := c.InUse()
	assert.Equal(t, 0, runs)
}

// TestAdmitNested: a run started by an admitted run (its context) spends
// the caller's reservation, even when the controller is full; another
// controller's mark does not count.
func TestAdmitNested(t *testing.T) {
	c := New(Limits{Runs: 1, Memory: 100, Wait: time.Millisecond})
	ctx, release, err := c.Admit(context.Background(), 100)
	require.NoError(t, err)
	nctx, nrelease, err := c.Admit(ctx, 100)
	require.NoError(t, err)
	nrelease()
	runs, mem := c.InUse()
	assert.Equal(t, 1, runs)
	assert.Equal(t, int64(100), mem)
	assert.Equal(t, ctx, nctx)

	other := New(Limits{Runs: 1, Memory: 100, Wait: time.Millisecond})
	octx, orelease, err := other.Admit(context.Background(), 1)
	require.NoError(t, err)
	_, _, err = c.Admit(octx, 1)
	require.ErrorIs(t, err, ErrBusy, "another controller's reservation is not this one's")
	orelease()

	release()
	release() // idempotent
	runs, mem = c.InUse()
	assert.Equal(t, 0, runs)
	assert.Equal(t, int64(0), mem)
}

// TestAdmitHammer: many runs at once never exceed either bound, and all
// get their turn.
func TestAdmitHammer(t *testing.T) {
	c := New(Limits{Runs: 3, Memory: 1000, Wait: time.Minute})
	var inFlight, mem, peakRuns, peakMem atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			need := int64(100 + 100*(i%5))
			_, release, err := c.Admit(context.Background(), need)
			if !assert.NoError(t, err) {
				return
			}
			r, m := inFlight.Add(1), mem.Add(need)
			for p := peakRuns.Load(); r > p && !peakRuns.CompareAndSwap(p, r); p = peakRuns.Load() {
			}
			for p := peakMem.Load(); m > p && !peakMem.CompareAndSwap(p, m); p = peakMem.Load() {
			}
			time.Sleep(time.Millisecond)
			inFlight.Add(-1)
			mem.Add(-need)
			release()
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, peakRuns.Load(), int64(3))
	assert.LessOrEqual(t, peakMem.Load(), int64(1000))
	runs, m := c.InUse()
	assert.Equal(t, 0, runs)
	assert.Equal(t, int64(0), m)
}

// TestDefaults: zero limits are the machine's.
func TestDefaults(t *testing.T) {
	l := New(Limits{}).Limits()
	assert.Equal(t, DefaultRuns(), l.Runs)
	assert.GreaterOrEqual(t, l.Runs, 4)
	assert.Equal(t, DefaultMemory(), l.Memory)
	assert.Positive(t, l.Memory)
	assert.Equal(t, DefaultWait, l.Wait)
	if total := physicalMemory(); total > 0 {
		assert.Equal(t, total/2, l.Memory)
	}
}

func TestParseMemTotal(t *testing.T) {
	for in, want := range map[string]int64{
		"MemTotal:       24683620 kB\nMemFree: 1 kB\n": 24683620 << 10,
		"MemFree: 1 kB\nMemTotal: 1024 kB\n":           1 << 20,
		"MemTotal: 1024 MB\n":                          0,
		"MemTotal: -5 kB\n":                            0,
		"MemTotal: 99999999999999999999 kB\n":          0,
		"":                                             0,
	} {
		assert.Equal(t, want, parseMemTotal(bufio.NewScanner(strings.NewReader(in))), "%q", in)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0B", 1536: "1536B", 2048: "2KiB", 64 << 20: "64MiB", 1 << 30: "1GiB",
		12637978624: "11.8GiB", 3<<30 + 1<<29: "3.5GiB",
	} {
		assert.Equal(t, want, FormatBytes(n), "%d", n)
	}
}
