package sandbox

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/skillrun/skillrun/internal/abi"
)

// wasiModule and abi.Module (skillrun's host functions, docs/contracts/abi.md) are the
// import modules a guest may use.
const wasiModule = "wasi_snapshot_preview1"

// A CompiledModule is a validated, compiled WebAssembly module, ready to
// run any number of times with [CompiledModule.Run]. Each run gets a fresh
// instance: nothing a run does is visible to the next one.
//
// A CompiledModule is safe for concurrent use: runs of the same module may
// overlap freely.
type CompiledModule struct {
	r  *Runtime
	cm wazero.CompiledModule
	// initialMemory is the size in bytes the exported memory has before the
	// module runs, so Run can refuse a module whose limit is below it
	// without allocating it.
	initialMemory uint64
	// tableBytes is the most host memory the module's tables can take
	// (scanModule); Run counts it against the memory limit.
	tableBytes uint64
	// unsnapshottable says why a snapshot cannot capture the module's
	// state ("" if it can; see scanModule and [CompiledModule.Snapshot]).
	unsnapshottable string
	// mutableGlobals are the export names of its mutable globals.
	mutableGlobals []string
	// snaps are its snapshots by key ([CompiledModule.SnapshotOnce]).
	snaps snapshots
	// size is the module's size in bytes, its weight in the Runtime's
	// memo of compiled modules (Options.MaxCompiledBytes).
	size   int
	closed atomic.Bool

	mu      sync.Mutex
	users   int  // runs in progress
	evicted bool // dropped from the memo: closed when the last run ends
}

// Compile validates and compiles a module once, so that it can be run many
// times. With a disk cache (see [Options.CacheDir]) a module compiled
// before, by this or an earlier process, is loaded instead of compiled.
//
// Before wazero sees the module, a pre-pass bounds what its few bytes
// could cost the host: blocks may nest at most 4,096 deep (deeper nesting
// makes compiling take minutes); tables hold at most 4 Mi entries in all;
// and a module that grows tables (table.grow) must declare every table's
// maximum, because wazero has no other bound on table.grow. The tables
// count against [RunConfig.Memory] (at their maxima if the module grows
// them). Modules over a bound are refused with an error that names it.
//
// Compile checks what the module imports: only functions of WASI preview 1
// (wasi_snapshot_preview1) and skillrun's host functions (module
// "skillrun", see docs/contracts/abi.md and [RunConfig.Host]) are provided, with their
// documented signatures, so any other import (a function, memory, table
// or global) is an error that names it, as "env.evil". The module must be a WASI command: it exports
// _start. Bytes that are not a valid Wasm module are an error that says so.
//
// The compiler works on GOMAXPROCS functions at a time, and at most
// [Options.MaxCompiles] modules compile at once. Compile returns when ctx
// ends or [Options.CompileTimeout] passes, whichever is first; the
// compilation it leaves behind finishes in the background, holding its
// slot, and its result is dropped.
//
// Compile is safe for concurrent use.
func (r *Runtime) Compile(ctx context.Context, wasm []byte) (*CompiledModule, error) {
	if r.closed.Load() {
		return nil, errClosed
	}
	start := time.Now()
	shape, err := r.scanKept(wasm)
	if err != nil {
		if _, ok := errors.AsType[*boundError](err); ok {
			return nil, fmt.Errorf("module refused before compiling: %w", err)
		}
		return nil, fmt.Errorf("not a valid Wasm module: %w", err)
	}
	if experimental.GetCompilationWorkers(ctx) == 1 {
		ctx = experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0))
	}
	cm, err := r.compileModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	if err := r.checkModule(wasm, cm); err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	m := &CompiledModule{r: r, cm: cm, tableBytes: shape.tableBytes, unsnapshottable: shape.unsnapshottable,
		mutableGlobals: shape.mutableGlobals, size: len(wasm)}
	for _, mem := range cm.ExportedMemories() {
		m.initialMemory = max(m.initialMemory, uint64(mem.Min())*pageSize)
	}
	r.log.Debug("compiled module", "bytes", len(wasm), "took", time.Since(start))
	r.cacheAdded()
	return m, nil
}

