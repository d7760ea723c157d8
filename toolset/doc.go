// Package toolset builds, once for every front end, the skills and tools
// skillrun offers for a set of folders: `skillrun session`, `skillrun
// mcp`, benchmark trials and `skillrun test` sessions all call it, so
// they offer the same skills and tools for the same inputs.
//
// [Discover] finds what a list of roots holds: Agent Skills (SKILL.md
// folders), Markdown skills (.AchillesSkills) and YAML skill, tool and
// agent modules. [New] turns such a [Catalog] into a [Set]: the grant of
// every skill through one resolver, the core workspace tools, the tools
// of the bridged MCP servers, the Markdown skills and the YAML tool
// actions, in a host.Registry. A Set also makes the tools that run the
// skills' scripts: for an agent session behind its permission gate
// ([Set.ScriptTools], which makes a Set an agent.Scripts), or for a
// server under each skill's fixed grant ([Set.Served], with hot reload
// by [Set.Reload]).
package toolset
