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
package mcp
