package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// A Snapshot is an instance of a module frozen right after an
// initialisation function of the module ran: its linear memory and its
// exported mutable globals. Each [Snapshot.Run] starts a fresh instance
// from that state and calls the module's entry function, so what the
// initialisation did (an interpreter's start-up and imports, 100 ms and
// more for CPython) is paid once instead of by every run.
//
// A run from a snapshot is as isolated as any other: a fresh instance
// with its own copy of the memory, its own descriptors, limits, mounts and
// audit; nothing one run does is seen by the next. What it shares with
// the others is what the initialisation computed, which is the same for
// all of them.
//
// WASI state is not part of a snapshot: arguments, environment, clocks,
// random source, stdio and descriptors are the run's. A guest's entry
// function must take them from WASI rather than from what its
// initialisation cached (python.wasm's skillrun_run re-reads the
// environment and registers the run's mounts with its C library). To
// make that possible, every run mounts the initialisation's mounts first,
// at the same guest paths, and sees them and "/" at the descriptors the
// initialisation saw; the run's own mounts come after.
//
// A Snapshot holds its module: it fails with the module's error once the
// module is closed. It is safe for concurrent use.
type Snapshot struct {
	m       *CompiledModule
	entry   string
	mounts  []string // guest paths of the init's mounts, which every run mounts first
	pages   uint32   // the memory's size, in pages
	memory  []byte   // the memory up to its last non-zero byte
	globals []savedGlobal
}

// savedGlobal is an exported mutable global's value at the snapshot.
type savedGlobal struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// A SnapshotConfig says how to make a [Snapshot].
type SnapshotConfig struct {
	// Init is the exported function that initialises the instance, of
	// type () -> i32; it returns 0 on success. A reactor's _initialize,
	// if the module exports one, is called first.
	Init string
	// Entry is the exported function every run calls, of type () -> i32;
	// it returns the run's exit code (or exits with proc_exit).
	Entry string
	// Config is the initialisation's run: its environment, mounts, stdio
	// (for its diagnostics) and limits. Its Mounts are mounted by every
	// run too, first and at the same guest paths; none may be "/".
	Config RunConfig
}

// Snapshot runs sc.Init on a fresh instance of the module under
// sc.Config and keeps the instance's memory and exported mutable globals.
//
// A module whose state lives elsewhere cannot be snapshotted, and
// Snapshot says why: a mutable global that is not exported (wazero can
// only read and set exported ones; link with --export=__stack_pointer),
// or code that changes tables or drops segments (table.set, table.grow,
// elem.drop, data.drop, ...). An Init or Entry that is not exported with
// the type () -> i32 is an error, as is an Init that fails: a trap, a
// limit, an exit, or a result other than 0.
func (m *CompiledModule) Snapshot(ctx context.Context, sc *SnapshotConfig) (*Snapshot, error) {
	if m.unsnapshottable != "" {
		return nil, fmt.Errorf("cannot snapshot the module: %s", m.unsnapshottable)
	}
	if err := m.checkEntries(sc.Init, sc.Entry); err != nil {
		return nil, err
	}
	s := &Snapshot{m: m, entry: sc.Entry}
	for _, mt := range sc.Config.Mounts {
		if mt.GuestPath == "/" {
			return nil, errors.New("cannot snapshot with a mount at /: runs from the snapshot need the guest root to place their own mounts")
		}
		s.mounts = append(s.mounts, mt.GuestPath)
	}
	var status uint32
	body := func(ctx context.Context, mod api.Module, result *Result) error {
		if f := mod.ExportedFunction("_initialize"); f != nil {
			if _, err := f.Call(ctx); err != nil {
				return err
			}
		}
		res, err := mod.ExportedFunction(sc.Init).Call(ctx)
		if err != nil {
			if exit, ok := errors.AsType[*sys.ExitError](err); ok {
				result.ExitCode = exit.ExitCode()
			}
			return err
		}
		if status = uint32(res[0]); status != 0 {
			return nil
		}
		return s.capture(mod)
	}
	cfg := sc.Config
	if cfg.Name == "" {
		cfg.Name = sc.Init
	}
	res, err := m.runWith(ctx, &cfg, runPlan{body: body, rootAt: rootAtEnd})
	switch {
	case err != nil:
		return nil, fmt.Errorf("snapshot: %w", err)
	case res.ExitCode != 0:
		return nil, fmt.Errorf("snapshot: %s exited with code %d", sc.Init, res.ExitCode)
	case status != 0:
		return nil, fmt.Errorf("snapshot: %s returned %d", sc.Init, status)
	}
	return s, nil
}

