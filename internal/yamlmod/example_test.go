package yamlmod_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/yamlmod"
	"github.com/skillrun/skillrun/scripts"
)

// Load a module folder and list what it holds.
func ExampleLoad() {
	set, problems := yamlmod.Load("../../examples/yamlmod")
	if errs := problems.Errors(); len(errs) > 0 {
		log.Fatal(errs)
	}
	for _, s := range set.Skills {
		fmt.Println("skill", s.ID, s.Triggers)
	}
	for _, t := range set.Tools {
		for _, a := range t.Actions {
			fmt.Println("tool", a.ToolName(), "runs", a.Script)
		}
	}
	for _, a := range set.Agents {
		fmt.Println("agent", a.ID, a.SkillNames(), a.Tools)
	}
	// Output:
	// skill text-report [word count sort lines text statistics]
	// tool text-tools__count_words runs count_words.sh
	// tool text-tools__sort_lines runs sort_lines.sh
	// agent text-helper [text-report] [text-tools__count_words text-tools__sort_lines]
}

// A problem has the file and line to fix.
func ExampleLoad_problems() {
	dir, err := os.MkdirTemp("", "yamlmod")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		log.Fatal(err)
	}
	agent := "agent:\n  id: helper\n  skills: [summarize]\n"
	if err := os.WriteFile(filepath.Join(dir, "agents", "helper.yaml"), []byte(agent), 0o644); err != nil {
		log.Fatal(err)
	}
	_, problems := yamlmod.Load(dir)
	for _, p := range problems {
		fmt.Printf("%s:%d: %s\n", filepath.Base(p.File), p.Line, p.Message)
	}
	// Output:
	// helper.yaml:3: no skills/summarize/skill.yaml: the agent names skill "summarize", which does not exist
}

// An agent is the scope of a session: its skills and its tools.
func ExampleSet_Agent() {
	set, _ := yamlmod.Load("../../examples/yamlmod")
	a := set.Agent("text-helper")
	for _, s := range a.Skills {
		fmt.Println(s.AgentSkill().Name, "uses", s.ToolNames())
	}
	fmt.Println(a.Tools)
	// Output:
	// text-report uses [text-tools__count_words text-tools__sort_lines]
	// [text-tools__count_words text-tools__sort_lines]
}

// A skill.yaml skill is disclosed as an Agent Skill with a generated
// SKILL.md.
func ExampleSkill_AgentSkill() {
	set, _ := yamlmod.Load("../../examples/yamlmod")
	sk := set.Skill("text-report").AgentSkill()
	fmt.Println(sk.Name)
	fmt.Println(sk.Description)
	act, err := sk.Activate()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(act.Files)
	// Output:
	// text-report
	// Use it for: word count; sort lines; text statistics (category: text analysis).
	// [SKILL.md skill.toml skill.yaml]
}

// Check what a run of the skill produced against its output_schema.
func ExampleSkill_CheckOutput() {
	set, _ := yamlmod.Load("../../examples/yamlmod")
	s := set.Skill("text-report")
	fmt.Println(s.CheckOutput(json.RawMessage(`{"words": 2, "sorted": ["a", "b"]}`)))
	fmt.Println(s.CheckOutput(json.RawMessage(`{"words": 2.5, "sorted": ["a", "b"]}`)))
	// Output:
	// <nil>
	// skill text-report: output does not match the skill's output_schema: at /words: got number, want integer
}

// Serve a tool's actions from a registry and call one; the script runs
// in the sandbox under the grant given (here: nothing but its input).
func ExampleTool_HostTools() {
	ctx := context.Background()
	set, _ := yamlmod.Load("../../examples/yamlmod")
	r, err := scripts.New(ctx, &scripts.Options{Interpreters: scripts.BuildingInterpreters("", nil)})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)
	reg := host.NewRegistry()
	for _, tool := range set.Tool("text-tools").HostTools(r, capabilities.Set{}, nil) {
		if err := reg.Add(tool); err != nil {
			log.Fatal(err)
		}
	}
	res, err := reg.Call(ctx, "text-tools__count_words", json.RawMessage(`{"text": "to be or not to be"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content)
	// Output:
	// {"words": 6}
}

// The input schema of an action, made from its parameters.
func ExampleAction_InputSchema() {
	set, _ := yamlmod.Load("../../examples/yamlmod")
	a := set.Tool("text-tools").Actions[0]
	fmt.Println(string(a.InputSchema()))
	// Output:
	// {"additionalProperties":false,"properties":{"text":{"description":"the text to count the words of","type":"string"}},"required":["text"],"type":"object"}
}

// What a tool requires is checked against what skillrun can provide.
func ExampleTool_Requires() {
	dir, err := os.MkdirTemp("", "yamlmod")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tool := filepath.Join(dir, "tools", "git-log")
	if err := os.MkdirAll(tool, 0o755); err != nil {
		log.Fatal(err)
	}
	yaml := "tool:\n  id: git-log\n  requires: [git]\n  actions:\n    - {name: log, description: Shows the log.}\n"
	if err := os.WriteFile(filepath.Join(tool, "tool.yaml"), []byte(yaml), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tool, "log.wasm"), []byte("\x00asm"), 0o644); err != nil {
		log.Fatal(err)
	}
	set, _ := yamlmod.Load(dir)
	for _, r := range set.Tool("git-log").Requires() {
		fmt.Println(r.Name, r.Met)
	}
	// Output:
	// git false
}
