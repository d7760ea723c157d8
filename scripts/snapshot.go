package scripts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/sandbox"
)

// Interpreter snapshots: a Python run starts from the interpreter
// initialised once (interp.Snapshot, sandbox.Snapshot) rather than from
// _start, which saves CPython's start-up and the common imports on every
// run (about 150 ms of a 170 ms `print(1+1)`).
//
// The Runner keeps one snapshot per interpreter module and mode
// (deterministic or not) in memory, on the compiled module, for as long
// as the module stays compiled: the warm path of `skillrun mcp`, sessions,
// `skillrun test` and bench. With a disk cache it also keeps the snapshot
// in a file under <cache>/snapshots, keyed by everything the
// initialisation read (the module's path, size and time, the
// interpreter's version, skillrun's files beside the standard library,
// the environment and mode), so that a one-shot `skillrun run` reads it
// (a few milliseconds) instead of initialising (150 ms). A file that
// cannot be read or does not check out is made again.

// runnable is what starts a run: a compiled module (from _start) or a
// snapshot of one.
type runnable interface {
	Run(ctx context.Context, cfg *sandbox.RunConfig) (*sandbox.Result, error)
}

// snapshotHeadroom is the memory a run from a snapshot must have beyond
// the snapshot's own, or it starts fresh: a script gets at least this
// much to work in, as it would have had after a fresh start that imports
// less.
const snapshotHeadroom = 32 << 20

// maxSnapshotFile bounds a snapshot file read from the disk cache.
const maxSnapshotFile = 1 << 30

// startFrom returns what starts a run of the interpreter in with
// arguments args (its own, the script, the script's) and environment env:
// the interpreter's snapshot, with mounts reordered so that the
// snapshot's come first, or m itself with mounts unchanged when the run
// cannot start from a snapshot (no snapshot for the interpreter, an
// environment that would change its initialisation, too little memory,
// snapshots turned off, or one that cannot be made).
func (r *Runner) startFrom(ctx context.Context, m *sandbox.CompiledModule, in *SourceInterpreter, args, env []string,
	mounts []sandbox.Mount, memory uint64, deterministic bool) (runnable, []sandbox.Mount) {
	// memory is the run's limit, 0 for the sandbox's default.
	if r.noSnapshots || in.Snapshot == nil || !in.Snapshot.Usable(args, env) || deterministic && in.Snapshot.RealClock {
		return m, mounts
	}
	own := make([]sandbox.Mount, len(in.Mounts))
	copy(own, in.Mounts)
	key := snapshotKey(in, deterministic)
	if in.Snapshot.MemoryOnly && !r.seenBefore(key) {
		// A snapshot kept in memory pays off from the second run on: the
		// first runs fresh, so a Runner that runs the interpreter once (a
		// one-shot command in its own process) does not make one.
		return m, mounts
	}
	s, err := m.SnapshotOnce(ctx, key, func(ctx context.Context) (*sandbox.Snapshot, error) {
		return r.loadOrMakeSnapshot(ctx, m, in, own, key, deterministic)
	})
	if memory == 0 {
		memory = sandbox.DefaultMemory
	}
	if err != nil || memory < uint64(s.Size())+snapshotHeadroom {
		return m, mounts
	}
	ordered := append([]sandbox.Mount{}, own...)
	for _, mt := range mounts {
		if !slices.ContainsFunc(own, func(o sandbox.Mount) bool { return o.GuestPath == mt.GuestPath }) {
			ordered = append(ordered, mt)
		}
	}
	return s, ordered
}

// seenBefore counts a run of the interpreter under key and reports
// whether there was one before it.
func (r *Runner) seenBefore(key string) bool {
	v, _ := r.starts.LoadOrStore(key, new(atomic.Int32))
	return v.(*atomic.Int32).Add(1) > 1
}

// snapshotKey names a snapshot of in: everything its initialisation read.
func snapshotKey(in *SourceInterpreter, deterministic bool) string {
	h := sha256.New()
	fi, err := os.Stat(in.Module)
	var size, mtime int64
	if err == nil {
		size, mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	fmt.Fprintf(h, "snapshot 1\x00%s\x00%d\x00%d\x00%s\x00%s\x00%t\x00", in.Module, size, mtime, in.Version,
		in.Snapshot.Fingerprint(), deterministic)
	for _, kv := range in.Env {
		fmt.Fprintf(h, "%s\x00", kv)
	}
	for _, mt := range in.Mounts {
		fmt.Fprintf(h, "%s\x00%s\x00", mt.HostDir, mt.GuestPath)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// snapshotName is the program name (argv[0]) of an interpreter's
// initialisation.
var snapshotName = map[string]string{interp.Python: "python3", interp.JS: "node", interp.JSTS: "node", interp.Shell: "sh"}

// loadOrMakeSnapshot reads the snapshot of key from the disk cache, or
// makes it and writes it there.
func (r *Runner) loadOrMakeSnapshot(ctx context.Context, m *sandbox.CompiledModule, in *SourceInterpreter,
	mounts []sandbox.Mount, key string, deterministic bool) (*sandbox.Snapshot, error) {
	file := ""
	if d := r.sb.CacheDir(); d != "" && !in.Snapshot.MemoryOnly {
		file = filepath.Join(d, "snapshots", key+".snap")
		if s, err := readSnapshotFile(m, file); err == nil {
			return s, nil
		}
	}
	var diag strings.Builder
	s, err := m.Snapshot(ctx, &sandbox.SnapshotConfig{
		Init:  in.Snapshot.Init,
		Entry: in.Snapshot.Entry,
		Config: sandbox.RunConfig{
			Name:          snapshotName[in.Language],
			Env:           in.Env,
			Mounts:        mounts,
			Stdout:        &diag,
			Stderr:        &diag,
			Timeout:       2 * time.Minute,
			Deterministic: deterministic,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(diag.String()))
	}
	if file != "" {
		_ = writeSnapshotFile(s, file) // a snapshot not kept is made again next time
	}
	return s, nil
}

// readSnapshotFile reads a snapshot file of the disk cache.
func readSnapshotFile(m *sandbox.CompiledModule, file string) (*sandbox.Snapshot, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSnapshotFile {
		return nil, errors.New("not a snapshot file")
	}
	return m.ReadSnapshot(io.LimitReader(f, maxSnapshotFile))
}

// writeSnapshotFile writes s to file through a temporary file and a
// rename, so that a reader never sees half of it.
func writeSnapshotFile(s *sandbox.Snapshot, file string) error {
	return safefile.WriteAtomic(file, 0o600, func(w io.Writer) error {
		_, err := s.WriteTo(w)
		return err
	})
}
