package scripts

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
)

// TestWarmInterpreters compiles every interpreter into the compile cache
// the test binaries share (wazero keys it by its version, which reads
// "dev" in a test binary, so `make interpreters` fills another one).
// `make test` runs it first, without the race detector: under it, wazero
// compiling a 20 MB interpreter inside another test takes minutes and
// pushes that test's runs past their timeouts.
func TestWarmInterpreters(t *testing.T) {
	if raceEnabled {
		t.Skip("make test runs it without -race, before the rest")
	}
	r := sourceRunner(t)
	for _, lang := range []string{interp.Shell, interp.JS, interp.Python} {
		find := interpreters(t, lang)
		langs := []string{lang}
		if lang == interp.JS {
			langs = append(langs, interp.JSTS)
		}
		for _, l := range langs {
			in, err := find(context.Background(), l)
			require.NoError(t, err, l)
			_, err = r.compileInterpreter(context.Background(), in.Module)
			require.NoError(t, err, l)
		}
	}
}
