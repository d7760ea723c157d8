// Package host is what a guest, a model or an MCP client can reach beyond
// its sandbox: one registry of tools (core workspace tools, every skill
// script, tools bridged from MCP servers), tool search, and the host
// functions of skillrun's ABI, each gated by capabilities and audited.
//
//   - [Tool], [ToolDef] and [ToolResult] are what every tool is;
//     [Registry] holds them by name and [Registry.Search] finds them.
//   - [CoreTools] are the workspace tools (workspace_read, ...), built
//     over a grant; [IsWorkspaceTool] names them.
//   - [DisclosureTools] are skill_search, skill_activate and skill_read,
//     the one implementation sessions and `skillrun mcp` serve.
//   - [Services] bundle what a script run reaches beyond its sandbox
//     (workspace, auditor, logger, tool, skill, MCP and fetch providers);
//     [Env] is one run's view of them, and [Env.Dispatch] serves a guest's
//     host-function call.
//   - [Fetcher] is http_fetch behind the net capability.
//
// Package host does not import wazero: package sandbox wires these
// functions into guests, and a skill script becomes a [Tool] through an
// implementation in package scripts, so the dependency points one way.
//
// # API
//
// Services:
//   - [Services]: the workspace, auditor, logger and providers a script
//     run reaches, passed whole from a session or server to each run.
//
// Tools and the registry:
//   - [Tool] is a callable tool; [ToolDef] describes it and [ToolResult] is
//     what a call returns; [ErrorResult] makes a result with IsError set.
//   - [NewRegistry] makes a [Registry]: [Registry.Add], [Registry.Remove],
//     [Registry.Lookup] and [Registry.List] manage its tools, and
//     [Registry.Call] calls one after checking the caller and the input.
//   - [Registry.Search] ranks tools against a query, as [ToolMatch] values.
//   - [SkillToolName] and [MCPToolName] build namespaced tool names;
//     [SourceCore], [SourceSkill] and [SourceMCP] are the values of
//     [ToolDef.Source]; [MaxSchemaSize] and [MaxToolNameLen] bound what a
//     registry accepts.
//   - [Caller]: who calls a tool (agent, skill, script, nesting depth);
//     [WithCaller] puts one in a context and [CallerFrom] reads it back.
//
// Core workspace tools:
//   - [CoreTools]: workspace_read, workspace_write, workspace_edit (exact
//     string replacement, as Claude Code's Edit), workspace_list,
//     workspace_search and workspace_glob (as Claude Code's Glob) over a
//     workspace folder, checked against a grant.
//   - [IsWorkspaceTool] reports whether a name is one of them.
//
// Disclosure tools:
//   - [DisclosureTools] with [DisclosureOptions]: skill_search,
//     skill_activate and skill_read over a list of skills.
//   - [ToolSkillSearch], [ToolSkillActivate] and [ToolSkillRead]: their
//     names.
//
// Host functions:
//   - [Env]: one script run's view (names, grant, input, output, services,
//     depth); [Env.Dispatch] serves one host-function call of its guest.
//   - [ToolCaller], [SkillIndex], [MCPCaller] and [FetchFunc]: the
//     providers in [Services] behind tool_call, the skill functions,
//     mcp_call and http_fetch.
//   - [SkillInfo]: one skill found by a skills search.
//   - [DefaultMaxDepth]: how deep skill runs nest when [Env.MaxDepth] is 0.
//
// HTTP fetch:
//   - [NewFetcher] with [FetchOptions] makes a [Fetcher] over one script's
//     net grant; [Fetcher.Fetch] sends a [FetchRequest] and returns a
//     [FetchResponse], checking every redirect hop and connected address.
//
// Errors:
//   - [errToolExists]: [Registry.Add] met a name another tool has.
//   - [ErrUnknownTool]: [Registry.Call] met a name no tool has.
//   - [ErrInvalidFetch]: a fetch request refused for its form.
//   - [errTooManyRedirects]: a fetch met more redirects than
//     [FetchOptions.MaxRedirects] allows.
package host
