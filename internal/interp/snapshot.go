package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

// A Snapshot says how an interpreter's runs start from a snapshot of it
// (sandbox.Snapshot) instead of from _start: the interpreter is
// initialised once, with its standard library mounted and its own
// environment, and each run restores that state and runs its script.
//
// For CPython (pyext/skillrun_main.c) the initialisation is
// Py_InitializeFromConfig, `site` (with skillrun's sitecustomize) and the
// imports nearly every script makes: os, sys, re, json, csv, pathlib,
// argparse, datetime, collections, subprocess and about forty more. A run
// then takes its own argv, environment (os.environ), working directory
// (PWD), sys.path (the script's folder and PYTHONPATH first, as
// `python3 script.py` builds it), time zone and a fresh seed for
// `random`, and runs the script in __main__ as `python3 script.py` does:
// the same tracebacks, exit codes and finalisation.
//
// What a run from the snapshot shares with the others, and a fresh
// process would not:
//
//   - the modules above are already in sys.modules (a script sees them
//     there before importing them; importing them costs nothing);
//   - the hash seed of str and bytes is the snapshot's, as if
//     PYTHONHASHSEED were fixed for the snapshot's lifetime: the
//     iteration order of a set of strings is the same in every run;
//   - the objects made at initialisation are frozen (gc.freeze), so
//     gc.get_freeze_count() is not 0.
//
// A run whose environment would change the initialisation (a PYTHON*
// variable other than the interpreter's own and PYTHONPATH) or whose
// command line is not `python3 SCRIPT ARGS...` starts fresh instead; see
// [Snapshot.Usable].
type Snapshot struct {
	// Init and Entry are the module's exports: Init initialises the
	// interpreter, Entry runs a script on an instance restored from the
	// snapshot.
	Init, Entry string
	// fingerprint identifies what the initialisation reads besides the
	// module (see Fingerprint).
	fingerprint func() string
	// usable reports whether a run can start from the snapshot.
	usable func(args, env []string) bool
	// MemoryOnly keeps the snapshot in memory only, never in a file.
	MemoryOnly bool
	// RealClock starts runs with a virtual clock (deterministic scripts)
	// fresh.
	RealClock bool
}

// Usable reports whether a run with these arguments (the interpreter's
// Args, the script, its arguments) and environment starts from the
// snapshot exactly as it would start fresh.
func (s *Snapshot) Usable(args, env []string) bool { return s.usable(args, env) }

// Fingerprint identifies what the initialisation reads besides the
// module: skillrun's own files beside the standard library. Key a kept
// snapshot by it, the module, the interpreter's version and its
// environment.
func (s *Snapshot) Fingerprint() string { return s.fingerprint() }

// pythonEnvAllowed are the PYTHON* variables a run from the snapshot may
// have: the interpreter's own (the initialisation's, so the same
// values) and PYTHONPATH, which the entry adds to sys.path.
var pythonEnvAllowed = []string{"PYTHONHOME", "PYTHONDONTWRITEBYTECODE", "PYTHONUTF8", "PYTHONNOUSERSITE", "PYTHONPATH"}

// pythonSnapshot is the snapshot of skillrun's CPython (BUILD 5 and
// later exports skillrun_init and skillrun_run).
var pythonSnapshot = &Snapshot{
	Init:  "skillrun_init",
	Entry: "skillrun_run",
	usable: func(args, env []string) bool {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") || !strings.HasPrefix(args[0], "/") {
			return false // options, or no script: not `python3 /path/script.py`
		}
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "PYTHON") && !slices.Contains(pythonEnvAllowed, k) {
				return false
			}
		}
		return true
	},
	fingerprint: pythonFingerprint,
}

// pythonFingerprint hashes skillrun's files beside the standard library,
// which the initialisation imports (sitecustomize) or may import.
var pythonFingerprint = sync.OnceValue(func() string {
	h := sha256.New()
	names := make([]string, 0, len(skillrunFiles))
	for name := range skillrunFiles {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h.Write([]byte(name + "\x00"))
		h.Write(skillrunFiles[name])
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
})

// goSnapshot is the snapshot of the Go guests (the shell, the JavaScript
// interpreter), built as reactors that export skillrun_init and
// skillrun_run (guest/interp/internal/wasiproc). The initialisation is
// Go's runtime and package initialisation (about 5 of the 9 ms a warm
// `echo hi` took); a run takes its own arguments, environment,
// preopened directories, working directory and a fresh random seed, and
// runs main. Every run can start from it.
//
// It is kept in memory only, and runs with a virtual clock start fresh:
// Go's runtime keeps readings of the monotonic clock, which stays
// monotonic within one boot and one real clock, not across a reboot or
// between a virtual clock and the real one.
var goSnapshot = &Snapshot{
	Init:        "skillrun_init",
	Entry:       "skillrun_run",
	usable:      func([]string, []string) bool { return true },
	fingerprint: func() string { return "" },
	MemoryOnly:  true,
	RealClock:   true,
}
