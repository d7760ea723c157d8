package toolset_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// An agent session over a folder of skills, as `skillrun session
// --skills examples/py-csv-report --allow-read` runs it: the tool set
// offers the skill, its script (behind the session's permission gate)
// and the workspace tools; a scripted plan plays the model.
func Example() {
	ctx := context.Background()
	rt, err := scripts.New(ctx, nil) // one per process
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)
	grants := &capabilities.Resolver{Flags: []capabilities.FlagGrant{{Kind: "read"}}} // --allow-read
	catalog := toolset.Discover([]skills.Root{{Dir: "../examples/py-csv-report"}}, nil)
	set, err := toolset.New(ctx, catalog, &toolset.Config{Runner: rt,
		Workspace: "../examples/workspace", WorkspaceGrant: grants.Workspace(),
		Grant: toolset.Resolve(grants, nil)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()

	plan, err := agent.ParsePlan([]byte(`
[[turn]]
[[turn.call]]
tool = "skill_activate"
input = { name = "py-csv-report" }

[[turn]]
expect = ["py-csv-report__report"]
[[turn.call]]
tool = "workspace_list"

[[turn]]
expect = ["sales.csv"]
text = "sales.csv is there; py-csv-report can report on it."
`), "plan.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	sess := &agent.Session{Provider: agent.NewScripted(plan),
		Skills: set.Skills(), Scripts: set, Grant: set.Grant, Tools: set.Tools, Skipped: set.Skipped}
	res, err := sess.Run(ctx, "Can you report on the sales?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome, "after", res.Totals.ToolCalls, "tool calls:", res.Text)
	// Output:
	// completed after 2 tool calls: sales.csv is there; py-csv-report can report on it.
}

// The same folder served to MCP clients, as `skillrun mcp
// examples/py-csv-report` serves it: every script under its grant, the
// shell tool (the workspace grant reads), the disclosure tools.
func ExampleSet_Served() {
	ctx := context.Background()
	rt, err := scripts.New(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)
	grants := &capabilities.Resolver{Flags: []capabilities.FlagGrant{{Kind: "read"}}}
	set, err := toolset.New(ctx, toolset.Discover([]skills.Root{{Dir: "../examples/py-csv-report"}}, nil), &toolset.Config{Runner: rt,
		Workspace: "../examples/workspace", WorkspaceGrant: grants.Workspace(),
		Grant: toolset.Resolve(grants, nil), Server: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	srv := mcp.NewServer(set.Skills(), &mcp.ServerOptions{Name: "example", Tools: set.Served()})
	_ = srv // srv.ServeStdio(ctx, os.Stdin, os.Stdout), or srv.ListenAndServe
	var names []string
	for _, d := range set.Served().List() {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	fmt.Println(strings.Join(names, " "))
	// Output:
	// py-csv-report__report shell
}
