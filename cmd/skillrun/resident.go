package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/buildid"
	"github.com/skillrun/skillrun/internal/resident"
	"github.com/skillrun/skillrun/scripts"
)

// The resident process (package internal/resident): with
// SKILLRUN_RESIDENT=1, `skillrun run` hands its command to a warm
// skillrun of the same user and build, which keeps compiled modules and
// interpreter snapshots in memory, and starts one when there is none.
// The resident runs one command at a time, in the client's working
// directory, environment and umask, with the client's stdin, stdout and
// stderr; a client that finds it busy runs the command itself.

// residentEnv turns the resident on for `skillrun run`.
const residentEnv = "SKILLRUN_RESIDENT"

// defaultIdle is how long a resident waits for a command before it exits.
const defaultIdle = 2 * time.Minute

func newResidentCmd() *cobra.Command {
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "resident",
		Short: "Serve one-shot `skillrun run` commands from a warm process (SKILLRUN_RESIDENT=1)",
		Long: `Resident keeps compiled modules and interpreter snapshots in memory and runs
the ` + "`skillrun run`" + ` commands of this user and this skillrun build handed to it,
one at a time, until none came for --idle. With SKILLRUN_RESIDENT=1,
` + "`skillrun run`" + ` starts it when it is not running and hands it its command
(the working directory, environment, umask, stdin, stdout and stderr are
the command's own); otherwise nothing uses it. Linux only.

Its socket is in <user cache dir>/skillrun/resident, a folder only this user
may enter; a connection from another user is refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := residentSocket()
			if err != nil {
				return usageErr("resident: %v", err)
			}
			l, err := resident.Listen(path)
			if errors.Is(err, resident.ErrRunning) {
				return nil // one is enough
			}
			if err != nil {
				return usageErr("resident: %v", err)
			}
			return serveResident(cmd.Context(), l, idle)
		},
	}
	cmd.Flags().DurationVar(&idle, "idle", defaultIdle, "exit after this long without a command")
	return cmd
}

// serveResident serves l until idle passes without a command.
func serveResident(ctx context.Context, l *resident.Listener, idle time.Duration) error {
	shared.Lock()
	shared.on = true
	shared.Unlock()
	defer func() {
		shared.Lock()
		defer shared.Unlock()
		if shared.rt != nil {
			_ = shared.rt.Close(context.WithoutCancel(ctx))
		}
		shared.on, shared.rt = false, nil
	}()
	return resident.Serve(ctx, l, idle, handleResident)
}

// handleResident runs one client's command as if in the client's
// process: its working directory, environment and umask (the process's,
// restored afterwards; the resident runs one command at a time).
func handleResident(ctx context.Context, req *resident.Request, stdio [3]*os.File) int {
	if len(req.Args) == 0 || req.Args[0] != "run" {
		fmt.Fprintln(stdio[2], "skillrun: the resident runs `skillrun run` commands only")
		return exitUsage
	}
	wd, _ := os.Getwd()
	env := os.Environ()
	defer func() {
		_ = os.Chdir(wd)
		setEnv(env)
	}()
	if err := os.Chdir(req.Dir); err != nil {
		fmt.Fprintf(stdio[2], "skillrun: %v\n", err)
		return exitUsage
	}
	setEnv(req.Env)
	defer resident.Umask(resident.Umask(req.Umask))
	return runContext(ctx, req.Args, stdio[0], stdio[1], stdio[2])
}

// setEnv replaces the process's environment with env.
func setEnv(env []string) {
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			_ = os.Setenv(k, v)
		}
	}
}

// shared is the Runner a resident keeps for every command it runs.
var shared struct {
	sync.Mutex
	on bool // this process is a resident
	rt *scripts.Runner
}

// scriptsRunner returns the Runner for one command and what to do when
// the command is done: a new Runner, closed then, or a resident's
// shared one, kept.
func scriptsRunner(ctx context.Context, stderr io.Writer) (*scripts.Runner, func(), error) {
	shared.Lock()
	defer shared.Unlock()
	if !shared.on {
		rt, err := scripts.New(ctx, &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr})
		if err != nil {
			return nil, nil, err
		}
		return rt, func() { _ = rt.Close(context.WithoutCancel(ctx)) }, nil
	}
	if shared.rt == nil {
		// Progress lines of interpreters built for nested runs go nowhere:
		// the Runner outlives the command whose stderr it would keep.
		rt, err := scripts.New(context.WithoutCancel(ctx), &scripts.Options{Interpreters: runInterpreters(io.Discard)})
		if err != nil {
			return nil, nil, err
		}
		shared.rt = rt
	}
	return shared.rt, func() {}, nil
}

// residentSocket is the resident's socket for this build and user cache.
func residentSocket() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	id := buildid.Executable()
	if id == "" {
		return "", errors.New("cannot identify this executable")
	}
	return resident.SocketPath(filepath.Join(base, "skillrun", "resident"), id)
}

// viaResident hands `skillrun run` to the resident when SKILLRUN_RESIDENT
// is 1, and reports whether it did (with the exit code). When no resident
// answers it starts one for the next command and lets this one run
// here, as it does when the resident is busy or refuses.
func viaResident(args []string) (int, bool) {
	if os.Getenv(residentEnv) != "1" || len(args) == 0 || args[0] != "run" {
		return 0, false
	}
	path, err := residentSocket()
	if err != nil {
		return 0, false
	}
	dir, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	mask := resident.Umask(0)
	resident.Umask(mask)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := resident.Call(ctx, path, &resident.Request{Args: args, Dir: dir, Env: os.Environ(), Umask: mask},
		[3]*os.File{os.Stdin, os.Stdout, os.Stderr})
	switch {
	case ctx.Err() != nil:
		return 130, true // interrupted: the resident stops the command
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT):
		spawnResident()
		return 0, false
	case err != nil:
		// The resident died during the command, which may have done part
		// of its work: running it again here could do it twice.
		fmt.Fprintf(os.Stderr, "skillrun: %v (unset %s to run commands in their own process)\n", err, residentEnv)
		return exitSandbox, true
	case rep.Busy || rep.Error != "":
		return 0, false
	}
	return rep.Code, true
}

// spawnResident starts a resident for the next command (a variable, so
// that tests, whose executable is the test binary, do not).
var spawnResident = startResident

// residentIdleEnv sets --idle of a resident a command starts.
const residentIdleEnv = "SKILLRUN_RESIDENT_IDLE"

// startResident starts `skillrun resident` in the background, detached
// from this process's session and stdio, for the next command.
func startResident() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	args := []string{"resident"}
	if idle, err := time.ParseDuration(os.Getenv(residentIdleEnv)); err == nil && idle > 0 {
		args = append(args, "--idle", idle.String())
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = detached()
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}
