// Package sandbox runs untrusted WebAssembly modules (skill scripts and
// the interpreters that run source scripts) in a sandbox: a [Runtime] compiles a module once into a
// [CompiledModule], and each [CompiledModule.Run] instantiates it afresh
// with only what its [RunConfig] grants — arguments, environment
// variables, stdin, mounted directories — and within limits of memory,
// time and output.
//
// This package is the only one in skillrun that imports wazero, the
// pure-Go WebAssembly runtime it is built on; no wazero type appears in its
// API. It is the security-critical core and can be read on its own: it
// imports nothing of skillrun but the audit event types and internal
// helpers (the host ABI codec, path confinement, byte units), a rule the
// module's deps test enforces. What a skill may do is decided above it,
// in package scripts, and arrives here as a [RunConfig].
//
// # Walkthrough
//
// Create one Runtime per process and keep it; it is safe for concurrent
// use and holds the compiled code of every module it compiled:
//
//	r, err := sandbox.New(ctx, nil) // compiler, disk cache under the user cache dir
//	if err != nil { ... }
//	defer r.Close(ctx)
//
// Compile a script's module once. Compile validates it, checks that it
// imports nothing but WASI preview 1 and skillrun's host functions and exports _start, and compiles it to
// machine code — seconds for a Go program the first time, milliseconds
// when the disk cache already has it:
//
//	wasm, err := os.ReadFile("scripts/stats.wasm")
//	m, err := r.Compile(ctx, wasm)
//	if err != nil { ... } // "not a valid Wasm module: ...", "the module imports function env.evil, ..."
//
// Run it as often as needed, concurrently if you like. Each run starts
// from a fresh instance and sees only its RunConfig:
//
//	res, err := m.Run(ctx, &sandbox.RunConfig{
//		Name:   "csv-stats:stats",
//		Args:   []string{"data/in.csv"},
//		Env:    []string{"LANG=C.UTF-8"},
//		Stdout: os.Stdout,
//		Stderr: os.Stderr,
//		Mounts: []sandbox.Mount{
//			{HostDir: skillDir, GuestPath: "/skill"},
//			{HostDir: workDir, GuestPath: "/workspace", Writable: true},
//		},
//		Memory:  64 << 20,
//		Timeout: 10 * time.Second,
//	})
//
// A script that exits on its own, with any code, gives a nil error and
// [Result.ExitCode]. A script the sandbox had to stop gives an error that
// matches one of [ErrTimeout], [ErrMemoryLimit], [ErrOutputLimit] or
// [ErrTrap] with [errors.Is], and names the script and the limit:
//
//	csv-stats:stats: timed out after 10s
//	csv-stats:stats: memory limit 64MiB reached (the module asked to grow to 80MiB); ...
//	csv-stats:stats: output limit 1MiB reached; output was cut there
//	csv-stats:stats: trap: wasm error: unreachable ...
//
// # The sandbox
//
// Deny by default: with a zero RunConfig a module has no files, no
// environment variables (nothing is inherited from the host), empty stdin,
// discarded output, and no network (WASI preview 1 has none, and no other
// imports are provided). A module may also import skillrun's host
// functions (module "skillrun", docs/contracts/abi.md): tools, skills, MCP, HTTP fetch,
// each checked against the run's grant by the [HostDispatcher] of
// [RunConfig.Host]; without one every such call fails with "unavailable".
//
//   - Files: only [RunConfig.Mounts]. Every mount is served through an
//     [os.Root], so "..", absolute paths and symbolic links cannot leave
//     it; a read-only mount refuses every change with EROFS. The rest of
//     the module's "/" is a read-only directory holding the mount points,
//     so any other path does not exist (ENOENT). A run holds at most 1024
//     open files, since each is a host file descriptor, and all runs of a
//     Runtime at most [Options.MaxOpenFiles].
//   - Memory: each run's linear memory is allocated by this package and
//     capped at [RunConfig.Memory]; a grow past it fails inside the module
//     and fails the run. [Result.PeakMemory] reports the most it used.
//     wazero's compiler also keeps a native call stack per run, outside
//     this cap and not configurable: a runaway recursion traps (stack
//     overflow) once the stack passes 50 MB, but the stack doubles as it
//     grows, so the last growth takes about 100 MB, 150 MB while it is
//     copied. It is Go heap, freed when the run ends. Size a server for
//     it: N deep recursions at once can take N × 150 MB beyond their
//     memory limits. (The interpreter engine caps calls at 2,000 frames.)
//   - Time: [RunConfig.Timeout] stops a module wherever it is: in a busy
//     loop (wazero checks the deadline in compiled code), in a sleep or
//     blocked reading stdin (both wake up when the run ends). So does
//     cancelling the ctx passed to Run.
//   - Output: stdout and stderr together are capped at [RunConfig.Output];
//     the output is cut at exactly the limit.
//   - Clocks and randomness are real (crypto/rand) unless
//     [RunConfig.Deterministic] asks for a virtual clock and a seeded
//     source.
//   - Audit: [RunConfig.Auditor] sees every mount and every file open or
//     change, allowed or denied.
//
// After any failure the Runtime stays usable; the failed run's instance
// is gone.
//
// # Engines and the cache
//
// wazero's compiler turns a module into machine code (amd64 and arm64);
// its interpreter works everywhere, compiles in a fraction of the time and
// runs several times slower ([Options.Interpreter]). Compiled code is
// cached on disk ([Options.CacheDir]), keyed by wazero's version and the
// module's hash, so a new process loads instead of compiling; the
// interpreter does not use the disk cache.
//
// The deadline checks that make timeouts real cost CPU time: wazero's
// compiled code leaves for Go at every loop header, and Go's wasm port
// compiles most functions to a loop (so it can resume them), so call-heavy
// Go guests pay the most: about 6x on a recursive fib (see
// BenchmarkTimeoutCost); loop-light code pays little. They are always on:
// without them a timeout cannot stop a busy loop, and the busy loop also
// blocks Go's garbage collector, freezing the whole host process.
//
// # Concurrency
//
// [Runtime] and [CompiledModule] are safe for concurrent use. A
// [RunConfig] is read, never written, by Run; its Stdout and Stderr are
// written from the goroutine running the module, one write at a time.
// [RunConfig.Auditor] is called from that goroutine too.
//
// # API
//
// Compiling and running:
//   - [New] and [Options]: one [Runtime] per process (engine, disk cache,
//     bounds on compiled code, open files and concurrent compiles).
//   - [Runtime.Compile] validates and compiles a module into a
//     [CompiledModule]; [Runtime.CompileOnce] keeps one per key for
//     callers that run the same module again (the scripts layer);
//     [Runtime.CacheDir] is the folder no run may write.
//   - [CompiledModule.Run] runs it with a [RunConfig] (arguments,
//     environment, stdin and output, mounts ([Mount]), limits, auditor, host
//     functions) and returns a [Result]; [CompiledModule.Close] frees it.
//   - [DefaultMemory], [DefaultTimeout] and [DefaultOutput] are the limits
//     of a RunConfig that sets none.
//
// Host functions and plugins:
//   - [HostDispatcher] serves a guest's calls to the "skillrun" import
//     module (package host's Env is the one skillrun uses).
//   - [Runtime.CallPlugin] calls an Extism plugin's export with a
//     [PluginCall]; a plugin's own failure is a [PluginError]; an HTTP
//     request to a host the call's check refuses is a [NetRefusedError].
//
// Errors: [ErrTimeout], [ErrMemoryLimit], [ErrOutputLimit] and [ErrTrap]
// say which limit stopped a run (match them with [errors.Is]).
package sandbox
