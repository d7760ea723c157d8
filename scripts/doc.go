// Package scripts runs a skill's scripts on the [sandbox]: it is the layer
// between what a skill declares and what the sandbox core enforces.
//
// The core, package sandbox, knows nothing of skills: it runs a module
// with the mounts, environment, limits and host functions of a
// [sandbox.RunConfig]. This package works that configuration out for one
// script of one loaded skill:
//
//   - [Resolve] says what a script gets from an operator's
//     [capabilities.Resolver]: declared ∩ granted, what is missing and
//     why, the same answer `skillrun run`, `session` and `mcp` get.
//   - [Runner.RunScript] runs it: the effective grant becomes mounts
//     (each root opened inside its parent's os.Root), environment and
//     limits; the [host.Services] of its [ScriptRun] serve its host
//     functions (tool_call, skill_run, mcp_call, http_fetch), each checked
//     against the grant and audited.
//   - Python and JavaScript sources run under interpreters that are
//     themselves Wasm modules ([InstalledInterpreters],
//     [BuildingInterpreters]); Extism plugins run through
//     [sandbox.Runtime.CallPlugin].
//   - [ScriptTool] makes a script a [host.Tool], for sessions and
//     `skillrun mcp`; a [SkillIndex] serves the skill_run of other
//     scripts, each under its own skill's grant.
//
// # Walkthrough
//
//	s, err := skills.LoadDir("examples/csv-stats", nil)
//	grant, err := scripts.Resolve(s, "stats", &capabilities.Resolver{
//		Flags: []capabilities.FlagGrant{{Kind: "read", Value: "workspace", HasValue: true}},
//	})
//	r, err := scripts.New(ctx, nil) // one per process; compile cache on disk
//	defer r.Close(ctx)
//	res, err := r.RunScript(ctx, s, "stats", &scripts.ScriptRun{
//		Services: host.Services{Workspace: "examples/workspace"},
//		Args:     []string{"sales.csv"},
//		Stdout:   os.Stdout,
//		Granted:  grant.Granted, // the script gets declared ∩ granted
//	})
//
// A script that exits on its own gives its exit code in the result and a
// nil error. A script the sandbox stopped gives an error matching
// [sandbox.ErrTimeout], [sandbox.ErrMemoryLimit], [sandbox.ErrOutputLimit]
// or [sandbox.ErrTrap]; a script that cannot start (not built, an
// interpreter missing, a workspace that is not a folder) gives
// [ErrNotRunnable]; a capability used past its grant gives
// [capabilities.ErrDenied]. Nothing is created on the host (a write
// grant's folder) before the run is known to start.
//
// # API
//
//   - [New], [Options] and [Runner]: the sandbox runtime plus what
//     scripts need beside it (the interpreters); [Runner.Sandbox] is the
//     runtime itself, [Runner.ProtectedDirs] the folders no run may change,
//     [Runner.Close] releases both.
//   - [Resolve]: what a script (or a whole skill) gets from a
//     [capabilities.Resolver].
//   - [Runner.RunScript] with a [ScriptRun]: one run of one script.
//   - [ScriptTool] with [ToolOptions]: a script as a [host.Tool].
//   - [NewSkillIndex] and [SkillIndex]: search, activate, read and run the
//     scripts of a list of skills, for skill_run.
//   - [InterpreterFunc], [SourceInterpreter], [InstalledInterpreters] and
//     [BuildingInterpreters]: how a source script finds its interpreter.
//     This is the part most likely to change: the shell and Python
//     packages of the next steps add to it.
//   - [ErrNotRunnable]: the script cannot start (see above).
package scripts
