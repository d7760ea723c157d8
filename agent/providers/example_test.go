package providers_test

import (
	"context"
	"fmt"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/internal/llmfake"
)

// A local OpenAI-compatible server (here a fake one) needs a base URL and a
// model, and no key.
func ExampleNewOpenAI() {
	server := llmfake.NewOpenAI(llmfake.Reply{Text: "Hello from a local model."})
	defer server.Close()

	p, err := providers.NewOpenAI(providers.Options{BaseURL: server.URL + "/v1", Model: "qwen2.5-coder"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Complete(context.Background(), &agent.Request{
		Messages: []agent.Message{{Role: agent.RoleUser, Text: "Say hello."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Message.Text, res.StopReason)
	// Output: Hello from a local model. end_turn
}

// A tool call comes back as an agent.ToolCall with the model's id, which
// the next request's agent.ToolResult names.
func ExampleNewAnthropic() {
	server := llmfake.NewAnthropic(llmfake.Reply{ToolCalls: []llmfake.ToolCall{
		{ID: "toolu_01", Name: "workspace_read", Input: `{"path":"notes.md"}`},
	}})
	defer server.Close()

	p, err := providers.NewAnthropic(providers.Options{APIKey: "sk-ant-example", BaseURL: server.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Complete(context.Background(), &agent.Request{
		Messages: []agent.Message{{Role: agent.RoleUser, Text: "What do my notes say?"}},
		Tools:    []agent.ToolSpec{{Name: "workspace_read", Description: "Read a file."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Message.ToolCalls[0]
	fmt.Println(res.StopReason, c.ID, c.Name, string(c.Input))
	// Output: tool_use toolu_01 workspace_read {"path":"notes.md"}
}
