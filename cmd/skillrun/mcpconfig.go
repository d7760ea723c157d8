package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/internal/termsafe"
)

// maxMCPConfig bounds an --mcp-config file.
const maxMCPConfig = mcp.MaxConfigSize

// startBridge reads an mcpServers config (the Claude Desktop / plugin-set
// shape) and starts its servers. A server that fails to start is reported
// on stderr and retried on its first call; the others are usable. The
// caller closes the bridge.
func startBridge(ctx context.Context, file string, stderr io.Writer) (*mcp.Bridge, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, usageErr("--mcp-config: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMCPConfig+1))
	if err != nil {
		return nil, usageErr("--mcp-config: %v", err)
	}
	servers, err := mcp.ParseConfig(data)
	if err != nil {
		return nil, usageErr("--mcp-config %s: %v", file, err)
	}
	b := mcp.NewBridge(servers, nil)
	if err := b.Start(ctx); err != nil {
		fmt.Fprintf(stderr, "skillrun: %v\n", err)
	}
	return b, nil
}

// registerBridge adds the bridge's tools to tools and returns what was
// left out (a server that did not start or listed too many tools, a tool
// whose name the registry refuses), each said on stderr, escaped, as left
// out of the session or server (of). Why not fail: one
// broken server or tool in a repository's MCP config would otherwise keep
// every session started there from starting.
func registerBridge(b *mcp.Bridge, tools *host.Registry, stderr io.Writer, of string) []agent.Skip {
	err := b.Register(tools)
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var skipped []agent.Skip
	for _, e := range errs {
		name := "mcp"
		if re, ok := errors.AsType[*mcp.RegisterError](e); ok {
			name = re.Name()
		}
		fmt.Fprintf(stderr, "skillrun: left out of the %s: %s\n", of, termsafe.String(agent.Truncate(e.Error(), 1024))) // names are the server's
		skipped = append(skipped, agent.Skip{Name: name, Reason: e.Error()})
	}
	return skipped
}

// warnLogger logs warnings (and worse) to stderr.
func warnLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
