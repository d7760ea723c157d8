//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// runEngine runs the engine as a child with this process's stdio and
// returns its exit code (there is no exec(2) here).
func runEngine(engine string, args []string) (int, error) {
	cmd := exec.Command(engine, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return exitNoEngine, err
	}
	return 0, nil
}
