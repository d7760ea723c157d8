// Package agent runs agent sessions over sandboxed skills: a model (a
// [Provider]) gets a task, a system prompt with the skills catalog, and
// tools; it calls them until it answers or a limit ends the session
// ([Session]). It also defines the agents a session runs: who the model
// is told it is, which model and settings it uses, and which tools it may
// call.
//
// # Sessions
//
// A [Session] offers skill_search, skill_activate and skill_read (the
// three levels of progressive disclosure), every skill script as
// "<skill>__<script>" (run in the sandbox under the grant its skill gets,
// offered once the skill is activated), the caller's tools (workspace,
// MCP) and tool_search for deferred tools. Tool failures go back to the
// model as error results; limits ([Limits]), cancellation, provider and
// host failures end the session with an [Outcome]. Every event is written
// to a [Transcript] as JSON lines as it happens.
//
// Providers speak the neutral types of this package ([Request],
// [Response], [Message]); package providers has Anthropic's Messages API
// and OpenAI-compatible chat completions, and [NewScripted] replays a
// [Plan] offline. Retries of failed calls are the session's
// ([RetryPolicy]).
//
// # Definitions
//
// A [Definition] is a Markdown file whose YAML frontmatter holds the
// settings and whose body is the system prompt:
//
//	---
//	name: reviewer
//	description: Reviews a change and reports problems.
//	model: claude-sonnet-4-5
//	temperature: 0.2
//	reasoning_effort: high
//	tools: [workspace_read, workspace_list]
//	---
//	You review code. Report problems; do not fix them.
//
// [ParseDefinition] is strict: an unknown key, a value of the wrong type or
// out of range, an anchor or alias is an error naming the file and line.
// [LoadDir] and [LoadFS] load every *.md file of a directory; [Builtin]
// returns the definitions shipped with skillrun.
//
// # Precedence
//
// Definitions come from three [Source]s, highest first: the user's own
// directory ([SourceUser]), a skill pack or plugin ([SourcePlugin]) and
// skillrun itself ([SourceBuiltin]). [NewRoster] resolves name collisions: the
// higher source wins and the override is logged. Agents of different
// plugins may share a name; all are kept, each addressable as
// "<plugin>:<name>", and [Roster.Lookup] of the bare name finds the first.
// [Definition.PoolKey] keeps their state apart.
//
// # Tool scoping
//
// [Definition.Scope] picks the tools an agent may use from all of them: an
// explicit tools list gives exactly those; a plugin agent without one gets
// the core tools and its own plugin's tools; any other agent without one
// gets every tool. A tool that declares a required agent may be called by
// that agent only: [CheckRequiredAgent] says so before the call.
package agent
