package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// Test guests are programs under internal/testkit/testdata, built once
// per test binary (package testkit). The runtimes and compiled guests are shared by all
// tests of one engine: compiling a Go guest takes seconds (ten under -race),
// and sharing also proves the point of the attack tests, that a Runtime
// stays usable after whatever a guest did.

var testDir string // temporary directory of this test binary

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skillrun-sandbox-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	code := m.Run()
	closeEnvs()
	testkit.Cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

// engine is one of wazero's two engines; the core tests run on both.
type engine struct {
	name        string
	interpreter bool
}

var engines = []engine{{"compiler", false}, {"interpreter", true}}

// forEachEngine runs f as a subtest per engine, with that engine's shared
// environment.
func forEachEngine(t *testing.T, f func(t *testing.T, e *testEnv)) {
	t.Helper()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) { f(t, sharedEnv(t, eng.interpreter)) })
	}
}

// ownRuntime returns a Runtime of the compiler engine for one test (other
// tests' runs would blur its counts), sharing the compile cache of the
// shared one, and the hostile guest compiled by it. o may set options;
// its CacheDir is replaced.
func ownRuntime(t *testing.T, o Options) (*Runtime, *CompiledModule) {
	t.Helper()
	ctx := context.Background()
	o.CacheDir = filepath.Join(testDir, "cache-interpreter=false")
	r, err := New(ctx, &o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(ctx) })
	m, err := r.Compile(ctx, testkit.Wasm(t, "hostile"))
	require.NoError(t, err)
	return r, m
}

// testEnv is the shared Runtime of one engine and the hostile guest
// compiled by it.
type testEnv struct {
	r        *Runtime
	hostile  *CompiledModule
	cacheDir string
}

var (
	envsMu sync.Mutex
	envs   = map[bool]*testEnv{}
	envErr = map[bool]error{}
)

func sharedEnv(tb testing.TB, interpreter bool) *testEnv {
	tb.Helper()
	envsMu.Lock()
	defer envsMu.Unlock()
	if e := envs[interpreter]; e != nil {
		return e
	}
	require.NoError(tb, envErr[interpreter])
	wasm := testkit.Wasm(tb, "hostile")
	ctx := context.Background()
	cacheDir := filepath.Join(testDir, fmt.Sprintf("cache-interpreter=%v", interpreter))
	r, err := New(ctx, &Options{CacheDir: cacheDir, Interpreter: interpreter})
	if err != nil {
		envErr[interpreter] = err
		tb.Fatal(err)
	}
	m, err := r.Compile(ctx, wasm)
	if err != nil {
		envErr[interpreter] = err
		tb.Fatal(err)
	}
	e := &testEnv{r: r, hostile: m, cacheDir: cacheDir}
	envs[interpreter] = e
	return e
}

func closeEnvs() {
	envsMu.Lock()
	defer envsMu.Unlock()
	for _, e := range envs {
		_ = e.r.Close(context.Background())
	}
}

// output is what a run wrote.
type output struct {
	stdout, stderr bytes.Buffer
}

// run runs the hostile guest with args on top of cfg (nil for defaults)
// and returns what it wrote.
func (e *testEnv) run(t *testing.T, cfg *RunConfig, args ...string) (*Result, *output, error) {
	t.Helper()
	var c RunConfig
	if cfg != nil {
		c = *cfg
	}
	out := &output{}
	if c.Name == "" {
		c.Name = "hostile"
	}
	c.Args = args
	if c.Stdout == nil {
		c.Stdout = &out.stdout
	}
	if c.Stderr == nil {
		c.Stderr = &out.stderr
	}
	res, err := e.hostile.Run(context.Background(), &c)
	return res, out, err
}

