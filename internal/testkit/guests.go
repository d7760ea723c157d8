// Package testkit holds what the tests of several packages share: the
// test guests (Go, C and Extism programs under its testdata folder,
// compiled to WebAssembly, or natively for baselines, once per test
// binary) and file fixtures for attack tests.
//
// Only test files import it (the module's deps test enforces that): it
// imports testing, and it runs the go command and clang.
package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"testing"
)

// Guests are built with the go command (its build cache makes later runs
// fast) into one temporary folder per test binary; call [Cleanup] from
// TestMain to remove it.
var (
	outMu  sync.Mutex
	outDir string

	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// build is one build of a guest, made once.
type build struct {
	once sync.Once
	path string
	err  error
	skip bool // no go command, and REQUIRE_TOOLCHAINS is not set
}

// Dir returns the source folder of the guest name.
func Dir(name string) string {
	return filepath.Join(ModuleRoot(), "internal", "testkit", "testdata", name)
}

// ModuleRoot returns the root folder of the skillrun module.
func ModuleRoot() string {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		panic("testkit: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Required reports whether a missing toolchain fails the test instead of
// skipping it (REQUIRE_TOOLCHAINS is set, as in CI).
func Required() bool { return os.Getenv("REQUIRE_TOOLCHAINS") != "" }

// NeedTool skips tb when the command name is not installed, or fails it
// when [Required].
func NeedTool(tb testing.TB, name string) {
	tb.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if Required() {
			tb.Fatalf("%s is required (REQUIRE_TOOLCHAINS=1): %v", name, err)
		}
		tb.Skipf("%s not installed", name)
	}
}

// Path builds the Go guest name for GOOS=wasip1 (or, with native, for
// the host) and returns the path of the result.
func Path(tb testing.TB, name string, native bool) string {
	tb.Helper()
	key := name + ".wasm"
	if native {
		key = name + ".native"
		if goruntime.GOOS == "windows" {
			key += ".exe"
		}
	}
	return Build(tb, key, name, ".", !native, nil, nil)
}

// Wasm returns the Go guest name built for GOOS=wasip1.
func Wasm(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, name, false))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// WasmBuilt returns the Go guest dir built for GOOS=wasip1 with extra go
// build arguments (such as -buildmode=c-shared), cached as key.
func WasmBuilt(tb testing.TB, key, dir string, extraArgs ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Build(tb, key, dir, ".", true, extraArgs, nil))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Build builds package pkg of the guest dir once per test binary, to a
// file named key, and returns its path. With wasm it builds for
// GOOS=wasip1. A missing go command skips the test (unless [Required]),
// as does a failure that skipIf accepts.
func Build(tb testing.TB, key, dir, pkg string, wasm bool, extraArgs []string, skipIf func(output []byte) bool) string {
	tb.Helper()
	buildsMu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			b.err = fmt.Errorf("building test guests needs the go command: %w", err)
			b.skip = !Required()
			return
		}
		out, err := TempDir()
		if err != nil {
			b.err = err
			return
		}
		out = filepath.Join(out, key)
		args := append(append([]string{"build", "-o", out}, extraArgs...), pkg)
		cmd := exec.Command(goTool, args...)
		cmd.Dir = Dir(dir)
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
		if wasm {
			cmd.Env = append(cmd.Env, "GOOS=wasip1", "GOARCH=wasm")
		}
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("%s: %w\n%s", cmd, err, msg)
			b.skip = !Required() && skipIf != nil && skipIf(msg)
			return
		}
		b.path = out
	})
	if b.skip {
		tb.Skip(b.err)
	}
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// TempDir returns the test binary's folder for built guests, creating it
// on first use.
func TempDir() (string, error) {
	outMu.Lock()
	defer outMu.Unlock()
	if outDir == "" {
		d, err := os.MkdirTemp("", "skillrun-testkit-")
		if err != nil {
			return "", err
		}
		outDir = d
	}
	return outDir, nil
}

// Cleanup removes the folder of built guests. Call it from TestMain after
// the tests ran.
func Cleanup() {
	outMu.Lock()
	defer outMu.Unlock()
	if outDir != "" {
		_ = os.RemoveAll(outDir)
		outDir = ""
	}
}
