// Command skillrun-client is the small skillrun that a release installs
// as `skillrun`, beside the full binary installed as `skillrun-engine`.
// It hands the commands the resident serves (run, shell, test, validate,
// show, catalog, search, deps) to the engine's resident as the full
// binary's early init would, and replaces itself with the engine for
// everything else, or when the resident does not take the command (off,
// busy, not started yet, another namespace): the engine then starts the
// resident and runs the command itself.
//
// Why a second binary: a Go program's start costs in proportion to what
// it links, before any of its code runs (the runtime registers every
// interface table and faults in the pages it touches). The full binary
// carries the MCP and provider SDKs, wazero and the JSON Schema tables,
// so even its earliest init is reached some 10 ms later than this one's
// main; for a one-shot `skillrun shell -c` that is most of the time the
// resident does not spend running the shell. The full binary keeps its
// own early handoff (package handoff/early), so `go install` of
// cmd/skillrun alone stays a complete skillrun.
//
// The engine is $SKILLRUN_ENGINE when set (an absolute path), else
// skillrun-engine in the folder of this executable (symlinks resolved).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillrun/skillrun/internal/resident/handoff"
)

// EngineEnv names the full skillrun binary in place of the one beside
// this client.
const EngineEnv = "SKILLRUN_ENGINE"

// EngineName is the full binary's name beside the client.
const EngineName = "skillrun-engine"

// exitNoEngine is the exit code when there is no engine to run
// (docs/contracts/exit-codes.md): a shell's "command not found".
const exitNoEngine = 127

func main() {
	engine, err := enginePath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "skillrun: %v\n", err)
		os.Exit(exitNoEngine)
	}
	if code, ok := handoff.HandoffTo(engine, os.Args[1:], [3]int{0, 1, 2}, nil); ok {
		os.Exit(code)
	}
	code, err := runEngine(engine, os.Args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "skillrun: starting %s: %v\n", engine, err)
	}
	os.Exit(code)
}

// enginePath returns the full binary's absolute, symlink-free path (the
// resident's identity is its /proc/self/exe), or an error that says
// where it was looked for.
func enginePath() (string, error) {
	if p := os.Getenv(EngineEnv); p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s=%s is not an absolute path", EngineEnv, p)
		}
		return resolve(p, EngineEnv+"="+p)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this executable's folder (%w); set %s to the full skillrun binary", err, EngineEnv)
	}
	if s, err := filepath.EvalSymlinks(self); err == nil {
		self = s
	}
	p := filepath.Join(filepath.Dir(self), EngineName)
	return resolve(p, "beside "+self)
}

func resolve(p, where string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(r); err == nil && (st.IsDir() || st.Mode().Perm()&0o111 == 0) {
			err = fmt.Errorf("not an executable file")
		}
	}
	if err != nil {
		return "", fmt.Errorf("no full skillrun binary (%s) %s: %w; this small client runs commands through it (set %s to its path)", EngineName, where, err, EngineEnv)
	}
	return r, nil
}