// assertUsable runs a normal guest on the shared runtime after an attack,
// and a freshly compiled tiny module, and checks both work.
func (e *testEnv) assertUsable(t *testing.T) {
	t.Helper()
	res, out, err := e.run(t, &RunConfig{Stdin: strings.NewReader("still here\n")}, "echo", "after")
	const unusable = "the runtime is not usable after the attack: stderr %q"
	require.NoError(t, err, unusable, out.stderr.String())
	require.Zero(t, res.ExitCode, unusable, out.stderr.String())
	require.Equal(t, "arg: \"after\"\nstill here\n", out.stdout.String(), unusable, out.stderr.String())
	m, err := e.r.Compile(context.Background(), modExit(7))
	require.NoError(t, err, "the runtime cannot compile after the attack")
	defer m.Close(context.Background())
	res, err = m.Run(context.Background(), nil)
	require.NoError(t, err, "the runtime cannot run a new module after the attack")
	require.EqualValues(t, 7, res.ExitCode, "the runtime cannot run a new module after the attack: exit code")
}

// compilerSupported approximates wazero's own check (the compiler exists
// for amd64 and arm64 on these systems); elsewhere both engines are the
// interpreter.
func compilerSupported() bool {
	switch goruntime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "windows":
		return goruntime.GOARCH == "amd64" || goruntime.GOARCH == "arm64"
	}
	return false
}

func TestNewDefaults(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", cache)           // and elsewhere
	r, err := New(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, r.Close(ctx))
	require.NoError(t, r.Close(ctx), "second Close")
	if goruntime.GOOS == "linux" {
		_, err := os.Stat(filepath.Join(cache, "skillrun", "wazero"))
		assert.NoError(t, err, "default cache directory")
	}
}

func TestClosed(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true})
	require.NoError(t, err)
	m, err := r.Compile(ctx, modExit(0))
	require.NoError(t, err)
	require.NoError(t, m.Close(ctx))
	require.NoError(t, m.Close(ctx))
	_, err = m.Run(ctx, nil)
	assert.ErrorContains(t, err, "closed", "Run after CompiledModule.Close")
	m2, err := r.Compile(ctx, modExit(0))
	require.NoError(t, err)
	require.NoError(t, r.Close(ctx))
	_, err = r.Compile(ctx, modExit(0))
	assert.ErrorIs(t, err, errClosed, "Compile after Runtime.Close")
	_, err = m2.Run(ctx, nil)
	assert.ErrorIs(t, err, errClosed, "Run after Runtime.Close")
}

// TestCloseDuringFileRun closes a Runtime under runs that hold files and
// wait on stdin: Close stops them and waits for them to end before it
// closes wazero's runtime, whose Close is not safe beside a module using
// its files (the race detector saw it), and the runs end with an error
// saying the runtime is closed.
func TestCloseDuringFileRun(t *testing.T) {
	ctx := context.Background()
	r, m := ownRuntime(t, Options{})
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644))
	const runs = 3
	lines := make(chan string, runs)
	errs := make(chan error, runs)
	var stdins []*io.PipeWriter
	for i := range runs {
		pr, pw := io.Pipe()
		stdins = append(stdins, pw)
		out := &lineSignal{ch: lines}
		go func() {
			_, err := m.Run(ctx, &RunConfig{Name: fmt.Sprint("holder-", i), Args: []string{"openfiles", "5", "/workspace/f", "hold"},
				Mounts: []Mount{{HostDir: ws, GuestPath: "/workspace", Writable: true}}, Stdin: pr, Stdout: out, Timeout: 10 * time.Minute})
			out.end(err)
			errs <- err
		}()
	}
	defer func() {
		for _, pw := range stdins {
			_ = pw.Close()
		}
	}()
	for range runs {
		require.Equal(t, "opened 5", <-lines, "what a run said")
	}
	require.NoError(t, r.Close(ctx))
	// Close waited for the runs: their files are closed already.
	assert.Zero(t, r.openFiles.count(), "after Close the Runtime counts open files; want its runs ended")
	for range runs {
		select {
		case err := <-errs:
			assert.ErrorContains(t, err, "runtime is closed", "run under Close")
		case <-time.After(time.Minute):
			require.FailNow(t, "a run did not return after Close")
		}
	}
}

