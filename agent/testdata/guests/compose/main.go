//go:build wasip1

// Command compose is the test guest of agent/session_test.go: a skill
// script that works through the host, as a composing skill does. Its
// input says what to call:
//
//	{"tool": "workspace_list", "tool_input": {}}
//	{"skill": "csv-stats", "script": "stats", "input": {"args": ["sales.csv"]}}
//
// It prints the result's content, or the error and exits 1.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/skillrun/skillrun/guest"
)

func main() {
	in, err := guest.Input()
	if err != nil {
		fail(err)
	}
	var req struct {
		Tool      string          `json:"tool"`
		ToolInput json.RawMessage `json:"tool_input"`
		Skill     string          `json:"skill"`
		Script    string          `json:"script"`
		Input     json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(in, &req); err != nil {
		fail(err)
	}
	var res *guest.ToolResult
	if req.Tool != "" {
		res, err = guest.CallTool(req.Tool, req.ToolInput)
	} else {
		res, err = guest.RunSkill(req.Skill, req.Script, req.Input)
	}
	if err != nil {
		fail(err)
	}
	if res.IsError {
		fail(fmt.Errorf("result is an error: %s", res.Content))
	}
	fmt.Print(res.Content)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose:", err)
	os.Exit(1)
}
