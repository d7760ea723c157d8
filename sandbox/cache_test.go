package sandbox

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoEvicts: the Runtime keeps compiled modules up to
// Options.MaxCompiledBytes, least recently used out; an evicted module
// still in a run is closed only when that run ends.
func TestMemoEvicts(t *testing.T) {
	ctx := context.Background()
	one := int64(len(modExit(0)))
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true, MaxCompiledBytes: 2 * one})
	require.NoError(t, err)
	defer r.Close(ctx)
	first, err := compileKept(ctx, r, modExit(0))
	require.NoError(t, err)
	require.True(t, first.acquire(), "cannot acquire a fresh module") // a run in progress
	for code := uint32(1); code <= 4; code++ {
		_, err := compileKept(ctx, r, modExit(code))
		require.NoError(t, err)
	}
	n, bytes := r.kept.size()
	assert.Equal(t, 2, n, "modules the memo holds")
	assert.LessOrEqual(t, bytes, 2*one, "bytes the memo holds")
	require.False(t, first.closed.Load(), "an evicted module was closed while a run used it")
	first.release(ctx)
	require.True(t, first.closed.Load(), "an evicted module was not closed when its last run ended")
}

// TestCacheFaults: a disk cache that is truncated, corrupted or unusable
// never fails a run nor runs wrong code: bad entries are deleted and the
// module compiled again, and an unusable folder is a warning.
func TestCacheFaults(t *testing.T) {
	if !compilerSupported() {
		t.Skip("the disk cache holds compiler output only")
	}
	ctx := context.Background()
	dir := t.TempDir()
	runExit := func(t *testing.T, o *Options, code uint32) {
		t.Helper()
		r, err := New(ctx, o)
		require.NoError(t, err, "New")
		defer r.Close(ctx)
		m, err := r.Compile(ctx, modExit(code))
		require.NoError(t, err, "compile")
		res, err := m.Run(ctx, nil)
		require.NoError(t, err, "run")
		require.Equal(t, code, res.ExitCode, "run: exit code")
	}
	runExit(t, &Options{CacheDir: dir}, 42)
	entries, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	require.Len(t, entries, 1, "cache entries")
	entry := entries[0]
	good, err := os.ReadFile(entry)
	require.NoError(t, err)
	for name, bad := range map[string][]byte{
		"truncated":        good[:len(good)/2],
		"empty":            {},
		"code flipped":     flip(good, len(good)-40),
		"huge func count":  hugeCount(good),
		"header truncated": good[:9],
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(entry, bad, 0o644))
			runExit(t, &Options{CacheDir: dir}, 42)
		})
	}

	// A cache folder that is a file, or below one: run without a cache.
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, d := range []string{file, filepath.Join(file, "sub")} {
		var log strings.Builder
		runExit(t, &Options{CacheDir: d, Logger: newTextLogger(&log)}, 7)
		assert.Contains(t, log.String(), "the compilation cache cannot be used", "cache dir %s: want a warning", d)
	}

	// The disk bound: past MaxCacheBytes the oldest entries go.
	small := t.TempDir()
	for code := uint32(1); code <= 5; code++ {
		runExit(t, &Options{CacheDir: small, MaxCacheBytes: int64(len(good)) * 2}, code)
	}
	var total int64
	files, _ := filepath.Glob(filepath.Join(small, "wazero-*", "*"))
	for _, f := range files {
		fi, _ := os.Stat(f)
		total += fi.Size()
	}
	assert.NotEmpty(t, files, "cache files")
	assert.LessOrEqual(t, total, int64(len(good))*2, "bytes the cache holds")
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

// hugeCount sets the function count of a cache entry to 2^32-1, which
// wazero would allocate before reading the offsets.
func hugeCount(b []byte) []byte {
	c := append([]byte(nil), b...)
	pos := 7 + int(c[6])
	copy(c[pos:], []byte{0xff, 0xff, 0xff, 0xff})
	return c
}

func newTextLogger(w *strings.Builder) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestCompileOnce: one key compiles once and returns the same module; an
// error (from load or the compile) is returned and not kept, so the next
// call tries again; other keys are other modules.
func TestCompileOnce(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true})
	require.NoError(t, err)
	defer r.Close(ctx)
	loads := 0
	load := func(wasm []byte, err error) func() ([]byte, error) {
		return func() ([]byte, error) { loads++; return wasm, err }
	}
	key := [32]byte{7}
	_, err = r.CompileOnce(ctx, key, load(nil, errors.New("disk on fire")))
	require.ErrorContains(t, err, "disk on fire", "a failing load; want its error")
	_, err = r.CompileOnce(ctx, key, load([]byte("not wasm"), nil))
	require.ErrorContains(t, err, "not a valid Wasm module", "bad bytes; want the compile error")
	m1, err := r.CompileOnce(ctx, key, load(modExit(3), nil))
	require.NoError(t, err)
	m2, err := r.CompileOnce(ctx, key, load(modExit(4), nil))
	require.NoError(t, err, "the second call under one key")
	require.Same(t, m1, m2, "the second call under one key; want the kept module")
	assert.Equal(t, 3, loads, "load runs; want 3 (twice failing, once kept)")
	res, err := m2.Run(ctx, nil)
	if assert.NoError(t, err, "kept module") {
		assert.EqualValues(t, 3, res.ExitCode, "kept module: exit code")
	}
	other, err := r.CompileOnce(ctx, [32]byte{8}, load(modExit(4), nil))
	require.NoError(t, err, "another key")
	require.NotSame(t, m1, other, "another key; want a module of its own")
	_ = r.Close(ctx)
	_, err = r.CompileOnce(ctx, [32]byte{9}, load(modExit(5), nil))
	assert.Error(t, err, "CompileOnce after Close compiled; want an error")
}

// TestCacheMaintainedSince: between whole checks, opening the cache
// checks the entries written since the last one, so a bad entry written
// after it is still never loaded, and one older is left for the next
// whole check (a process start does not grow with the cache).
func TestCacheMaintainedSince(t *testing.T) {
	if !compilerSupported() {
		t.Skip("the disk cache holds compiler output only")
	}
	ctx := context.Background()
	dir := t.TempDir()
	open := func() {
		t.Helper()
		r, err := New(ctx, &Options{CacheDir: dir})
		require.NoError(t, err)
		_ = r.Close(ctx)
	}
	open()
	wz, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	require.NotEmpty(t, wz, "no wazero folder")
	old, fresh := filepath.Join(wz[0], "old"), filepath.Join(wz[0], "fresh")
	for _, p := range []string{old, fresh} {
		require.NoError(t, os.WriteFile(p, []byte("WAZEVO\x00"), 0o644))
	}
	require.NoError(t, os.Chtimes(old, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour)))
	open()
	_, err := os.Stat(fresh)
	assert.ErrorIs(t, err, os.ErrNotExist, "a bad entry written since the last check was kept")
	_, err = os.Stat(old)
	assert.NoError(t, err, "an entry older than the last check was checked between whole checks")
	// An hour on, the whole cache is checked again.
	stamp := filepath.Join(dir, maintainedStamp)
	require.NoError(t, os.Chtimes(stamp, time.Now().Add(-maintainEvery-time.Minute), time.Now().Add(-maintainEvery-time.Minute)))
	open()
	_, err = os.Stat(old)
	assert.ErrorIs(t, err, os.ErrNotExist, "the whole check kept a bad entry")
}
