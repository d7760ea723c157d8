// Package capabilities describes what a skill script may touch: which paths
// it may read and write, which environment variables, hosts, host tools, MCP
// tools and other skills it may use, and how much memory, time and output it
// may spend.
//
// Skills come from people the operator does not trust, so nothing is
// allowed unless it is named twice: once by the skill, which declares the
// most it asks for (the [capabilities] table of skill.toml, decoded into a
// [Set]), and once by the operator, who grants some of it (a policy file,
// CLI flags such as --allow-read=workspace/data, or an interactive prompt).
// What a script gets is the intersection:
//
//	effective = declared ∩ granted
//
// Anything outside the effective set is denied, and the denial names the
// missing grant so the user knows what to add. A skill cannot widen its own
// grant by declaring more, and an operator cannot hand a script something the
// skill never asked for: granting "everything" (-A) means everything the skill
// declared, nothing more.
//
// # Granting
//
// A [Resolver] is everything an operator grants: a [Policy] (by skill
// identity, see [Policy.Grant] and [SkillRef]), --allow-KIND flags
// ([FlagGrant]), -A and the limit flags. [Resolver.Resolve] answers, for
// one skill and what it declares, a [Resolution]: declared, granted,
// effective and missing, with the sources that granted it and [Resolution.Why]
// for messages. `skillrun run`, `session` and `mcp` all grant through it,
// so a program embedding skillrun grants exactly as the CLI does.
// [Effective], [Merge] and [Missing] are the set operations beneath it.
//
// Every use and denial of a capability is recorded through package
// [github.com/skillrun/skillrun/audit].
//
// # Words
//
// Capabilities are written the same way in skill.toml, in grants and on the
// command line, so this package owns their text forms:
//
//   - [Path]: "skill" (the skill folder, mounted read-only at /skill),
//     "workspace" (mounted at /workspace), or a sub-path such as
//     "workspace/data". See [ParsePath].
//   - [HostPattern]: "api.example.com", "api.example.com:8443",
//     "*.example.org:443", "[::1]:443", or "*" for any host. See
//     [ParseHostPattern].
//   - [Size]: "64MiB", "512KiB", "10MB", or a plain number of bytes.
//   - [Duration]: "10s", "1m30s", as [time.ParseDuration] reads them.
//
// Each type implements [encoding.TextUnmarshaler], so TOML, JSON and flag
// decoding all reject a malformed value at the place it is written, and
// [encoding.TextMarshaler], so a decoded value prints back in the same words.
// Element rules that span a whole list (valid environment variable names, no
// duplicates, bounded lengths) are checked by [Set.Validate].
//
// This package holds plain data: values of its types are safe for concurrent
// use as long as nobody modifies them.
//
// # API
//
// Declaring:
//
//   - [Set]: a list of capabilities, as a skill declares them in skill.toml
//     or an operator grants them. [Set.Validate] checks the rules that
//     decoding one element cannot; [Set.IsZero] reports an empty set.
//   - [Merge]: a skill's declaration plus one script's, in canonical form.
//   - [Kinds]: the kinds granted by name (read, write, env, net, tools, mcp,
//     skills), in skill.toml's order.
//
// Granting and resolving:
//
//   - [Resolver]: everything an operator grants (policy, flags, -A,
//     limits). [Resolver.Resolve] answers what one skill gets;
//     [Resolver.Workspace] is the grant for the operator's own tools.
//   - [Resolution]: declared, granted, effective and missing, with the
//     sources of the grant. [Resolution.Why] explains it in one line;
//     [Resolution.Allow] adds what a prompt granted.
//   - [Policy]: the operator's policy file, read by [LoadPolicy] or
//     [ParsePolicy]. [Policy.Grant] grants a skill by its identity;
//     [Policy.For] reads the tables by name alone.
//   - [SkillRef]: what [Policy.Grant] needs to know of a skill.
//   - [Identity]: the path and digest a policy table is pinned to.
//   - [FlagGrant]: one --allow-KIND[=VALUE] flag as typed;
//     [GrantFromFlags] turns the flags and -A into a granted [Set].
//   - [Effective]: declared ∩ granted, what a script may use.
//   - [Missing]: what is declared and not granted at all.
//   - [Flags], [FlagFor]: the flags that would grant a set or one value,
//     for messages; [Describe] lists a set in the same words; [NotGranted]
//     and [AlsoDeclared] are the denial and the note that name them.
//
// Checking:
//
//   - [Set.CheckRead], [Set.CheckWrite]: may the script read or write a
//     [Path].
//   - [Set.CheckEnv], [Set.CheckNet], [Set.CheckTool], [Set.CheckMCP],
//     [Set.CheckSkill]: may it see a variable, reach a host and port, call
//     a host tool or an MCP tool, or run another skill. Each returns nil or
//     a [*DeniedError].
//   - [AddrClass]: names a special-purpose IP address (loopback, private,
//     ...), which only a grant naming it reaches.
//
// Values and parsing:
//
//   - [Path], [ParsePath]: a [Root] ([RootSkill] or [RootWorkspace]) and a
//     sub-path. [Path.Contains] compares paths; [Path.GuestPath] and
//     [Root.GuestPath] say where the script sees them.
//   - [HostPattern], [ParseHostPattern]: hosts a script may reach.
//     [HostPattern.Match] tests a host and port; [HostPattern.Covers]
//     tests another pattern.
//   - [Size], [ParseSize]: a memory or output limit in bytes; [B], [KiB],
//     [MiB], [GiB] and [TiB] are units for Go code.
//   - [Duration], [ParseDuration]: a time limit.
//
// Errors:
//
//   - [DeniedError]: one denied use, naming the flag that would allow it.
//   - [ErrDenied]: matches every denial with [errors.Is]; it wraps
//     [io/fs.ErrPermission].
//   - [errNotBound]: wrapped by [Policy.Grant] errors when the policy's
//     table for a name is another skill's.
//   - [KeyError]: one problem with one key of a [Set], as [Set.Validate]
//     reports it.
package capabilities
