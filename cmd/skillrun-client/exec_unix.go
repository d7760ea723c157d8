//go:build unix

package main

import (
	"os"
	"syscall"
)

// runEngine replaces this process with the engine, keeping argv[0], the
// environment, the descriptors and the process itself (its signals and
// exit code are the engine's). It returns only on failure.
func runEngine(engine string, args []string) (int, error) {
	return exitNoEngine, syscall.Exec(engine, args, os.Environ())
}
