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
// [LoadDir] and [loadFS] load every *.md file of a directory; [Builtin]
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
//
// # API
//
// Running a session:
//   - [Session] and [Session.Run]: one agent loop on a task; the fields
//     say which provider, agent, skills, tools and limits it uses.
//   - [Result]: how a run ended, with its [Outcome] and [Totals].
//   - [Outcome] and its values: completed, or which limit or failure
//     ended the session.
//   - [Limits] and [DefaultLimits]: bounds on turns, tokens, time, tool
//     calls and the history re-sent to the model.
//   - [RetryPolicy] and [defaultRetry]: how a failed provider call that
//     may pass is retried.
//   - [Skip]: a tool or MCP server the caller left out as broken.
//
// Permissions:
//   - [Asker] and [AskerFunc]: decide a [PermissionRequest], a script
//     asking for capabilities its skill's grant lacks.
//   - [Answer] and its values ([AllowOnce], [AllowAlways], [Deny]): what
//     the asker decided, for one call or the rest of the session.
//
// Providers:
//   - [Provider]: a model behind an API; package providers has the HTTP
//     ones.
//   - [Request], [Response], [Message] and [Role]: one call to the model
//     and its reply, in neutral types.
//   - [ToolSpec], [ToolCall] and [ToolOutput]: a tool as the model sees
//     it, a call of it, and the result sent back.
//   - [StopReason] and its values: why the model stopped writing.
//   - [Usage], [Usage.Add] and [Usage.Total]: token counts.
//   - [NewScripted]: a provider that replays a [Plan] ([PlanTurn],
//     [PlanCall]) read with [LoadPlan] or [ParsePlan].
//   - [Truncate] and [MaxErrorMessage]: cut text a provider takes from a
//     reply (an error message) to a bounded size.
//
// Transcripts:
//   - [Transcript], [NewTranscript] and [Transcript.Err]: a session's
//     events written as JSON lines.
//   - [TranscriptEvent]: one record, also given to [Session].Observe.
//   - [EventType] and its values: the kinds of record.
//
// Definitions:
//   - [Definition]: one agent's settings and system prompt.
//   - [ParseDefinition], [LoadDir], [loadFS] and [Builtin]: where
//     definitions come from.
//   - [Source] and its values: where a definition came from, in order of
//     precedence.
//   - [Definition.QualifiedName] and [Definition.PoolKey]: an agent's
//     identity and the key its state is kept under.
//   - [Roster], [NewRoster], [Roster.Lookup] and [Roster.List]: the
//     agents a session can run, collisions resolved.
//   - [Definition.Scope] and [CheckRequiredAgent]: which tools an agent
//     may use and call.
//
// Errors:
//   - [ProviderError], [ProviderError.Retryable] and [KindOf]: a failed
//     provider call and its [ErrorKind] (its values say which failure).
//   - [DefinitionError]: one problem in a definition file.
//   - [UnknownToolsError]: a tools list names tools that do not exist.
//   - [RequiredAgentError]: a tool called by an agent it does not allow.
package agent
