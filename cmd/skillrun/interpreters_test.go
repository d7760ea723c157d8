package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillrun/skillrun/internal/interp"
)

// TestInterpreterScripts runs testdata/interpreters/*.txtar: Python,
// JavaScript and shell scripts run by `skillrun run` and `skillrun shell`
// under the interpreters in the user cache dir (and wazero's compilation
// cache there, so the tens of MB of interpreter compile once per
// machine). The JavaScript interpreter and the shell are built from this
// tree if needed; CPython for WASI comes
// from `make python`: without it the Python scripts skip, unless
// REQUIRE_TOOLCHAINS=1 (CI), which makes that a failure.
func TestInterpreterScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	skipUnderRace(t)
	dir, err := interp.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{interp.JS, interp.JSTS, interp.Shell} {
		if _, err := interp.Ensure(context.Background(), dir, lang, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, pyErr := interp.Find(dir, interp.Python)
	if pyErr != nil && os.Getenv("REQUIRE_TOOLCHAINS") != "" {
		t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", pyErr)
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	cacheBase := filepath.Dir(filepath.Dir(dir)) // <user cache dir>
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/interpreters",
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			if cond != "python" {
				return false, nil
			}
			return pyErr == nil, nil
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CACHE_HOME", cacheBase)
			env.Setenv("INTERPRETERS", dir)
			return nil
		},
	})
}

// skipUnderRace skips an end-to-end test of interpreter guests under the
// race detector. Their time goes to the guests' file system calls (Go
// host code the detector instruments) for no race the CLI's other tests
// do not cover: 150 s of CI's budget under -race, 30 s without. `make
// test` runs them again without -race, after the race run.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("measured without -race: `make test` runs it in a second go test")
	}
}
