package sandbox

import (
	"errors"
	"fmt"
)

// Sandbox failures. [CompiledModule.Run] returns an error that matches one
// of these with [errors.Is] when it stopped a module for breaking a limit
// or for a trap; the error's text adds the details (which script, which
// limit, what the module did). A module that exits on its own, with any
// exit code, is not a failure: see [Result.ExitCode].
//
// These are skill failures, not host failures: the host is unharmed and the
// [Runtime] stays usable after each of them.
var (
	// ErrTimeout: the run took longer than [RunConfig.Timeout]. A module
	// blocked in a sleep or reading stdin is stopped too.
	ErrTimeout = errors.New("timed out")

	// ErrMemoryLimit: the module asked for more linear memory than
	// [RunConfig.Memory]. The request was refused; what the module did next
	// (Go's runtime exits with code 2, C's malloc returns NULL) does not
	// change the verdict.
	ErrMemoryLimit = errors.New("memory limit reached")

	// ErrOutputLimit: stdout and stderr together exceeded
	// [RunConfig.Output]. The output up to the limit was written; the rest
	// was dropped and the module was stopped.
	ErrOutputLimit = errors.New("output limit reached")

	// ErrTrap: the module executed an instruction that traps (unreachable,
	// an out-of-bounds memory access, integer division by zero, a call
	// stack overflow, ...). The error text carries wazero's message and the
	// module's stack trace.
	ErrTrap = errors.New("trap")
)

// runError is a sandbox failure: a sentinel above, the script's name and a
// sentence of detail. Its text reads "NAME: DETAIL"; errors.Is matches the
// sentinel and, through cause, whatever error wazero reported.
type runError struct {
	name   string // argv[0] of the run
	kind   error  // one of the sentinels
	detail string
	cause  error // wazero's error, if any
}

func (e *runError) Error() string {
	if e.name == "" {
		return e.detail
	}
	return e.name + ": " + e.detail
}

func (e *runError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func newRunError(name string, kind error, cause error, format string, args ...any) error {
	return &runError{name: name, kind: kind, cause: cause, detail: fmt.Sprintf(format, args...)}
}

// A NetRefusedError is a plugin's request through Extism's own
// http_request, which the sandbox always refuses (see [Runtime.CallPlugin]):
// Host is the "host:port" asked for. A skill's script run reports it as a
// net denial (a capabilities.DeniedError).
type NetRefusedError struct {
	Name string // the run's name
	Host string
}

func (e *NetRefusedError) Error() string {
	return fmt.Sprintf("%s: http_request to %s refused: plugins reach the network through skillrun's http_fetch host function", e.Name, e.Host)
}
