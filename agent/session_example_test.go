package agent_test

import (
	"context"
	"fmt"
	"io"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

// A session with a scripted model: it lists the workspace with a core
// tool, then answers. A real model is the same Session with
// providers.NewAnthropic or providers.NewOpenAI as Provider; add Skills
// and Scripts (a toolset.Set) to offer skills and run their scripts.
func ExampleSession() {
	plan, err := agent.ParsePlan([]byte(`
[[turn]]
[[turn.call]]
tool = "workspace_list"

[[turn]]
expect = ["sales.csv"]
text = "The workspace has sales.csv and notes.md."
`), "plan.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	core, err := host.CoreTools("../examples/workspace", workspaceRead)
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := host.NewRegistry()
	for _, t := range core {
		_ = tools.Add(t)
	}
	sess := &agent.Session{
		Provider:   agent.NewScripted(plan),
		Tools:      tools,
		Transcript: agent.NewTranscript(io.Discard), // a transcript.jsonl file in practice
	}
	res, err := sess.Run(context.Background(), "What is in the workspace?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome, res.Totals.Turns, "turns,", res.Totals.ToolCalls, "tool call")
	fmt.Println(res.Text)
	// Output:
	// completed 2 turns, 1 tool call
	// The workspace has sales.csv and notes.md.
}

// workspaceRead grants the core tools read access to the workspace.
var workspaceRead = capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
