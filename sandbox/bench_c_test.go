package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// cGuest builds testdata/guests/cfib/fib.c for wasm32-wasi (clang +
// wasi-libc) and natively (cc), or skips when clang is missing, unless
// REQUIRE_TOOLCHAINS=1 makes that a failure.
func cGuest(tb testing.TB) (wasm []byte, native string) {
	tb.Helper()
	if _, err := exec.LookPath("clang"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			tb.Fatalf("clang is required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		tb.Skip("clang not installed")
	}
	src := filepath.Join(testkit.Dir("cfib"), "fib.c")
	dir := tb.TempDir()
	out := filepath.Join(dir, "fib.wasm")
	for _, args := range [][]string{
		{"clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", out, src},
		{"clang", "-O2", "-o", filepath.Join(dir, "fib"), src},
	} {
		msg, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		require.NoError(tb, err, "%v:\n%s", args, msg)
	}
	wasm, err := os.ReadFile(out)
	require.NoError(tb, err)
	return wasm, filepath.Join(dir, "fib")
}

// TestCGuest: the C guest gives the native answer, on both engines.
func TestCGuest(t *testing.T) {
	wasm, native := cGuest(t)
	forEachEngine(t, func(t *testing.T, e *testEnv) {
		m, err := e.r.Compile(context.Background(), wasm)
		require.NoError(t, err)
		var stdout strings.Builder
		res, err := m.Run(context.Background(), &RunConfig{Args: []string{"15"}, Stdout: &stdout})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, "exit code")
		out, err := exec.Command(native, "15").Output()
		require.NoError(t, err)
		require.Equal(t, fibWant(15), string(out), "native")
		require.Equal(t, fibWant(15), stdout.String(), "wasm")
	})
}

// BenchmarkRunWarmC is BenchmarkRunWarm for the C guest: one warm run of a
// compiled module against a native subprocess of the same program, each
// iteration timing both; x-native is their ratio (below 1: the sandboxed
// run is faster than spawning the native process).
func BenchmarkRunWarmC(b *testing.B) {
	wasm, native := cGuest(b)
	for _, n := range []int{20, 30} {
		b.Run("fib"+strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			r, err := New(ctx, &Options{NoCache: true})
			require.NoError(b, err)
			defer r.Close(ctx)
			m, err := r.Compile(ctx, wasm)
			require.NoError(b, err)
			benchVersusNative(b, m, native, n, fibWant(n))
		})
	}
}