// TestCloseDuringRun closes a Runtime under a busy run: the run must end
// with an error, promptly.
func TestCloseDuringRun(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true})
	require.NoError(t, err)
	m, err := r.Compile(ctx, modLoop())
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := m.Run(ctx, &RunConfig{Name: "spin", Timeout: time.Minute})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, r.Close(ctx))
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "closed", "run under Close: want an error saying the runtime is closed")
	case <-time.After(30 * time.Second):
		require.FailNow(t, "a run did not stop when its Runtime was closed")
	}
}

func TestCompileErrors(t *testing.T) {
	valid := modExit(0)
	tests := []struct {
		name string
		wasm []byte
		want []string // substrings of the error
	}{
		{"empty", nil, []string{"not a valid Wasm module"}},
		{"text", []byte("#!/bin/sh\necho hi\n"), []string{"not a valid Wasm module"}},
		{"truncated", valid[:len(valid)-3], []string{"not a valid Wasm module"}},
		{"wat", []byte("(module)"), []string{"not a valid Wasm module"}},
		{"unknown import", modImport("env", "evil", 0), []string{"env.evil", "wasi_snapshot_preview1"}},
		{"unknown WASI function", modImport("wasi_snapshot_preview1", "sock_everything", 0), []string{"wasi_snapshot_preview1.sock_everything", "not part of WASI"}},
		{"wrong WASI signature", modImport("wasi_snapshot_preview1", "fd_write", 0), []string{"wasi_snapshot_preview1.fd_write", "func() ()", "func(i32, i32, i32, i32) (i32)"}},
		{"imported memory", modImport("env", "memory", 2), []string{"memory env.memory"}},
		{"imported table", modImport("env", "table", 1), []string{"table env.table"}},
		{"imported global", modImport("env", "g", 3), []string{"global env.g"}},
		{"WASI memory", modImport("wasi_snapshot_preview1", "memory", 2), []string{"memory wasi_snapshot_preview1.memory", "functions only"}},
		{"no _start", modNoStart(), []string{"no _start", "WASI command"}},
	}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			ctx := context.Background()
			r, err := New(ctx, &Options{NoCache: true, Interpreter: eng.interpreter})
			require.NoError(t, err)
			defer r.Close(ctx)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					m, err := r.Compile(ctx, tt.wasm)
					if err == nil {
						m.Close(ctx)
					}
					require.Error(t, err, "Compile succeeded, want an error")
					for _, w := range tt.want {
						assert.ErrorContains(t, err, w)
					}
				})
			}
			// Still usable.
			m, err := r.Compile(ctx, valid)
			require.NoError(t, err)
			defer m.Close(ctx)
			_, err = m.Run(ctx, nil)
			require.NoError(t, err)
		})
	}
}

// TestCompilationCache checks the disk cache: a new Runtime on the same
// directory finds the compiled module, and a changed module gets an entry
// of its own instead of a stale one. The cache holds compiler output only.
func TestCompilationCache(t *testing.T) {
	if !compilerSupported() {
		t.Skip("the compiler (the only engine that uses the cache) is not supported here")
	}
	ctx := context.Background()
	e := sharedEnv(t, false) // compiled the hostile guest into e.cacheDir
	before := cacheEntries(t, e.cacheDir)
	require.NotEmpty(t, before, "no entries in the cache directory %s after a compile", e.cacheDir)
	for _, p := range allFiles(t, e.cacheDir) {
		rel, _ := filepath.Rel(e.cacheDir, p)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		ok := strings.HasPrefix(top, "wazero-") || slices.Contains(keptFolders, top) || top == maintainedStamp
		assert.True(t, ok, "cache entry %s is neither under a wazero version directory nor in skillrun's %v nor the %s stamp", p, keptFolders, maintainedStamp)
	}

	r, err := New(ctx, &Options{CacheDir: e.cacheDir})
	require.NoError(t, err)
	defer r.Close(ctx)
	start := time.Now()
	m, err := r.Compile(ctx, testkit.Wasm(t, "hostile"))
	require.NoError(t, err)
	t.Logf("compile from the warm cache took %v", time.Since(start))
	var stdout bytes.Buffer
	res, err := m.Run(ctx, &RunConfig{Args: []string{"echo", "cached"}, Stdout: &stdout})
	require.NoError(t, err, "module from the cache")
	require.Zero(t, res.ExitCode, "module from the cache: exit code")
	require.Equal(t, "arg: \"cached\"\n", stdout.String(), "module from the cache: stdout")
	assert.Len(t, cacheEntries(t, e.cacheDir), len(before), "compiling the same module again changed the cache's entries")

	// A changed module (another exit code, new in this test binary) is
	// compiled and cached anew.
	for i := range 2 {
		code := 40 + cacheTestCodes.Add(1)
		m, err := r.Compile(ctx, modExit(code))
		require.NoError(t, err)
		res, err := m.Run(ctx, nil)
		require.NoError(t, err, "changed module")
		require.Equal(t, code, res.ExitCode, "changed module: exit code")
		assert.Len(t, cacheEntries(t, e.cacheDir), len(before)+i+1, "cache entries after compiling a changed module")
	}
}

