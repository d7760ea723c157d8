package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/resident"
	"github.com/skillrun/skillrun/internal/resident/handoff"
	"github.com/skillrun/skillrun/internal/resident/wire"
	"github.com/skillrun/skillrun/scripts"
)

// The resident process (package internal/resident): by default the
// commands of handoff.Verbs (run, shell, test, validate, ...) are handed
// by package handoff's init to a warm skillrun of the same user and
// build, which keeps compiled modules and interpreter snapshots in
// memory; one is started when there is none. The resident runs one
// command at a time, in the client's working directory, environment and
// umask, with the client's stdin, stdout and stderr; a client that finds
// it busy runs the command itself.

// defaultIdle is how long a resident waits for a command before it exits.
const defaultIdle = 2 * time.Minute

func newResidentCmd() *cobra.Command {
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "resident",
		Short: "Serve one-shot commands from a warm process (on by default; SKILLRUN_RESIDENT=0 turns it off)",
		Long: `Resident keeps compiled modules and interpreter snapshots in memory and runs
the commands of this user and this skillrun build handed to it (run, shell,
test, validate, show, catalog, search, deps), one at a time, until none came
for --idle. Those commands start it when it is not running and hand it their
work (the working directory, environment, umask, stdin, stdout and stderr
are the command's own); a command that finds it busy runs in its own
process. SKILLRUN_RESIDENT=0 or --no-resident runs a command in its own
process. Linux only.

Its socket is in <user cache dir>/skillrun/resident, a folder only this user
may enter; a connection from another user is refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := handoff.Socket()
			if err != nil {
				return usageErr("resident: %v", err)
			}
			l, err := resident.Listen(path, wire.ExeID())
			if errors.Is(err, resident.ErrRunning) {
				return nil // one is enough
			}
			if err != nil {
				return usageErr("resident: %v", err)
			}
			residentLog = cmd.ErrOrStderr()
			return serveResident(cmd.Context(), l, idle)
		},
	}
	if d, err := time.ParseDuration(os.Getenv(handoff.IdleEnv)); err == nil && d > 0 {
		idle = d // a command that starts the resident passes its environment
	} else {
		idle = defaultIdle
	}
	cmd.Flags().DurationVar(&idle, "idle", idle, "exit after this long without a command (default: "+handoff.IdleEnv+", else 2m)")
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
// process: its working directory, environment, umask and standard
// streams (the process's, restored afterwards; the resident runs one
// command at a time).
func handleResident(ctx context.Context, req *resident.Request, stdio [3]*os.File) int {
	if len(req.Args) == 0 || !slices.Contains(handoff.Verbs, req.Args[0]) {
		fmt.Fprintf(stdio[2], "skillrun: the resident runs only these commands: %s\n", strings.Join(handoff.Verbs, ", "))
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
	shared.progress.to(stdio[2])
	defer shared.progress.to(nil)
	start := time.Now()
	restore := resident.BindStdio(stdio)
	code := runContext(ctx, req.Args, stdio[0], stdio[1], stdio[2])
	restore()
	fmt.Fprintf(residentLog, "skillrun resident: %s (exit %d, %v)\n", req.Args[0], code, time.Since(start).Round(time.Millisecond))
	return code
}

// residentLog is where a resident says which commands it ran (its own
// stderr: /dev/null when a command started it).
var residentLog io.Writer = io.Discard

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
	on       bool // this process is a resident
	rt       *scripts.Runner
	progress progressSink
}

// A progressSink is where the shared Runner writes the progress of an
// interpreter it builds: the stderr of the command running, nowhere
// between commands (a nested run may outlive its command).
type progressSink struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *progressSink) to(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w = w
}

func (p *progressSink) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		_, _ = p.w.Write(b) // a client that went away loses its progress lines
	}
	return len(b), nil
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
		rt, err := scripts.New(context.WithoutCancel(ctx), &scripts.Options{Interpreters: runInterpreters(&shared.progress), Progress: &shared.progress})
		if err != nil {
			return nil, nil, err
		}
		shared.rt = rt
	}
	return shared.rt, func() {}, nil
}
