package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// A registry of the core tools over a workspace: search for a tool, then
// call it. Input that does not satisfy the schema, and a path the grant
// does not allow, are results with IsError set, for the model to read.
func ExampleRegistry() {
	ws, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(ws)
	_ = os.WriteFile(ws+"/notes.txt", []byte("hello\n"), 0o644)

	grant := capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
	tools, err := host.CoreTools(ws, grant)
	if err != nil {
		panic(err)
	}
	r := host.NewRegistry()
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}

	matches, _ := r.Search("read a file", &skills.SearchOptions{Limit: 1})
	fmt.Println(matches[0].Definition.Name)

	ctx := context.Background()
	for _, input := range []string{`{"path":"notes.txt"}`, `{"file":"notes.txt"}`} {
		res, _ := r.Call(ctx, "workspace_read", json.RawMessage(input))
		fmt.Printf("%v %q\n", res.IsError, res.Content)
	}
	res, _ := r.Call(ctx, "workspace_write", json.RawMessage(`{"path":"out.txt","content":"x"}`))
	fmt.Println(res.Content)
	// Output:
	// workspace_read
	// false "hello\n"
	// true "tool workspace_read: invalid input: additional properties 'file' not allowed; missing property 'path'"
	// write workspace/out.txt denied: not granted (add --allow-write=workspace/out.txt)
}

func ExampleSkillToolName() {
	fmt.Println(host.SkillToolName("données", "stats"))
	fmt.Println(host.MCPToolName("github", "create_issue"))
	// Output:
	// donn_es__stats
	// mcp__github__create_issue
}
