package wasmopt

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wabin/binary"
	"github.com/tetratelabs/wabin/wasm"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
)

func goReactor(t *testing.T) []byte {
	t.Helper()
	return testkit.WasmBuilt(t, "goreactor.wasm", "goreactor", "-buildmode=c-shared")
}

// TestGoReactor: a Go reactor rewritten by GoReactor runs as a command
// (its _start initialises it and calls the entry, whose result is the
// exit code) and can be snapshotted: each run from the snapshot starts
// from the initialised state, and nothing one run changes reaches the
// next; its mutable globals are exported.
func TestGoReactor(t *testing.T) {
	if raceEnabled {
		// wazero's compiler under the race detector takes a minute here.
		t.Skip("run without -race: `make test` runs it in a second go test")
	}
	orig := goReactor(t)
	ctx := context.Background()
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	require.NoError(t, err)
	defer r.Close(ctx)

	_, err = r.Compile(ctx, orig)
	require.ErrorContains(t, err, "_start", "a reactor alone is not runnable")

	rewritten, err := GoReactor(orig, "skillrun_run")
	require.NoError(t, err)
	m, err := r.Compile(ctx, rewritten)
	require.NoError(t, err)
	defer m.Close(ctx)
	run := func(start interface {
		Run(context.Context, *sandbox.RunConfig) (*sandbox.Result, error)
	}, args ...string) (string, uint32) {
		var out bytes.Buffer
		res, err := start.Run(ctx, &sandbox.RunConfig{Name: "goreactor", Args: args, Stdout: &out, Stderr: &out, Timeout: time.Minute})
		require.NoError(t, err, out.String())
		return out.String(), res.ExitCode
	}
	out, code := run(m, "a", "b")
	assert.Equal(t, "counter 42 [a b]\n", out)
	assert.Equal(t, uint32(3), code, "_start exits with the entry's result")

	s, err := m.Snapshot(ctx, &sandbox.SnapshotConfig{Init: "skillrun_init", Entry: "skillrun_run",
		Config: sandbox.RunConfig{Name: "goreactor", Args: []string{"init"}, Timeout: time.Minute}})
	require.NoError(t, err)
	for range 3 {
		out, code = run(s, "ignored")
		assert.Equal(t, "counter 42 [init]\n", out, "the initialisation's state, not the last run's (the arguments are the init's: this guest does not refresh them)")
		assert.Equal(t, uint32(3), code)
	}

	merged, _, err := MergeData(orig)
	require.NoError(t, err)
	dec, err := binary.DecodeModule(rewritten, wasm.CoreFeaturesV2)
	require.NoError(t, err)
	globals := 0
	for _, e := range dec.ExportSection {
		if e.Type == wasm.ExternTypeGlobal {
			globals++
		}
	}
	assert.Positive(t, globals, "Go's globals are exported")
	_, n, err := ExportGlobals(merged)
	require.NoError(t, err)
	assert.Equal(t, globals, n)
}

// TestGoReactorRefuses: a command (it has a _start), a module without
// the entry, an entry of another type and garbage are errors that say
// what is wrong.
func TestGoReactorRefuses(t *testing.T) {
	_, err := GoReactor(testkit.Wasm(t, "fib"), "skillrun_run")
	assert.ErrorContains(t, err, "already has a _start")
	_, err = GoReactor(goReactor(t), "no_such_entry")
	assert.ErrorContains(t, err, `no "no_such_entry"`)
	_, err = GoReactor(goReactor(t), "_initialize")
	assert.ErrorContains(t, err, "is not () -> i32")
	_, err = GoReactor([]byte("\x00asm garbage"), "skillrun_run")
	assert.ErrorContains(t, err, "decoding the module")

	again, err := GoReactor(goReactor(t), "skillrun_run")
	require.NoError(t, err)
	_, err = GoReactor(again, "skillrun_run")
	assert.ErrorContains(t, err, "already has a _start", "a module is rewritten once")
}
