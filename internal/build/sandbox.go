package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/skillrun/skillrun/internal/landlock"
	"github.com/skillrun/skillrun/internal/seccomp"
)

// ErrUnconfined is matched (with errors.Is) by the error [Script] returns
// when the toolchain cannot be confined on this system (no Landlock with
// network rules: Linux 6.7 or later) and [Options].Unconfined is not set.
// Building a stranger's skill unconfined lets its sources read any file
// the user can (C's .incbin, Rust's include_bytes!), so it is refused
// unless the caller accepts that risk.
var ErrUnconfined = errors.New("the build cannot be confined on this system")

// sandboxEnv carries a confined command's [sandboxSpec], as JSON, to the
// re-executed binary. sandboxArg is its argv[1], so a stray variable in
// the environment of an ordinary run does nothing.
const (
	sandboxEnv = "SKILLRUN_BUILD_SANDBOX"
	sandboxArg = "__skillrun-build-sandbox"
)

// minLandlockABI is the oldest Landlock ABI that confines a build: ABI 4
// (Linux 6.7) adds TCP bind and connect rules to the file system rules.
const minLandlockABI = 4

// A sandboxSpec is what the re-executed binary confines itself to before
// it executes the toolchain command Path with Args and Env.
type sandboxSpec struct {
	// RO are files and folders readable and executable; RW are folders
	// readable and writable (the private build folder, Go's cache).
	RO, RW []string
	Path   string
	Args   []string
	Env    []string
}

// SandboxMain confines and runs a toolchain command when this process was
// started for that by [Script]; otherwise it returns at once. A binary
// that builds skills calls it first thing in main (skillrun does, in an
// init function of package main) and so does a test binary that builds
// skills, in TestMain: [Script] starts the toolchain by re-executing the
// running binary (os.Executable) so that the confinement applies to the
// toolchain and everything it starts, and never to skillrun itself.
//
// When it does not return, it executes the toolchain in its place, or
// exits with status 125 and the reason on stderr if it cannot confine it.
func SandboxMain() {
	spec := os.Getenv(sandboxEnv)
	if spec == "" || len(os.Args) < 2 || os.Args[1] != sandboxArg {
		return
	}
	if err := sandboxExec(spec); err != nil {
		fmt.Fprintf(os.Stderr, "skillrun build sandbox: %v\n", err)
		os.Exit(125)
	}
}

// sandboxExec applies the Landlock ruleset spec describes to this
// process's thread and replaces the process with the toolchain from that
// thread. A Landlock domain survives execve and binds every descendant,
// so compile and link steps are confined too. Restricting one thread
// suffices because execve discards the others; restricting all of a Go
// process's threads would need libcap's psx (a cgo pthread wrapper) or
// Linux 6.16's TSYNC flag.
func sandboxExec(raw string) error {
	var s sandboxSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return fmt.Errorf("reading the sandbox spec: %w", err)
	}
	runtime.LockOSThread() // never unlocked: this thread execs or exits
	abi, err := landlockABI()
	if err != nil {
		return fmt.Errorf("confining the build with Landlock: %w", err)
	}
	if err := landlock.Restrict(abi, s.RO, s.RW); err != nil {
		return fmt.Errorf("confining the build with Landlock: %w", err)
	}
	// Landlock before ABI 9 leaves pathname UNIX sockets open: the
	// user's resident, agents and buses stay out of reach this way.
	if err := seccomp.DenyUnixSockets(); err != nil {
		return fmt.Errorf("confining the build: %w", err)
	}
	if err := syscall.Exec(s.Path, s.Args, s.Env); err != nil {
		return fmt.Errorf("executing %s: %w", s.Path, err)
	}
	return nil
}

// landlockVersionFunc is landlockVersion; tests replace it to act out a
// kernel without Landlock.
var landlockVersionFunc = landlock.Version

// landlockABI returns the kernel's Landlock ABI version, or an error
// matching ErrUnconfined that says why it cannot confine a build.
func landlockABI() (int, error) {
	if runtime.GOOS != "linux" {
		return 0, fmt.Errorf("%w: confinement uses Landlock, which needs Linux (this is %s)", ErrUnconfined, runtime.GOOS)
	}
	abi, err := landlockVersionFunc()
	if err != nil {
		return 0, fmt.Errorf("%w: Landlock is not available (%w); it needs Linux 6.7 or later with Landlock enabled (lsm=landlock)", ErrUnconfined, err)
	}
	if abi < minLandlockABI {
		return 0, fmt.Errorf("%w: the kernel's Landlock ABI is %d, and denying the build network access needs ABI %d (Linux 6.7 or later)", ErrUnconfined, abi, minLandlockABI)
	}
	return abi, nil
}

// sandboxCommand returns the command that runs tool with args and env in
// dir, confined to read ro and write rw, by re-executing this binary
// through [SandboxMain].
func sandboxCommand(ctx context.Context, tool string, args, env, ro, rw []string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding skillrun's own binary to confine the build: %w", err)
	}
	spec, err := json.Marshal(sandboxSpec{RO: ro, RW: rw, Path: tool, Args: append([]string{tool}, args...), Env: env})
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, sandboxArg)
	cmd.Env = []string{sandboxEnv + "=" + string(spec)}
	return cmd, nil
}
