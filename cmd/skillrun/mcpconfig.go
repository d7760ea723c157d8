package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/skillrun/skillrun/host/mcp"
)

// maxMCPConfig bounds an --mcp-config file.
const maxMCPConfig = mcp.MaxConfigSize

// readMCPConfig reads an mcpServers config (the Claude Desktop / plugin
// set format) of at most maxMCPConfig bytes: the servers to bridge. ""
// is none.
func readMCPConfig(file string) (map[string]mcp.ServerConfig, error) {
	if file == "" {
		return nil, nil
	}
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
	return servers, nil
}

// startBridge starts the servers of an mcpServers config file; one that
// does not start is said on stderr and left out.
func startBridge(ctx context.Context, file string, stderr io.Writer) (*mcp.Bridge, error) {
	servers, err := readMCPConfig(file)
	if err != nil {
		return nil, err
	}
	b := mcp.NewBridge(servers, nil)
	if err := b.Start(ctx); err != nil {
		fmt.Fprintf(stderr, "skillrun: %v\n", err)
	}
	return b, nil
}

// warnLogger logs warnings (and worse) to stderr.
func warnLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