// compileModule runs wazero's CompileModule in a compile slot, and waits
// for it no longer than ctx and the compile budget allow. wazero does not
// stop a compilation it has started, so one that is given up finishes in
// the background, still holding its slot, and closes what it compiled:
// at most Options.MaxCompiles compilations use the CPU at once, whoever
// gave up on them. A cache entry wazero cannot read is deleted and the
// module compiled again (cache.go).
func (r *Runtime) compileModule(ctx context.Context, wasm []byte) (wazero.CompiledModule, error) {
	budget := time.NewTimer(r.compileTimeout)
	defer budget.Stop()
	select {
	case r.compileSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to compile: %w", context.Cause(ctx))
	case <-budget.C:
		return nil, fmt.Errorf("waited %v for one of the %d compile slots; other modules are compiling", r.compileTimeout, cap(r.compileSlots))
	}
	type result struct {
		cm  wazero.CompiledModule
		err error
	}
	done := make(chan result, 1)
	abandoned := make(chan struct{})
	if !r.compiles.start() {
		<-r.compileSlots
		return nil, errClosed
	}
	go func() {
		defer func() { <-r.compileSlots }()
		defer r.compiles.end()
		cctx := context.WithoutCancel(ctx)
		cm, err := r.wr.CompileModule(cctx, wasm)
		if err != nil && r.recoverCache(err) {
			cm, err = r.wr.CompileModule(cctx, wasm)
		}
		select {
		case done <- result{cm, err}:
		case <-abandoned:
			if cm != nil {
				_ = cm.Close(cctx)
			}
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			if r.closed.Load() {
				return nil, errClosed
			}
			return nil, fmt.Errorf("not a valid Wasm module: %w", res.err)
		}
		return res.cm, nil
	case <-ctx.Done():
		close(abandoned)
		return nil, fmt.Errorf("compiling: %w", context.Cause(ctx))
	case <-budget.C:
		close(abandoned)
		return nil, fmt.Errorf("compiling took longer than %v (Options.CompileTimeout); the module is too large or too complex", r.compileTimeout)
	}
}

// pageSize is the size of a Wasm memory page.
const pageSize = 64 << 10

// checkModule checks the module's imports and its _start export.
func (r *Runtime) checkModule(wasm []byte, cm wazero.CompiledModule) error {
	imports, err := importsOf(wasm)
	if err != nil {
		return fmt.Errorf("not a valid Wasm module: %w", err)
	}
	var problems []error
	for _, imp := range imports {
		switch {
		case imp.module == abi.Module && imp.kind != "function":
			problems = append(problems, fmt.Errorf("the module imports %s %s.%s; %s provides functions only",
				imp.kind, imp.module, imp.name, abi.Module))
		case imp.module == abi.Module:
			// checked below
		case imp.module != wasiModule:
			problems = append(problems, fmt.Errorf("the module imports %s %s.%s, which skillrun does not provide; only functions of %s (WASI preview 1) are available",
				imp.kind, imp.module, imp.name, wasiModule))
		case imp.kind != "function":
			problems = append(problems, fmt.Errorf("the module imports %s %s.%s; %s provides functions only",
				imp.kind, imp.module, imp.name, wasiModule))
		}
	}
	for _, fn := range cm.ImportedFunctions() {
		mod, name, _ := fn.Import()
		if mod == abi.Module {
			if err := r.checkHostImport(fn); err != nil {
				problems = append(problems, err)
			}
			continue
		}
		if mod != wasiModule {
			continue // reported above
		}
		want, ok := r.wasi[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Errorf("the module imports function %s.%s, which is not part of WASI preview 1", mod, name))
		case !slices.Equal(fn.ParamTypes(), want.ParamTypes()) || !slices.Equal(fn.ResultTypes(), want.ResultTypes()):
			problems = append(problems, fmt.Errorf("the module imports function %s.%s as %s, but its signature is %s",
				mod, name, signature(fn), signature(want)))
		}
	}
	start, ok := cm.ExportedFunctions()["_start"]
	switch {
	case !ok:
		problems = append(problems, errors.New("the module exports no _start function; build a WASI command (GOOS=wasip1 for Go, wasm32-wasip1 for C and Rust), not a library or reactor"))
	case len(start.ParamTypes()) != 0 || len(start.ResultTypes()) != 0:
		problems = append(problems, fmt.Errorf("the module's _start is %s; a WASI command's _start takes and returns nothing", signature(start)))
	}
	return errors.Join(problems...)
}

func signature(fn api.FunctionDefinition) string {
	names := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return strings.Join(s, ", ")
	}
	return "func(" + names(fn.ParamTypes()) + ") (" + names(fn.ResultTypes()) + ")"
}

// Close releases the module's compiled code (the disk cache keeps its
// entry). Runs in progress are not affected; Run fails after Close. Close
// is safe to call more than once.
func (m *CompiledModule) Close(ctx context.Context) error {
	if m.closed.Swap(true) {
		return nil // wazero counts references: a second Close would drop another Compile's
	}
	return m.cm.Close(ctx)
}

