package main

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileMCPMain is the command hostile-mcp of the scripts: an MCP server
// on stdio, built with the official SDK, whose tool list a session must
// survive (issue 11, finding 18): a tool "files.read", whose name cannot
// be bridged, beside a good tool "echo"; with the argument "many", 1,001
// tools, over the bridge's bound of 1,000 a server.
func hostileMCPMain() {
	s := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "v1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	echo := func(_ context.Context, _ *sdk.CallToolRequest, in in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	}
	names := []string{"files.read", "echo"}
	if len(os.Args) > 1 && os.Args[1] == "many" {
		names = names[:0]
		for i := range 1001 {
			names = append(names, fmt.Sprintf("t%d", i))
		}
	}
	for _, n := range names {
		sdk.AddTool(s, &sdk.Tool{Name: n, Description: "Echo the text."}, echo)
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "hostile-mcp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
