package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// snapGuest builds testdata/csnap/snap.c as a WASI reactor; exportSP
// exports __stack_pointer, without which it cannot be snapshotted.
func snapGuest(tb testing.TB, exportSP bool) []byte {
	tb.Helper()
	testkit.NeedTool(tb, "clang")
	out := filepath.Join(tb.TempDir(), "snap.wasm")
	args := []string{"--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-mexec-model=reactor", "-o", out,
		filepath.Join(testkit.Dir("csnap"), "snap.c")}
	if exportSP {
		args = append(args, "-Wl,--export=__stack_pointer")
	}
	msg, err := exec.Command("clang", args...).CombinedOutput()
	require.NoError(tb, err, "clang %v:\n%s", args, msg)
	wasm, err := os.ReadFile(out)
	require.NoError(tb, err)
	return wasm
}

// snapFixture is a compiled snapshot guest, its init's data folder and a
// folder runs mount of their own.
type snapFixture struct {
	m           *CompiledModule
	data, extra string
}

func newSnapFixture(t *testing.T, e *testEnv) *snapFixture {
	t.Helper()
	m, err := e.r.Compile(context.Background(), snapGuest(t, true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	f := &snapFixture{m: m, data: t.TempDir(), extra: t.TempDir()}
	require.NoError(t, os.WriteFile(filepath.Join(f.data, "seed.txt"), []byte("from-init\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(f.extra, "x.txt"), []byte("run's own\n"), 0o644))
	return f
}

func (f *snapFixture) snapshot(t *testing.T) *Snapshot {
	t.Helper()
	var out bytes.Buffer
	s, err := f.m.Snapshot(context.Background(), &SnapshotConfig{Init: "snap_init", Entry: "snap_run",
		Config: RunConfig{Mounts: []Mount{{HostDir: f.data, GuestPath: "/data"}}, Stdout: &out}})
	require.NoError(t, err)
	assert.Equal(t, "init done\n", out.String())
	assert.Equal(t, []string{"/data"}, s.Mounts())
	return s
}

func (f *snapFixture) run(s *Snapshot, env []string, args ...string) (string, *Result, error) {
	var out bytes.Buffer
	res, err := s.Run(context.Background(), &RunConfig{Name: "snap", Args: args, Env: env, Stdout: &out, Stderr: &out,
		Mounts: []Mount{{HostDir: f.data, GuestPath: "/data"}, {HostDir: f.extra, GuestPath: "/extra"}}})
	return out.String(), res, err
}

// TestSnapshotRuns: every run starts where the init left off (its cached
// file, its counter, its heap) with its own arguments, environment and
// mounts, and nothing a run does reaches the next.
func TestSnapshotRuns(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		f := newSnapFixture(t, e)
		s := f.snapshot(t)

		out, res, err := f.run(s, []string{"RUN=first"}, "read", "/extra/x.txt")
		require.NoError(t, err)
		assert.Equal(t, "counter=42 seed=from-init\nargs=read,/extra/x.txt\nRUN=first\nread=run's own\n", out)
		assert.Zero(t, res.ExitCode)
		assert.GreaterOrEqual(t, res.PeakMemory, uint64(1<<20), "the snapshot's heap counts")

		// A run that changes the counter and leaves 8 MiB of heap behind.
		out, res, err = f.run(s, nil, "grow")
		require.NoError(t, err)
		assert.Contains(t, out, "counter=42 ")
		assert.Equal(t, uint32(5), res.ExitCode, "the entry's result is the exit code")

		out, res, err = f.run(s, []string{"RUN=third"})
		require.NoError(t, err)
		assert.Equal(t, "counter=42 seed=from-init\nargs=\nRUN=third\n", out, "nothing of the last run is left")
		assert.Zero(t, res.ExitCode)
		assert.Less(t, res.PeakMemory, uint64(8<<20), "the last run's heap is gone")

		_, res, err = f.run(s, nil, "exit7")
		require.NoError(t, err)
		assert.Equal(t, uint32(7), res.ExitCode, "proc_exit gives the exit code")
	})
}

// TestSnapshotConcurrentRuns: runs of one snapshot overlap freely (-race).
func TestSnapshotConcurrentRuns(t *testing.T) {
	f := newSnapFixture(t, sharedEnv(t, false))
	s := f.snapshot(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			run := string(rune('a' + i))
			out, _, err := f.run(s, []string{"RUN=" + run})
			if err == nil && !strings.Contains(out, "counter=42 ") || !strings.Contains(out, "RUN="+run+"\n") {
				err = errors.Join(err, errors.New("run "+run+": "+out))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// TestSnapshotLimits: a snapshot's runs keep every limit: a memory limit
// below the snapshot's size, and the timeout of a busy entry.
func TestSnapshotLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out a busy entry's timeout (1.2 s); the full suite runs it")
	}
	f := newSnapFixture(t, sharedEnv(t, false))
	s := f.snapshot(t)
	var out bytes.Buffer
	mounts := []Mount{{HostDir: f.data, GuestPath: "/data"}}
	_, err := s.Run(context.Background(), &RunConfig{Mounts: mounts, Memory: uint64(s.pages-1) * pageSize, Stdout: &out})
	assert.ErrorIs(t, err, ErrMemoryLimit)
	assert.Empty(t, out.String(), "the entry never ran")

	start := time.Now()
	_, err = s.Run(context.Background(), &RunConfig{Mounts: mounts, Args: []string{"spin"}, Timeout: 200 * time.Millisecond})
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestSnapshotRefusals: what cannot be snapshotted, or run from one, is
// an error that says why.
func TestSnapshotRefusals(t *testing.T) {
	e := sharedEnv(t, false)
	ctx := context.Background()
	f := newSnapFixture(t, e)
	mounts := []Mount{{HostDir: f.data, GuestPath: "/data"}}

	noSP, err := e.r.Compile(ctx, snapGuest(t, false))
	require.NoError(t, err)
	defer noSP.Close(ctx)
	_, err = noSP.Snapshot(ctx, &SnapshotConfig{Init: "snap_init", Entry: "snap_run", Config: RunConfig{Mounts: mounts}})
	assert.ErrorContains(t, err, "mutable global 0 is not exported")

	for _, c := range []struct {
		name string
		sc   SnapshotConfig
		want string
	}{
		{"no such init", SnapshotConfig{Init: "nope", Entry: "snap_run"}, `exports no function "nope"`},
		{"wrong type", SnapshotConfig{Init: "_initialize", Entry: "snap_run"}, `"_initialize" must be () -> i32`},
		{"init fails", SnapshotConfig{Init: "snap_init", Entry: "snap_run", Config: RunConfig{Mounts: mounts, Env: []string{"FAIL_INIT=1"}}}, "snap_init returned 3"},
		{"init cannot read", SnapshotConfig{Init: "snap_init", Entry: "snap_run"}, "snap_init returned 1"},
		{"root mount", SnapshotConfig{Init: "snap_init", Entry: "snap_run", Config: RunConfig{Mounts: []Mount{{HostDir: f.data, GuestPath: "/"}}}}, "mount at /"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.m.Snapshot(ctx, &c.sc)
			assert.ErrorContains(t, err, c.want)
		})
	}

	s := f.snapshot(t)
	_, err = s.Run(ctx, &RunConfig{Mounts: []Mount{{HostDir: f.extra, GuestPath: "/extra"}}})
	assert.ErrorContains(t, err, "must mount [/data] first")
	_, err = s.Run(ctx, &RunConfig{Mounts: append(mounts, Mount{HostDir: f.extra, GuestPath: "/"})})
	assert.ErrorContains(t, err, "cannot mount /")
}

// TestSnapshotReadWrite: a snapshot written and read back starts runs as
// the original does; a damaged, truncated or foreign file is refused.
func TestSnapshotReadWrite(t *testing.T) {
	f := newSnapFixture(t, sharedEnv(t, false))
	s := f.snapshot(t)
	var buf bytes.Buffer
	n, err := s.WriteTo(&buf)
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)

	back, err := f.m.ReadSnapshot(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	out, _, err := f.run(back, []string{"RUN=back"})
	require.NoError(t, err)
	assert.Equal(t, "counter=42 seed=from-init\nargs=\nRUN=back\n", out)

	damaged := bytes.Clone(buf.Bytes())
	damaged[len(damaged)/2] ^= 1
	_, err = f.m.ReadSnapshot(bytes.NewReader(damaged))
	assert.ErrorContains(t, err, "checksum does not match")
	_, err = f.m.ReadSnapshot(bytes.NewReader(buf.Bytes()[:buf.Len()-40]))
	assert.Error(t, err)
	_, err = f.m.ReadSnapshot(strings.NewReader("\x00asm\x01\x00\x00\x00"))
	assert.ErrorContains(t, err, "not a skillrun snapshot")

	// A header that claims 4 GiB of memory, and a few bytes of it: an
	// error, without allocating 4 GiB first.
	hdr := `{"entry":"snap_run","mounts":["/data"],"pages":65536,"memory":4294967296,"globals":[{"name":"__stack_pointer","value":1}]}`
	claim := snapshotMagic + string([]byte{0, 0, byte(len(hdr) >> 8), byte(len(hdr))}) + hdr + "only this"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = f.m.ReadSnapshot(strings.NewReader(claim))
	runtime.ReadMemStats(&after)
	assert.ErrorContains(t, err, "snapshot memory")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(128<<20))
}

// TestSnapshotOnce: one snapshot per key, made once however many ask.
func TestSnapshotOnce(t *testing.T) {
	f := newSnapFixture(t, sharedEnv(t, false))
	var made int
	var mu sync.Mutex
	mk := func(ctx context.Context) (*Snapshot, error) {
		mu.Lock()
		made++
		mu.Unlock()
		return f.m.Snapshot(ctx, &SnapshotConfig{Init: "snap_init", Entry: "snap_run",
			Config: RunConfig{Mounts: []Mount{{HostDir: f.data, GuestPath: "/data"}}}})
	}
	var wg sync.WaitGroup
	got := make([]*Snapshot, 4)
	for i := range got {
		wg.Go(func() {
			s, err := f.m.SnapshotOnce(context.Background(), "k", mk)
			assert.NoError(t, err)
			got[i] = s
		})
	}
	wg.Wait()
	assert.Equal(t, 1, made)
	for _, s := range got {
		assert.Same(t, got[0], s)
	}
}

// FuzzReadSnapshot: ReadSnapshot reads any bytes without panicking or
// allocating past what the bytes hold (beyond the bounded header), and
// whatever it accepts round-trips.
func FuzzReadSnapshot(f *testing.F) {
	e := sharedEnv(f, false)
	m, err := e.r.Compile(context.Background(), snapGuest(f, true))
	require.NoError(f, err)
	data := f.TempDir()
	require.NoError(f, os.WriteFile(filepath.Join(data, "seed.txt"), []byte("x\n"), 0o644))
	s, err := m.Snapshot(context.Background(), &SnapshotConfig{Init: "snap_init", Entry: "snap_run",
		Config: RunConfig{Mounts: []Mount{{HostDir: data, GuestPath: "/data"}}}})
	require.NoError(f, err)
	var buf bytes.Buffer
	_, err = s.WriteTo(&buf)
	require.NoError(f, err)
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:64])
	f.Add([]byte(snapshotMagic + "\x00\x00\x00\x02{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := m.ReadSnapshot(bytes.NewReader(b))
		if err != nil {
			return
		}
		var again bytes.Buffer
		_, err = got.WriteTo(&again)
		require.NoError(t, err)
		_, err = m.ReadSnapshot(&again)
		require.NoError(t, err, "a snapshot read back does not read again")
	})
}