// acquire counts a run of m, unless m is closed; release ends it. A
// module evicted from the Runtime's memo is closed by the release of its
// last run (see evict).
func (m *CompiledModule) acquire() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return false
	}
	m.users++
	return true
}

func (m *CompiledModule) release(ctx context.Context) {
	m.mu.Lock()
	m.users--
	idle := m.evicted && m.users == 0
	m.mu.Unlock()
	if idle {
		_ = m.Close(context.WithoutCancel(ctx))
	}
}

// evict closes m now if no run uses it, else when the last one ends.
func (m *CompiledModule) evict(ctx context.Context) {
	m.mu.Lock()
	m.evicted = true
	idle := m.users == 0
	m.mu.Unlock()
	if idle {
		_ = m.Close(ctx)
	}
}

// memoryLimit returns the memory limit of a run whose limit is limit:
// what is left for linear memory once the tables are counted at their
// maxima, or an error if the tables alone or the initial memory do not
// fit. A nested run (caller not nil) gets at most what is left of its
// caller's limit ([RunConfig.Caller]); giveBack returns it when the run
// has ended.
func (m *CompiledModule) memoryLimit(name string, limit uint64, caller *Caller) (mem *memoryLimit, giveBack func(), err error) {
	giveBack = func() {}
	var shared, hold uint64
	if caller != nil && caller.mem != nil {
		want := limit
		limit, hold, giveBack = caller.lend(want)
		if limit < want { // the callers' memory decides, not the run's own limit
			shared = max(caller.mem.shared, caller.mem.whole)
		}
	}
	if need := m.tableBytes + m.initialMemory; need > limit {
		giveBack()
		detail := ""
		if m.tableBytes > 0 {
			detail = fmt.Sprintf(": %s of linear memory and %s for its tables", size(m.initialMemory), size(m.tableBytes))
		}
		if shared > 0 {
			return nil, nil, newRunError(name, ErrMemoryLimit, nil,
				"memory limit reached: the module needs %s before it starts%s, and the runs that started it hold %s of their %s limit, which a run and the runs it starts share (%s is left); raise the memory limit, or start it from a run that holds less",
				size(need), detail, size(hold), size(shared), size(limit))
		}
		return nil, nil, newRunError(name, ErrMemoryLimit, nil,
			"memory limit %s reached (the module needs %s before it starts%s); raise the memory limit",
			size(limit), size(need), detail)
	}
	return &memoryLimit{limit: limit - m.tableBytes, whole: limit, tables: m.tableBytes, shared: shared, callersHold: hold,
		pool: &m.r.memPool}, giveBack, nil
}

// wasmImport is one entry of a module's import section.
type wasmImport struct {
	module, name string
	kind         string // function, table, memory or global
}

// importsOf lists the imports of a module that wazero has already decoded
// and validated. wazero's API lists imported functions and memories only;
// this also sees tables and globals, so every import can be named.
func importsOf(wasm []byte) ([]wasmImport, error) {
	d := decoder{b: wasm}
	d.skip(8) // magic and version
	for d.err == nil && len(d.b) > 0 {
		id := d.byte()
		size := d.u32()
		if id != 2 { // not the import section
			d.skip(int(size))
			continue
		}
		count := d.u32()
		var imports []wasmImport
		for i := uint32(0); i < count && d.err == nil; i++ {
			imp := wasmImport{module: d.name(), name: d.name()}
			switch kind := d.byte(); kind {
			case 0:
				imp.kind = "function"
				d.u32() // type index
			case 1:
				imp.kind = "table"
				d.byte() // element type
				d.limits()
			case 2:
				imp.kind = "memory"
				d.limits()
			case 3:
				imp.kind = "global"
				d.byte() // value type
				d.byte() // mutability
			default:
				d.fail(fmt.Errorf("import kind %#x", kind))
			}
			imports = append(imports, imp)
		}
		return imports, d.err
	}
	return nil, d.err
}

// decoder reads the few parts of the binary format importsOf needs.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) skip(n int) {
	if n < 0 || n > len(d.b) {
		d.fail(errors.New("unexpected end of module"))
		return
	}
	d.b = d.b[n:]
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail(errors.New("unexpected end of module"))
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (d *decoder) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := d.byte()
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	d.fail(errors.New("LEB128 number too long"))
	return 0
}

func (d *decoder) name() string {
	n := d.u32()
	if uint64(n) > uint64(len(d.b)) {
		d.fail(errors.New("unexpected end of module"))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) limits() {
	if flags := d.byte(); flags&1 != 0 {
		d.u32()
		d.u32()
	} else {
		d.u32()
	}
}
