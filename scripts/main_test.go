package scripts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/sandbox"
)

// The tests share one Runner (compiling a Go guest takes seconds, ten
// under -race) and one compile cache in a temporary folder; test guests
// are built once per test binary by package testkit.

var testDir string // temporary folder of this test binary

func TestMain(m *testing.M) {
	native.Main() // the native tier's confining helper, when a test re-executes this binary
	dir, err := os.MkdirTemp("", "skillrun-scripts-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	code := m.Run()
	if r := shared.r; r != nil {
		_ = r.Close(context.Background())
	}
	testkit.Cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

var shared struct {
	once sync.Once
	r    *Runner
	err  error
}

// sharedRunner returns the Runner the tests share (the compiler engine).
func sharedRunner(tb testing.TB) *Runner {
	tb.Helper()
	shared.once.Do(func() {
		shared.r, shared.err = New(context.Background(), &Options{Sandbox: &sandbox.Options{CacheDir: filepath.Join(testDir, "cache")}})
	})
	require.NoError(tb, shared.err)
	return shared.r
}

// newRunner returns a Runner of its own for one test, sharing the compile
// cache on disk.
func newRunner(tb testing.TB) *Runner {
	tb.Helper()
	ctx := context.Background()
	r, err := New(ctx, &Options{Sandbox: &sandbox.Options{CacheDir: filepath.Join(testDir, "cache")}})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = r.Close(ctx) })
	return r
}

// extPlugin builds the Extism test plugin (testkit's extplugin, with
// go-pdk) and returns the Wasm; without go-pdk (offline, no module cache)
// the test is skipped, unless testkit.Required.
func extPlugin(tb testing.TB) []byte {
	tb.Helper()
	path := testkit.Build(tb, "ext-plugin.wasm", "extplugin", ".", true, []string{"-buildmode=c-shared"},
		func(msg []byte) bool { return bytes.Contains(msg, []byte("go-pdk")) })
	wasm, err := os.ReadFile(path)
	require.NoError(tb, err)
	return wasm
}
