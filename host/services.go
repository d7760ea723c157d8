package host

import (
	"log/slog"

	"github.com/skillrun/skillrun/audit"
)

// Services are what a script run reaches beyond its sandbox, besides its
// own grant: the workspace it is given, where its capability events go,
// and the providers of the host functions. They are declared once, here,
// and passed whole: from a session or a server to the script tools and
// skill index it makes, from those to each run ([scripts.ScriptRun]), and
// from a run to its host functions ([Env]). Each provider is reached only
// as far as the run's effective grant allows; a nil provider makes its
// host functions fail with "unavailable".
type Services struct {
	// Workspace is the host folder mounted at /workspace, as granted.
	Workspace string
	// Auditor receives every capability use and denial (nil: the auditor
	// of the context, see [audit.WithAuditor], or none).
	Auditor audit.Auditor
	// Logger receives the script's log lines (nil: dropped).
	Logger *slog.Logger
	// Tools serves tool_call. The workspace tools ([IsWorkspaceTool])
	// never come from here: each run gets its own over its own grant.
	Tools ToolCaller
	// Skills serves skills_search, skill_activate and skill_run.
	Skills SkillIndex
	// MCP serves mcp_call.
	MCP MCPCaller
	// Fetch serves http_fetch (nil in a run: a fetcher over the run's
	// net grant).
	Fetch FetchFunc
}
