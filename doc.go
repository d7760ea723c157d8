// Package skillrun is the root of a Go runtime that runs Agent Skills from
// people you do not trust. It holds no code of its own. The packages, from
// the bottom layer up:
//
//   - [github.com/skillrun/skillrun/audit]: the record of every capability
//     use and denial, the one audit API of every layer.
//   - [github.com/skillrun/skillrun/capabilities]: what a script may touch,
//     declared by the skill and granted by the operator (policy, flags,
//     prompt) through one [capabilities.Resolver]; deny by default.
//   - [github.com/skillrun/skillrun/skills]: SKILL.md and skill.toml:
//     parse, validate, load (folder, zip, fs.FS), discover, catalog,
//     disclosure, search.
//   - [github.com/skillrun/skillrun/host]: what a guest, a model or an MCP
//     client reaches beyond its sandbox: the tool registry, the core
//     workspace tools, the disclosure tools, tool search, the HTTP fetcher
//     and the host functions of skillrun's ABI.
//   - [github.com/skillrun/skillrun/sandbox]: the WebAssembly sandbox
//     (wazero), the security-critical core: compile, run within limits,
//     mounts confined with os.Root, the host module, Extism plugins. It
//     knows nothing of skills, grants or the host layer.
//   - [github.com/skillrun/skillrun/scripts]: a skill's scripts on the
//     sandbox: the grant resolved into mounts and limits, interpreters for
//     Python and JavaScript sources, scripts as tools, the skill index
//     behind skill_run.
//   - [github.com/skillrun/skillrun/host/mcp]: serving skills over MCP and
//     bridging other MCP servers' tools into the registry.
//   - [github.com/skillrun/skillrun/agent]: agent sessions, a model calling
//     the skills as tools; [github.com/skillrun/skillrun/agent/providers]
//     has the HTTP model providers.
//   - [github.com/skillrun/skillrun/guest]: the Go SDK for skill scripts
//     built for GOOS=wasip1; guest/interp/js is the JavaScript interpreter
//     guest.
//   - cmd/skillrun: the command-line tool.
//   - internal/...: the ABI wire format (abi), builds (build), interpreter
//     installs (interp), the tests' shared guests and fixtures (testkit),
//     and small helpers (bm25, frontyaml, fsguard, llmfake, safefile,
//     skillname, termsafe, tomlx, units).
//
// The layering between them is enforced by deps_test.go; the README and
// RATIONALE.md explain it.
package skillrun