// checkEntries checks that the module exports each function as () -> i32.
func (m *CompiledModule) checkEntries(names ...string) error {
	fns := m.cm.ExportedFunctions()
	for _, name := range names {
		f, ok := fns[name]
		switch {
		case name == "":
			return errors.New("cannot snapshot the module: no init or entry function named")
		case !ok:
			return fmt.Errorf("cannot snapshot the module: it exports no function %q", name)
		case len(f.ParamTypes()) != 0 || !slices.Equal(f.ResultTypes(), []api.ValueType{api.ValueTypeI32}):
			return fmt.Errorf("cannot snapshot the module: function %q must be () -> i32", name)
		}
	}
	return nil
}

// capture copies the instance's memory (up to its last non-zero byte) and
// its exported mutable globals into s.
func (s *Snapshot) capture(mod api.Module) error {
	mem := mod.Memory()
	if mem == nil {
		return errors.New("the module has no memory to snapshot")
	}
	all, _ := mem.Read(0, mem.Size())
	s.pages = mem.Size() / pageSize
	end := len(all)
	for end > 0 && all[end-1] == 0 {
		end--
	}
	s.memory = bytes.Clone(all[:end])
	for _, name := range s.m.mutableGlobals {
		g, ok := mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return fmt.Errorf("the module's global %q is not mutable", name)
		}
		s.globals = append(s.globals, savedGlobal{Name: name, Value: g.Get()})
	}
	return nil
}

// Mounts returns the guest paths every run of the snapshot must mount
// first, in this order: the initialisation's.
func (s *Snapshot) Mounts() []string { return slices.Clone(s.mounts) }

// Size returns the size in bytes of the memory every run from the
// snapshot starts with (the snapshot keeps it up to its last non-zero
// byte).
func (s *Snapshot) Size() int { return int(s.pages) * pageSize }

// Run starts a fresh instance from the snapshot and calls its entry
// function under cfg, as [CompiledModule.Run] runs _start: the same
// limits, stdio, audit, results and errors, with the entry function's
// result as the exit code. The memory limit counts the snapshot's memory
// from the start.
//
// cfg.Mounts must begin with [Snapshot.Mounts], in that order (the host
// folders may differ, but should hold what the initialisation read:
// the guest may have cached it); the run's own mounts follow, and none may
// be "/".
func (s *Snapshot) Run(ctx context.Context, cfg *RunConfig) (*Result, error) {
	var mounts []Mount
	if cfg != nil {
		mounts = cfg.Mounts
	}
	if len(mounts) < len(s.mounts) {
		return nil, fmt.Errorf("a run from this snapshot must mount %v first, as its initialisation did", s.mounts)
	}
	for i, p := range s.mounts {
		if mounts[i].GuestPath != p {
			return nil, fmt.Errorf("a run from this snapshot must mount %v first, as its initialisation did; mount %d is %s", s.mounts, i, mounts[i].GuestPath)
		}
	}
	return s.m.runWith(ctx, cfg, runPlan{body: s.restore, rootAt: len(s.mounts), reserve: uint64(s.pages) * pageSize})
}

