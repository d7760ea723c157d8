//go:build wasip1

// Command mcpguest is the test guest of host/mcp/guest_bridge_test.go: it
// calls one MCP tool through the mcp_call host function and prints the
// outcome. Its input, a JSON object {"server":..., "tool":..., "args":...},
// names the tool. It prints "result: <content>" or "error <code>: <message>".
//
// It is part of the main module (no go.mod), so it can import package
// guest; build it from the module root with GOOS=wasip1 GOARCH=wasm.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/skillrun/skillrun/guest"
)

func main() {
	in, err := guest.Input()
	if err != nil {
		fmt.Println("input error:", err)
		os.Exit(1)
	}
	var req struct {
		Server string          `json:"server"`
		Tool   string          `json:"tool"`
		Args   json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(in, &req); err != nil {
		fmt.Println("input:", err)
		os.Exit(1)
	}
	res, err := guest.CallMCP(req.Server, req.Tool, req.Args)
	if err != nil {
		if e, ok := errors.AsType[*guest.Error](err); ok {
			fmt.Printf("error %s: %s\n", e.Code, e.Message)
			return
		}
		fmt.Println("error (untyped):", err)
		return
	}
	fmt.Printf("result: is_error=%v content=%s\n", res.IsError, res.Content)
}
