package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// Benchmarks of the fib guest (testdata/guests/fib), a CPU-bound Go
// program. Each reports its figure against a baseline measured in the same
// run, as a custom metric (DESIGN.md "Performance"):
//
//	BenchmarkCompileCold      compile with no cache (per engine)
//	BenchmarkCompileCached    new Runtime + compile from a warm disk cache;
//	                          cached/cold = its time over a cold compile
//	BenchmarkRunWarm          one run of a compiled module (instantiate,
//	                          _start, close); x-native = its time over a
//	                          native subprocess of the same program
//	BenchmarkNativeSubprocess the native baseline alone
//	BenchmarkTimeoutCost      fib(30) with wazero's context checks on and
//	                          off; on/off = the price of enforceable timeouts
//
// Run with: go test -run '^$' -bench . ./sandbox

// runN is fib's argument for the run benchmarks: small, so a run measures
// the cost of starting a module (Go's runtime initialisation included)
// more than fib itself.
const runN = 20

func benchFib(b *testing.B) []byte { return testkit.Wasm(b, "fib") }

func fibWant(n int) string {
	a, c := 0, 1
	for range n {
		a, c = c, a+c
	}
	return strconv.Itoa(a) + "\n"
}

func BenchmarkCompileCold(b *testing.B) {
	wasm := benchFib(b)
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				compileOnce(b, ctx, &Options{NoCache: true, Interpreter: eng.interpreter}, wasm)
			}
		})
	}
}

func compileOnce(b *testing.B, ctx context.Context, o *Options, wasm []byte) {
	r, err := New(ctx, o)
	require.NoError(b, err)
	_, err = r.Compile(ctx, wasm)
	require.NoError(b, err)
	r.Close(ctx)
}

func BenchmarkCompileCached(b *testing.B) {
	if !compilerSupported() {
		b.Skip("the compilation cache holds compiler output; no compiler here")
	}
	wasm := benchFib(b)
	ctx := context.Background()
	dir := b.TempDir()
	start := time.Now()
	compileOnce(b, ctx, &Options{CacheDir: dir}, wasm) // cold, and warms the cache
	cold := time.Since(start)

	var total time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		compileOnce(b, ctx, &Options{CacheDir: dir}, wasm)
		total += time.Since(start)
		n++
	}
	b.ReportMetric(float64(cold.Nanoseconds()), "cold-ns")
	b.ReportMetric(float64(total)/float64(n)/float64(cold), "cached/cold")
}

func BenchmarkRunWarm(b *testing.B) {
	wasm := benchFib(b)
	native := testkit.Path(b, "fib", true)
	want := fibWant(runN)
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			ctx := context.Background()
			r, err := New(ctx, &Options{NoCache: true, Interpreter: eng.interpreter})
			require.NoError(b, err)
			defer r.Close(ctx)
			m, err := r.Compile(ctx, wasm)
			require.NoError(b, err)
			benchVersusNative(b, m, native, runN, want)
		})
	}
}

// benchVersusNative times one warm run of m per iteration, and, with the
// timer stopped, one native subprocess of the same program, and reports
// their ratio (x-native) and the native time.
func benchVersusNative(b *testing.B, m *CompiledModule, native string, n int, want string) {
	ctx := context.Background()
	var wasmTime, nativeTime time.Duration
	runs := 0
	for b.Loop() {
		var stdout strings.Builder
		start := time.Now()
		res, err := m.Run(ctx, &RunConfig{Args: []string{strconv.Itoa(n)}, Stdout: &stdout})
		wasmTime += time.Since(start)
		require.NoError(b, err, "fib(%d)", n)
		require.Zero(b, res.ExitCode, "fib(%d): exit code", n)
		require.Equal(b, want, stdout.String(), "fib(%d)", n)
		b.StopTimer()
		start = time.Now()
		runNative(b, native, n, want)
		nativeTime += time.Since(start)
		runs++
		b.StartTimer()
	}
	b.ReportMetric(float64(nativeTime.Nanoseconds())/float64(runs), "native-ns/op")
	b.ReportMetric(float64(wasmTime)/float64(nativeTime), "x-native")
}

func runNative(b *testing.B, path string, n int, want string) {
	out, err := exec.Command(path, strconv.Itoa(n)).Output()
	require.NoError(b, err, "native fib(%d)", n)
	require.Equal(b, want, string(out), "native fib(%d)", n)
}

func BenchmarkNativeSubprocess(b *testing.B) {
	native := testkit.Path(b, "fib", true)
	want := fibWant(runN)
	for b.Loop() {
		runNative(b, native, runN, want)
	}
}

// BenchmarkTimeoutCost measures what enforceable timeouts cost: wazero
// checks for a done context in compiled code (WithCloseOnContextDone), on
// every Runtime of this package. Each iteration runs fib(30) on a Runtime
// with the checks and on one without (Options.uninterruptible), so the
// two see the same machine; on/off is their ratio.
func BenchmarkTimeoutCost(b *testing.B) {
	const n = 30
	wasm := benchFib(b)
	want := fibWant(n)
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			if eng.interpreter {
				b.Skip("fib(30) takes minutes in the interpreter; the checks cost the same kind of branch there")
			}
			ctx := context.Background()
			modules := map[bool]*CompiledModule{}
			for _, checks := range []bool{true, false} {
				r, err := New(ctx, &Options{NoCache: true, Interpreter: eng.interpreter, uninterruptible: !checks})
				require.NoError(b, err)
				defer r.Close(ctx)
				m, err := r.Compile(ctx, wasm)
				require.NoError(b, err)
				modules[checks] = m
			}
			times := map[bool]time.Duration{}
			runs := 0
			for b.Loop() {
				for _, checks := range []bool{true, false} {
					var stdout strings.Builder
					start := time.Now()
					res, err := modules[checks].Run(ctx, &RunConfig{Args: []string{strconv.Itoa(n)}, Stdout: &stdout, Timeout: time.Hour})
					times[checks] += time.Since(start)
					require.NoError(b, err, "fib(%d) checks=%v", n, checks)
					require.Zero(b, res.ExitCode, "fib(%d) checks=%v: exit code", n, checks)
					require.Equal(b, want, stdout.String(), "fib(%d) checks=%v", n, checks)
				}
				runs++
			}
			b.ReportMetric(float64(times[true].Nanoseconds())/float64(runs), "on-ns/op")
			b.ReportMetric(float64(times[false].Nanoseconds())/float64(runs), "off-ns/op")
			b.ReportMetric(float64(times[true])/float64(times[false]), "on/off")
		})
	}
}

// TestFibGuest keeps the benchmark guest honest: the same answer from the
// module and from the native build.
func TestFibGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second guest")
	}
	const n = 15
	want := fibWant(n)
	out, err := exec.Command(testkit.Path(t, "fib", true), strconv.Itoa(n)).Output()
	require.NoError(t, err, "native fib(%d)", n)
	require.Equal(t, want, string(out), "native fib(%d)", n)
	ctx := context.Background()
	r, err := New(ctx, &Options{NoCache: true, Interpreter: true})
	require.NoError(t, err)
	defer r.Close(ctx)
	m, err := r.Compile(ctx, testkit.Wasm(t, "fib"))
	require.NoError(t, err)
	var stdout strings.Builder
	res, err := m.Run(ctx, &RunConfig{Args: []string{fmt.Sprint(n)}, Stdout: &stdout})
	require.NoError(t, err, "wasm fib(%d)", n)
	require.Zero(t, res.ExitCode, "wasm fib(%d): exit code", n)
	require.Equal(t, want, stdout.String(), "wasm fib(%d)", n)
}