// restore is a snapshot run's body: it writes the snapshot into the fresh
// instance and calls the entry function.
func (s *Snapshot) restore(ctx context.Context, mod api.Module, result *Result) error {
	mem := mod.Memory()
	if mem == nil {
		return errors.New("the module has no memory to restore the snapshot into")
	}
	if have := mem.Size() / pageSize; have < s.pages {
		if _, ok := mem.Grow(s.pages - have); !ok {
			return nil // refused by the memory limit: classify reports it
		}
	}
	if !mem.Write(0, s.memory) {
		return errors.New("the snapshot does not fit the module's memory")
	}
	// Past the snapshot's last non-zero byte the memory must be zero, as
	// it was. A fresh instance's is, except where its data segments were
	// written: within its initial memory.
	if end := min(uint64(mem.Size()), s.m.initialMemory); end > uint64(len(s.memory)) {
		if tail, ok := mem.Read(uint32(len(s.memory)), uint32(end-uint64(len(s.memory)))); ok {
			clear(tail)
		}
	}
	for _, g := range s.globals {
		mg, ok := mod.ExportedGlobal(g.Name).(api.MutableGlobal)
		if !ok {
			return fmt.Errorf("the module has no mutable global %q to restore", g.Name)
		}
		mg.Set(g.Value)
	}
	res, err := mod.ExportedFunction(s.entry).Call(ctx)
	if exit, ok := errors.AsType[*sys.ExitError](err); ok {
		result.ExitCode = exit.ExitCode()
	} else if err == nil {
		result.ExitCode = uint32(res[0])
	}
	return err
}

// The encoding of a snapshot (WriteTo, ReadSnapshot): the magic, a
// 4-byte big-endian length and a JSON header of that length, the memory,
// and the CRC-32C of everything before it, big-endian. The checksum finds
// damage (a torn write, a bad disk); it is no defence against someone who
// can write the cache, who could as well rewrite the compiled code there.
// CRC-32C runs in hardware: 2.7 ms for CPython's 10 MiB on the
// development machine, against 7.4 ms for SHA-256.
const snapshotMagic = "skillrun snapshot 2\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxSnapshotHeader bounds the header ReadSnapshot reads.
const maxSnapshotHeader = 1 << 20

type snapshotHeader struct {
	Entry   string        `json:"entry"`
	Mounts  []string      `json:"mounts"`
	Pages   uint32        `json:"pages"`
	Memory  uint64        `json:"memory"`
	Globals []savedGlobal `json:"globals"`
}

// WriteTo writes the snapshot in a form [CompiledModule.ReadSnapshot]
// reads back, so that one process's snapshot can start another's runs.
// Only a snapshot of the same module may be read back into it: key the
// file by the module (and by whatever else the initialisation read).
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	hdr, err := json.Marshal(snapshotHeader{Entry: s.entry, Mounts: s.mounts, Pages: s.pages,
		Memory: uint64(len(s.memory)), Globals: s.globals})
	if err != nil {
		return 0, err
	}
	h := crc32.New(castagnoli)
	cw := &countWriter{w: io.MultiWriter(w, h)}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(hdr)))
	for _, part := range [][]byte{[]byte(snapshotMagic), n[:], hdr, s.memory} {
		if _, err := cw.Write(part); err != nil {
			return cw.n, err
		}
	}
	k, err := w.Write(h.Sum(nil))
	return cw.n + int64(k), err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadSnapshot reads a snapshot [Snapshot.WriteTo] wrote, for this module.
