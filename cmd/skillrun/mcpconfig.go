package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/skillrun/skillrun/host/mcp"
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
