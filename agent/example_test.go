package agent_test

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
)

func ExampleParseDefinition() {
	src := []byte(`---
name: reviewer
description: Reviews a change and reports problems.
temperature: 0.2
reasoning_effort: high
tools: [workspace_read]
---
You review code. Report problems; do not fix them.
`)
	d, err := agent.ParseDefinition(src, "reviewer.md", agent.SourceUser, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, *d.Temperature, d.ReasoningEffort, d.Tools)
	fmt.Println(d.Prompt)

	_, err = agent.ParseDefinition([]byte("---\nname: reviewer\nmodle: x\n---\n"), "typo.md", agent.SourceUser, "")
	fmt.Println(err)
	// Output:
	// reviewer 0.2 high [workspace_read]
	// You review code. Report problems; do not fix them.
	// typo.md:3: unknown key "modle" (did you mean "model"?); an agent definition has the keys name, description, model, temperature, reasoning_effort, tools
}

func ExampleLoadDir() {
	defs, errs := agent.LoadDir("testdata/agents", agent.SourcePlugin, "review-pack")
	for _, err := range errs {
		fmt.Println(err)
	}
	for _, d := range defs {
		fmt.Println(d.QualifiedName(), d.PoolKey())
	}
	// Output:
	// review-pack:planner plugin-review-pack-planner
	// review-pack:reviewer plugin-review-pack-reviewer
}

func ExampleBuiltin() {
	for _, d := range agent.Builtin() {
		fmt.Println(d.Name, d.Source, d.Tools == nil)
	}
	// Output:
	// general builtin true
}

func ExampleNewRoster() {
	parse := func(name string, src agent.Source, plugin, file string) *agent.Definition {
		d, err := agent.ParseDefinition([]byte("---\nname: "+name+"\n---\n"), file, src, plugin)
		if err != nil {
			panic(err)
		}
		return d
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	set := agent.NewRoster(logger,
		parse("general", agent.SourceBuiltin, "", "builtin/general.md"),
		parse("general", agent.SourceUser, "", "user/general.md"),
		parse("general", agent.SourcePlugin, "alpha", "alpha/general.md"),
		parse("reviewer", agent.SourcePlugin, "alpha", "alpha/reviewer.md"),
		parse("reviewer", agent.SourcePlugin, "beta", "beta/reviewer.md"),
	)
	for _, name := range []string{"general", "alpha:general", "reviewer", "beta:reviewer"} {
		if d, ok := set.Lookup(name); ok {
			fmt.Println(name, "->", d.File)
		} else {
			fmt.Println(name, "-> none (a skill's agent is reached by SKILL:NAME only)")
		}
	}
	// Output:
	// level=INFO msg="agent definition overridden by a higher source" agent=general winner=user/general.md winner_source=user overridden=builtin/general.md overridden_source=builtin
	// general -> user/general.md
	// alpha:general -> alpha/general.md
	// reviewer -> none (a skill's agent is reached by SKILL:NAME only)
	// beta:reviewer -> beta/reviewer.md
}

func ExampleDefinition_PoolKey() {
	for _, d := range []*agent.Definition{
		{Name: "reviewer", Source: agent.SourcePlugin, Plugin: "alpha"},
		{Name: "reviewer", Source: agent.SourcePlugin, Plugin: "beta"},
		{Name: "reviewer", Source: agent.SourceUser},
	} {
		fmt.Println(d.PoolKey())
	}
	// Output:
	// plugin-alpha-reviewer
	// plugin-beta-reviewer
	// agent-reviewer
}

func ExampleDefinition_Scope() {
	all := []host.ToolDef{
		{Name: "workspace_read", Source: "core"},
		{Name: "pdf__extract", Source: "skill", Plugin: "pdf"},
		{Name: "review__lint", Source: "skill", Plugin: "review"},
		{Name: "mcp__github__search", Source: "mcp"},
	}
	show := func(d *agent.Definition) {
		tools, err := d.Scope(all)
		if err != nil {
			fmt.Println(err)
			return
		}
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		fmt.Println(strings.Join(names, " "))
	}
	show(&agent.Definition{Name: "extractor", Source: agent.SourcePlugin, Plugin: "pdf"})
	show(&agent.Definition{Name: "mine", Source: agent.SourceUser})
	show(&agent.Definition{Name: "searcher", Source: agent.SourceUser, Tools: []string{"mcp__github__search"}})
	show(&agent.Definition{Name: "typo", Source: agent.SourceUser, Tools: []string{"workspace_reed"}})
	// Output:
	// workspace_read pdf__extract
	// workspace_read pdf__extract review__lint mcp__github__search
	// mcp__github__search
	// agent "typo" lists unknown tool: workspace_reed
}

func ExampleCheckRequiredAgent() {
	fill := host.ToolDef{Name: "pdf__fill", Source: "skill", Plugin: "pdf", RequiredAgent: "pdf:filler"}
	fmt.Println(agent.CheckRequiredAgent(fill, "pdf:filler"))
	fmt.Println(agent.CheckRequiredAgent(fill, "forms:filler"))
	fmt.Println(agent.CheckRequiredAgent(fill, "filler"))
	fmt.Println(agent.CheckRequiredAgent(fill, ""))
	// Output:
	// <nil>
	// tool "pdf__fill" requires agent "pdf:filler"; called by agent "forms:filler"
	// tool "pdf__fill" requires agent "pdf:filler"; called by agent "filler"
	// tool "pdf__fill" requires agent "pdf:filler"; called with no agent
}