// Everything is checked before it is used: the checksum, the sizes (the
// memory fits the module's 4 GiB), and that the entry function and the
// globals are the module's; an error says what did not match. A snapshot
// of another module that passes these checks still starts the guest in a
// state it never had, which the sandbox contains like any guest behaviour.
func (m *CompiledModule) ReadSnapshot(r io.Reader) (*Snapshot, error) {
	if m.unsnapshottable != "" {
		return nil, fmt.Errorf("cannot snapshot the module: %s", m.unsnapshottable)
	}
	h := crc32.New(castagnoli)
	tr := io.TeeReader(r, h)
	head := make([]byte, len(snapshotMagic)+4)
	if _, err := io.ReadFull(tr, head); err != nil || string(head[:len(snapshotMagic)]) != snapshotMagic {
		return nil, errors.New("not a skillrun snapshot (or one of another version)")
	}
	n := binary.BigEndian.Uint32(head[len(snapshotMagic):])
	if n > maxSnapshotHeader {
		return nil, fmt.Errorf("snapshot header of %d bytes; at most %d", n, maxSnapshotHeader)
	}
	hdrBytes := make([]byte, n)
	if _, err := io.ReadFull(tr, hdrBytes); err != nil {
		return nil, fmt.Errorf("snapshot header: %w", err)
	}
	var hdr snapshotHeader
	if err := json.Unmarshal(hdrBytes, &hdr); err != nil {
		return nil, fmt.Errorf("snapshot header: %w", err)
	}
	if hdr.Pages > 65536 || hdr.Memory > uint64(hdr.Pages)*pageSize {
		return nil, fmt.Errorf("snapshot of %d bytes in %d pages: does not fit", hdr.Memory, hdr.Pages)
	}
	if err := m.checkEntries(hdr.Entry); err != nil {
		return nil, err
	}
	if len(hdr.Globals) != len(m.mutableGlobals) {
		return nil, fmt.Errorf("snapshot restores %d globals; the module has %d mutable ones", len(hdr.Globals), len(m.mutableGlobals))
	}
	for i, g := range hdr.Globals {
		if g.Name != m.mutableGlobals[i] {
			return nil, fmt.Errorf("snapshot restores global %q, which the module does not export as mutable", g.Name)
		}
	}
	mem, err := readN(tr, hdr.Memory)
	if err != nil {
		return nil, fmt.Errorf("snapshot memory: %w", err)
	}
	sum := h.Sum(nil)
	want := make([]byte, len(sum))
	if _, err := io.ReadFull(r, want); err != nil || !bytes.Equal(sum, want) {
		return nil, errors.New("snapshot checksum does not match: the file is damaged")
	}
	return &Snapshot{m: m, entry: hdr.Entry, mounts: hdr.Mounts, pages: hdr.Pages, memory: mem, globals: hdr.Globals}, nil
}

// readN reads exactly n bytes, allocating as they come (64 MiB at a
// time), so that a header claiming gigabytes costs only what the reader
// really holds.
func readN(r io.Reader, n uint64) ([]byte, error) {
	const chunk = 64 << 20
	buf := make([]byte, 0, min(n, chunk))
	for uint64(len(buf)) < n {
		want := min(n-uint64(len(buf)), chunk)
		if uint64(cap(buf)-len(buf)) < want {
			buf = append(buf, make([]byte, want)...)[:len(buf)]
		}
		k, err := io.ReadFull(r, buf[len(buf):len(buf)+int(want)])
		buf = buf[:len(buf)+k]
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// snapshots memoizes a module's snapshots by key ([CompiledModule.SnapshotOnce]).
type snapshots struct {
	mu   sync.Mutex
	byID map[string]*snapshotEntry
}

type snapshotEntry struct {
	once sync.Once
	s    *Snapshot
	err  error
}

// SnapshotOnce returns the snapshot kept on the module under key, or
// makes one with make and keeps it (a failure too, unless it came from
// ctx or a timeout, so a module whose init fails is not tried again on
// every run). Concurrent calls for one key make it once. The snapshot
// lives as long as the module: a module the Runtime drops from its memo
// ([Runtime.CompileOnce]) takes its snapshots with it.
func (m *CompiledModule) SnapshotOnce(ctx context.Context, key string, make func(context.Context) (*Snapshot, error)) (*Snapshot, error) {
	m.snaps.mu.Lock()
	if m.snaps.byID == nil {
		m.snaps.byID = map[string]*snapshotEntry{}
	}
	e, ok := m.snaps.byID[key]
	if !ok {
		e = &snapshotEntry{}
		m.snaps.byID[key] = e
	}
	m.snaps.mu.Unlock()
	e.once.Do(func() { e.s, e.err = make(ctx) })
	if e.err != nil && (ctx.Err() != nil || errors.Is(e.err, ErrTimeout) || errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
		m.snaps.mu.Lock()
		if m.snaps.byID[key] == e {
			delete(m.snaps.byID, key)
		}
		m.snaps.mu.Unlock()
	}
	return e.s, e.err
}
