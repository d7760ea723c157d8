package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHammer runs one CompiledModule from many goroutines at once (wazero
// RATIONALE §Hammer tests): 16 goroutines × 10 runs, each with its own
// args, stdin and stdout, some of them hitting a limit. Under -race this
// checks that runs share nothing they should not.
func TestHammer(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 160 runs of one module from 16 goroutines (1.5 s); the full suite runs it")
	}
	const goroutines, runs = 16, 10
	e := sharedEnv(t, false)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*runs)
	for g := range goroutines {
		wg.Go(func() {
			for i := range runs {
				id := fmt.Sprintf("g%d-r%d", g, i)
				var stdout strings.Builder
				cfg := &RunConfig{
					Name:   "hammer",
					Args:   []string{"echo", id},
					Stdin:  strings.NewReader("stdin of " + id + "\n"),
					Stdout: &stdout,
				}
				if i%5 == 4 { // every fifth run floods its own small output limit
					cfg.Args = []string{"flood", "100000"}
					cfg.Output = 1000
				}
				res, err := e.hostile.Run(ctx, cfg)
				switch {
				case cfg.Output == 1000:
					if !errors.Is(err, ErrOutputLimit) || stdout.Len() != 1000 || res.OutputBytes != 1000 {
						errs <- fmt.Errorf("%s: flood: %w, %d bytes captured", id, err, stdout.Len())
					}
				case err != nil || res.ExitCode != 0:
					errs <- fmt.Errorf("%s: %+v, %w", id, res, err)
				default:
					if want := fmt.Sprintf("arg: %q\nstdin of %s\n", id, id); stdout.String() != want {
						errs <- fmt.Errorf("%s: stdout %q, want %q", id, stdout.String(), want)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	e.assertUsable(t)
}