var cacheTestCodes atomic.Uint32 // exit codes used by TestCompilationCache, for -count

// cacheEntries lists the compiled modules of the cache in dir: the files
// under its wazero version directories.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	return slices.DeleteFunc(allFiles(t, dir), func(p string) bool {
		rel, _ := filepath.Rel(dir, p)
		return !strings.HasPrefix(filepath.ToSlash(rel), "wazero-")
	})
}

// allFiles lists every file below dir.
func allFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	require.NoError(t, err)
	return files
}

// Hand-assembled modules, for what a Go guest cannot express: imports
// skillrun does not provide, traps, a hidden memory. Each is a few dozen
// bytes of the binary format.

// leb encodes an unsigned LEB128 number.
func leb(n uint32) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// vec is a vector: its length, then its items.
func vec(items ...[]byte) []byte { return cat(leb(uint32(len(items))), cat(items...)) }

func name(s string) []byte { return cat(leb(uint32(len(s))), []byte(s)) }

func section(id byte, items ...[]byte) []byte {
	payload := vec(items...)
	return cat([]byte{id}, leb(uint32(len(payload))), payload)
}

// module assembles a module from its sections.
func module(sections ...[]byte) []byte {
	return cat([]byte("\x00asm\x01\x00\x00\x00"), cat(sections...))
}

const (
	secType   = 1
	secImport = 2
	secFunc   = 3
	secMemory = 5
	secExport = 7
	secCode   = 10
	secData   = 11

	i32 = 0x7f
)

var funcVoid = []byte{0x60, 0x00, 0x00} // func() ()

// body is a function body without locals; code ends with 0x0b (end).
func body(code ...byte) []byte {
	b := cat([]byte{0x00}, code)
	return cat(leb(uint32(len(b))), b)
}

func exportFunc(n string, index uint32) []byte { return cat(name(n), []byte{0x00}, leb(index)) }

// modStart is a module whose _start runs code.
func modStart(code ...byte) []byte {
	return module(
		section(secType, funcVoid),
		section(secFunc, []byte{0}),
		section(secExport, exportFunc("_start", 0)),
		section(secCode, body(code...)),
	)
}

// modExit calls proc_exit(code).
func modExit(code uint32) []byte {
	procExit := []byte{0x60, 0x01, i32, 0x00} // func(i32) ()
	c := cat([]byte{0x41}, sleb(int32(code)), []byte{0x10, 0x00, 0x0b})
	return module(
		section(secType, procExit, funcVoid),
		section(secImport, cat(name("wasi_snapshot_preview1"), name("proc_exit"), []byte{0x00, 0x00})),
		section(secFunc, []byte{1}),
		section(secExport, exportFunc("_start", 1)),
		section(secCode, body(c...)),
	)
}

