package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanMemo: a Runtime with a disk cache records a module's scan, and
// the next Runtime (the next process) reads the record instead of
// scanning; a record that is not one of ours is ignored and rewritten.
func TestScanMemo(t *testing.T) {
	ctx := context.Background()
	wasm := snapGuest(t, true)
	cache := t.TempDir()
	compile := func() (*CompiledModule, func()) {
		r, err := New(ctx, &Options{CacheDir: cache})
		require.NoError(t, err)
		m, err := r.Compile(ctx, wasm)
		require.NoError(t, err)
		return m, func() { _ = r.Close(ctx) }
	}
	_, done := compile()
	done()
	records, err := filepath.Glob(filepath.Join(cache, "scans", "*.json"))
	require.NoError(t, err)
	require.Len(t, records, 1)
	assert.Contains(t, readString(t, records[0]), `"mutable_globals":["__stack_pointer"]`)

	// A record saying something else is believed: the proof it is read.
	require.NoError(t, os.WriteFile(records[0], []byte(`{"table_bytes":8,"unsnapshottable":"as the record says"}`), 0o600))
	m, done := compile()
	_, err = m.Snapshot(ctx, &SnapshotConfig{Init: "snap_init", Entry: "snap_run"})
	assert.ErrorContains(t, err, "as the record says")
	done()

	// A record with a field of no scan's is not ours: scanned again.
	require.NoError(t, os.WriteFile(records[0], []byte(`{"table_bytes":8,"evil":1}`), 0o600))
	m, done = compile()
	defer done()
	assert.Empty(t, m.unsnapshottable)
	assert.Contains(t, readString(t, records[0]), `"mutable_globals":["__stack_pointer"]`)
}

// TestScanMemoRefusalNotKept: a refused module leaves no record.
func TestScanMemoRefusalNotKept(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	r, err := New(ctx, &Options{CacheDir: cache})
	require.NoError(t, err)
	defer r.Close(ctx)
	_, err = r.Compile(ctx, modNested(1, maxNesting+1))
	require.ErrorContains(t, err, "refused before compiling")
	records, _ := filepath.Glob(filepath.Join(cache, "scans", "*"))
	assert.Empty(t, records)
}

// TestPruneKeptFiles: snapshots and scan records count toward the cache
// bound and go, oldest first, with wazero's entries.
func TestPruneKeptFiles(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(cache, "snapshots"), 0o700))
	old := filepath.Join(cache, "snapshots", "old.snap")
	require.NoError(t, os.WriteFile(old, make([]byte, 2<<20), 0o600))
	r, err := New(ctx, &Options{CacheDir: cache, MaxCacheBytes: 1 << 20})
	require.NoError(t, err)
	defer r.Close(ctx)
	_, err = os.Stat(old)
	assert.ErrorIs(t, err, os.ErrNotExist, "pruned at New: over the bound")
}

func readString(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return string(b)
}
