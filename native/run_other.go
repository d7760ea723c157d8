//go:build !linux

package native

import (
	"context"
	"fmt"
	"runtime"
)

// Check refuses: the native tier confines with Linux namespaces and
// Landlock, which this system does not have.
func Check() error {
	return fmt.Errorf("%w: it confines with Linux namespaces and Landlock, and this is %s", ErrUnconfined, runtime.GOOS)
}

// Run refuses, as Check: a script never runs unconfined.
func Run(context.Context, *Spec) (*Result, error) { return nil, Check() }

// Main does nothing off Linux.
func Main() {}