// sleb encodes a signed LEB128 number (for i32.const).
func sleb(v int32) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// modImport imports module.name as kind (0 function of type func() (),
// 1 table, 2 memory, 3 global) and has a _start that does nothing.
func modImport(mod, field string, kind byte) []byte {
	desc := map[byte][]byte{
		0: {0x00, 0x00},             // function, type 0
		1: {0x01, 0x70, 0x00, 0x01}, // table of funcref, min 1
		2: {0x02, 0x00, 0x01},       // memory, min 1
		3: {0x03, i32, 0x00},        // const i32 global
	}[kind]
	start := uint32(0)
	if kind == 0 {
		start = 1 // the import is function 0
	}
	return module(
		section(secType, funcVoid),
		section(secImport, cat(name(mod), name(field), desc)),
		section(secFunc, []byte{0}),
		section(secExport, exportFunc("_start", start)),
		section(secCode, body(0x0b)),
	)
}

func modNoStart() []byte {
	return module(
		section(secType, funcVoid),
		section(secFunc, []byte{0}),
		section(secExport, exportFunc("main", 0)),
		section(secCode, body(0x0b)),
	)
}

// modLoop spins forever: loop br 0 end.
func modLoop() []byte { return modStart(0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b) }

// modUnreachable traps at once.
func modUnreachable() []byte { return modStart(0x00, 0x0b) }

// modRecurse calls itself until the call stack overflows.
func modRecurse() []byte { return modStart(0x10, 0x00, 0x0b) }

// modMemory has a memory of minPages pages (exported as "memory" if
// export is set) and a _start that grows it by growPages pages at a time
// until memory.grow fails, then returns normally.
func modMemory(minPages uint32, export bool, growPages int32) []byte {
	exports := [][]byte{exportFunc("_start", 0)}
	if export {
		exports = append(exports, cat(name("memory"), []byte{0x02, 0x00}))
	}
	// loop: (br_if 0 (i32.ne (memory.grow (i32.const growPages)) (i32.const -1))) end
	code := cat([]byte{0x03, 0x40, 0x41}, sleb(growPages), []byte{0x40, 0x00, 0x41, 0x7f, 0x47, 0x0d, 0x00, 0x0b, 0x0b})
	return module(
		section(secType, funcVoid),
		section(secFunc, []byte{0}),
		section(secMemory, cat([]byte{0x00}, leb(minPages))),
		section(secExport, exports...),
		section(secCode, body(code...)),
	)
}

// modHello writes "hello, world\n" to stdout with fd_write and returns.
func modHello() []byte {
	fdWrite := []byte{0x60, 0x04, i32, i32, i32, i32, 0x01, i32} // func(i32, i32, i32, i32) (i32)
	const text = "hello, world\n"
	// iovec at 0: {buf: 8, len: 13}; text at 8; nwritten at 32.
	iov := cat([]byte{8, 0, 0, 0}, []byte{byte(len(text)), 0, 0, 0})
	code := []byte{
		0x41, 0x01, // i32.const 1 (stdout)
		0x41, 0x00, // i32.const 0 (iovs)
		0x41, 0x01, // i32.const 1 (iovs_len)
		0x41, 0x20, // i32.const 32 (nwritten)
		0x10, 0x00, // call fd_write
		0x1a, // drop
		0x0b,
	}
	return module(
		section(secType, fdWrite, funcVoid),
		section(secImport, cat(name("wasi_snapshot_preview1"), name("fd_write"), []byte{0x00, 0x00})),
		section(secFunc, []byte{1}),
		section(secMemory, []byte{0x00, 0x01}),
		section(secExport, exportFunc("_start", 1), cat(name("memory"), []byte{0x02, 0x00})),
		section(secCode, body(code...)),
		section(secData,
			cat([]byte{0x00, 0x41, 0x00, 0x0b}, leb(uint32(len(iov))), iov),
			cat([]byte{0x00, 0x41, 0x08, 0x0b}, name(text)),
		),
	)
}

// compileKept compiles wasm with CompileOnce, keyed by its SHA-256 (as
// the scripts layer does).
func compileKept(ctx context.Context, r *Runtime, wasm []byte) (*CompiledModule, error) {
	return r.CompileOnce(ctx, sha256.Sum256(wasm), func() ([]byte, error) { return wasm, nil })
}
