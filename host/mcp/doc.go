// Package mcp serves skills over MCP and bridges MCP servers into
// skillrun's tool registry.
//
// A [Server] exposes a set of skills to any MCP client with progressive
// disclosure: the tool skills_catalog returns the <available_skills>
// catalog, skill_activate a skill's instructions and file list, and
// skill_read one of its files; every file is also a resource
// skill://<name>/<path>. Every tool of a [host.Registry] (core tools, skill
// scripts) is served beside them with its input schema.
//
//	srv := mcp.NewServer(list, &mcp.ServerOptions{Name: "skillrun", Tools: reg})
//	err := srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// or, over streamable HTTP on loopback:
//
//	http.ListenAndServe("127.0.0.1:8080", srv.Handler(nil))
//
// The package uses the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk); no SDK type appears in its API.
//
// # API
//
// Serving skills:
//   - [NewServer] with [ServerOptions] makes a [Server] over a list of
//     skills and a [host.Registry]; [Server.SetSkills] replaces the skills
//     and rereads the registry's tools.
//   - [Server.ServeStdio] serves one session over a reader and a writer;
//     [Server.Handler] with [HTTPOptions] serves streamable HTTP, checking
//     the Host and Origin headers.
//   - [catalogTool], [searchTool], [activateTool] and [readTool]: the
//     names of the disclosure tools a Server serves.
//   - [resourceScheme]: the URI scheme of skill files served as resources.
//
// Bridging MCP servers:
//   - [NewBridge] with [BridgeOptions] makes a [Bridge] to configured
//     servers; [Bridge.Start] connects to them and lists their tools.
//   - [Bridge.Register] adds their tools to a [host.Registry];
//     [Bridge.CallTool] calls one directly (a [host.MCPCaller] for
//     guests); [Bridge.Close] closes connections and ends command servers.
//   - [defaultCallTimeout], [defaultStartTimeout], [defaultMaxRestarts]
//     and [defaultMaxResult]: the defaults of BridgeOptions.
//
// Configuration:
//   - [ParseConfig] reads an mcpServers JSON document (at most
//     [MaxConfigSize] bytes) into a [ServerConfig] per server name.
//
// Errors:
//   - [RegisterError]: one server or tool [Bridge.Register] left out;
//     [RegisterError.Name] names it.
//   - [ErrUnknownServer]: a call names a server the bridge does not know.
//   - [ErrServerDown]: a call to a server that failed too many times in a
//     row and is no longer restarted.
//   - [ErrBridgeClosed]: a call after [Bridge.Close].
package mcp
