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
)

// TestMemoEvicts: the Runtime keeps compiled modules up to
// Options.MaxCompiledBytes, least recently used out; an evicted module
// still in a run is closed only when that run ends.
func TestMemoEvicts(t *testing.T) {
	ctx := context.Background()
	one := int64(len(modExit(0)))
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true, MaxCompiledBytes: 2 * one})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	first, err := compileKept(ctx, r, modExit(0))
	if err != nil {
		t.Fatal(err)
	}
	if !first.acquire() { // a run in progress
		t.Fatal("cannot acquire a fresh module")
	}
	for code := uint32(1); code <= 4; code++ {
		if _, err := compileKept(ctx, r, modExit(code)); err != nil {
			t.Fatal(err)
		}
	}
	if n, bytes := r.kept.size(); n != 2 || bytes > 2*one {
		t.Errorf("memo holds %d modules, %d bytes; want 2, at most %d", n, bytes, 2*one)
	}
	if first.closed.Load() {
		t.Fatal("an evicted module was closed while a run used it")
	}
	first.release(ctx)
	if !first.closed.Load() {
		t.Fatal("an evicted module was not closed when its last run ended")
	}
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
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer r.Close(ctx)
		m, err := r.Compile(ctx, modExit(code))
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		if res, err := m.Run(ctx, nil); err != nil || res.ExitCode != code {
			t.Fatalf("run: %+v, %v; want exit %d", res, err, code)
		}
	}
	runExit(t, &Options{CacheDir: dir}, 42)
	entries, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v; want one", entries)
	}
	entry := entries[0]
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated":        good[:len(good)/2],
		"empty":            {},
		"code flipped":     flip(good, len(good)-40),
		"huge func count":  hugeCount(good),
		"header truncated": good[:9],
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(entry, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			runExit(t, &Options{CacheDir: dir}, 42)
		})
	}

	// A cache folder that is a file, or below one: run without a cache.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{file, filepath.Join(file, "sub")} {
		var log strings.Builder
		runExit(t, &Options{CacheDir: d, Logger: newTextLogger(&log)}, 7)
		if !strings.Contains(log.String(), "the compilation cache cannot be used") {
			t.Errorf("cache dir %s: no warning in %q", d, log.String())
		}
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
	if total > int64(len(good))*2 || len(files) == 0 {
		t.Errorf("cache holds %d files, %d bytes; want some, at most %d bytes", len(files), total, len(good)*2)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	loads := 0
	load := func(wasm []byte, err error) func() ([]byte, error) {
		return func() ([]byte, error) { loads++; return wasm, err }
	}
	key := [32]byte{7}
	if _, err := r.CompileOnce(ctx, key, load(nil, errors.New("disk on fire"))); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("a failing load gave %v; want its error", err)
	}
	if _, err := r.CompileOnce(ctx, key, load([]byte("not wasm"), nil)); err == nil || !strings.Contains(err.Error(), "not a valid Wasm module") {
		t.Fatalf("bad bytes gave %v; want the compile error", err)
	}
	m1, err := r.CompileOnce(ctx, key, load(modExit(3), nil))
	if err != nil {
		t.Fatal(err)
	}
	m2, err := r.CompileOnce(ctx, key, load(modExit(4), nil))
	if err != nil || m2 != m1 {
		t.Fatalf("the second call under one key gave %p, %v; want the kept module %p", m2, err, m1)
	}
	if loads != 3 {
		t.Errorf("load ran %d times; want 3 (twice failing, once kept)", loads)
	}
	if res, err := m2.Run(ctx, nil); err != nil || res.ExitCode != 3 {
		t.Errorf("kept module ran %+v, %v; want exit 3", res, err)
	}
	other, err := r.CompileOnce(ctx, [32]byte{8}, load(modExit(4), nil))
	if err != nil || other == m1 {
		t.Fatalf("another key gave %p, %v; want a module of its own", other, err)
	}
	_ = r.Close(ctx)
	if _, err := r.CompileOnce(ctx, [32]byte{9}, load(modExit(5), nil)); err == nil {
		t.Error("CompileOnce after Close compiled; want an error")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Close(ctx)
	}
	open()
	wz, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	if len(wz) == 0 {
		t.Fatal("no wazero folder")
	}
	old, fresh := filepath.Join(wz[0], "old"), filepath.Join(wz[0], "fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("WAZEVO\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(old, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	open()
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a bad entry written since the last check was kept: %v", err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("an entry older than the last check was checked between whole checks: %v", err)
	}
	// An hour on, the whole cache is checked again.
	stamp := filepath.Join(dir, maintainedStamp)
	if err := os.Chtimes(stamp, time.Now().Add(-maintainEvery-time.Minute), time.Now().Add(-maintainEvery-time.Minute)); err != nil {
		t.Fatal(err)
	}
	open()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the whole check kept a bad entry: %v", err)
	}
}
