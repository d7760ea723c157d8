//go:build wasip1

package main

import "github.com/skillrun/skillrun/guest/interp/internal/wasiproc"

// The shell as a WASI reactor, for runs from a snapshot
// (sandbox.Snapshot). Built with -buildmode=c-shared, the module's
// _initialize runs Go's runtime and package initialisation; skillrun_init
// does nothing more, and the host keeps the instance's memory and
// globals. Every run then starts from that state and calls skillrun_run,
// which takes this run's process state from WASI (package wasiproc) and
// runs main as the command would. The build adds a _start that does
// both, for runs that start fresh (wasmopt.GoReactor).

//go:wasmexport skillrun_init
func skillrunInit() int32 { return 0 }

//go:wasmexport skillrun_run
func skillrunRun() int32 {
	if err := wasiproc.Refresh(); err != nil {
		println("sh: cannot start from the snapshot:", err.Error())
		return exitLimit
	}
	main() // exits
	return 0
}
