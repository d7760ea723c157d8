package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/agent/providers"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/internal/mdskill"
	mdrun "github.com/skillrun/skillrun/internal/mdskill/run"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/spf13/cobra"
)

// registerMarkdownSkills adds the Markdown skills (.AchillesSkills) of
// each root to reg as skill_<name>, run by a runner whose steps call reg
// itself (so an oskill reaches the other skills and the served tools),
// whose tskills keep their tables in ws (nil: no workspace, tskills fail)
// and whose models come from each folder's models.json. A skill with
// problems, or a folder whose models.json is wrong, is left out and said
// on stderr; it does not stop the others.
func registerMarkdownSkills(rt *scripts.Runner, reg *host.Registry, own []host.Tool, ws *host.Workspace, roots []skills.Root, stderr io.Writer) {
	// The steps reach the served tools and skillrun's own (the workspace
	// tools under the operator's grant), which a server does not serve.
	steps := host.NewRegistry()
	for _, t := range own {
		_ = steps.Add(t)
	}
	caller := fallback{steps, reg}
	for _, root := range roots {
		if fi, err := os.Stat(root.Dir); err != nil || !fi.IsDir() {
			continue
		}
		list, problems := mdskill.LoadDir(root.Dir)
		for _, p := range problems {
			fmt.Fprintf(stderr, "skillrun: %s\n", termsafe.String(p.Error()))
		}
		if len(list) == 0 {
			continue
		}
		models, err := mdskill.LoadModels(root.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "skillrun: Markdown skills of %s not served: %s\n", termsafe.String(root.Dir), termsafe.String(err.Error()))
			continue
		}
		r := &mdrun.Runner{Provider: modelProvider(models), Tools: caller, Scripts: rt, Workspace: ws}
		for _, s := range list {
			if err := reg.Add(r.Tool(s)); err != nil {
				fmt.Fprintf(stderr, "skillrun: %s not served: %s\n", termsafe.String(s.File), termsafe.String(err.Error()))
			}
		}
	}
}

// modelProvider resolves a Markdown skill's model name: its models.json
// entry (the entry "default" for a skill that names none), else, for a
// name that says its maker (claude-..., gpt-...), that provider from the
// environment as `skillrun session` reads it.
func modelProvider(models mdskill.Models) func(string) (agent.Provider, error) {
	return func(name string) (agent.Provider, error) {
		key := name
		if key == "" {
			key = "default"
		}
		m, ok := models[key]
		if !ok {
			switch {
			case strings.HasPrefix(name, "claude"):
				m = mdskill.Model{Provider: "anthropic", Model: name}
			case strings.HasPrefix(name, "gpt") || strings.HasPrefix(name, "o1") || strings.HasPrefix(name, "o3"):
				m = mdskill.Model{Provider: "openai", Model: name}
			default:
				return nil, fmt.Errorf("model %q is not in %s/%s; add it there ({\"provider\": ..., \"model\": ...})", key, mdskill.Folder, mdskill.ModelsFile)
			}
		}
		if m.Provider == "scripted" {
			if m.Plan == "" {
				return nil, fmt.Errorf("model %q: the scripted provider needs a plan", key)
			}
			p, err := agent.LoadPlan(m.Plan)
			if err != nil {
				return nil, err
			}
			return agent.NewScripted(p), nil
		}
		o := providers.FromEnv(providers.Options{BaseURL: m.BaseURL, Model: m.Model}, m.Provider)
		if m.APIKeyEnv != "" {
			o.APIKey = os.Getenv(m.APIKeyEnv)
		}
		if m.Provider == "anthropic" {
			return providers.NewAnthropic(o)
		}
		return providers.NewOpenAI(o)
	}
}

// fallback calls a tool of first, or of second when first has none.
type fallback struct{ first, second *host.Registry }

func (f fallback) Call(ctx context.Context, name string, input json.RawMessage) (*host.ToolResult, error) {
	if _, ok := f.first.Lookup(name); ok {
		return f.first.Call(ctx, name, input)
	}
	return f.second.Call(ctx, name, input)
}

// isMarkdownSkillFile reports whether target is a Markdown skill file
// (<name>.<kind>.md in a .AchillesSkills folder), which `run` runs as its
// kind rather than as a skill folder.
func isMarkdownSkillFile(target string) bool {
	fi, err := os.Stat(target)
	return err == nil && !fi.IsDir() && filepath.Base(filepath.Dir(filepath.Clean(target))) == mdskill.Folder &&
		strings.HasSuffix(target, ".md")
}

// runMarkdownSkill is `skillrun run DIR/.AchillesSkills/x.<kind>.md
// --input JSON`: the skill called once as its tool, with the input checked
// against its parameters, the other skills of its folder and the
// workspace tools (under the workspace grant of the flags) within reach
// of its steps. The result goes to stdout; a failed call is its message
// on stderr and exit status 1.
func runMarkdownSkill(cmd *cobra.Command, f *runFlags, target string) error {
	stderr := cmd.ErrOrStderr()
	s, problems := mdskill.Load(target)
	for _, p := range problems {
		fmt.Fprintln(stderr, termsafe.String(p.Error()))
	}
	if s == nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: the skill cannot be loaded", target)}
	}
	input := f.input
	if input == "" {
		input = "{}"
	}
	if !json.Valid([]byte(input)) {
		return usageErr("--input is not JSON")
	}
	r, err := f.resolver()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	rt, err := scripts.New(ctx, &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr})
	if err != nil {
		return &exitError{code: exitSandbox, err: err}
	}
	defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()
	reg := host.NewRegistry()
	var core []host.Tool
	var ws *host.Workspace
	if fi, err := os.Stat(f.workspace); err == nil && fi.IsDir() {
		core, _ = host.CoreTools(f.workspace, r.Workspace(), rt.ProtectedDirs()...)
		ws, _ = host.NewWorkspace(f.workspace, r.Workspace(), rt.ProtectedDirs()...)
	}
	registerMarkdownSkills(rt, reg, core, ws, []skills.Root{{Dir: filepath.Dir(filepath.Dir(filepath.Clean(target)))}}, io.Discard)
	if _, ok := reg.Lookup(s.ToolName()); !ok {
		return usageErr("%s: not runnable (see skillrun validate)", target)
	}
	res, err := reg.Call(ctx, s.ToolName(), json.RawMessage(input))
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
		}
		return &exitError{code: exitSandbox, err: err}
	}
	if res.IsError {
		return &exitError{code: 1, err: errors.New(res.Content)}
	}
	fmt.Fprintln(cmd.OutOrStdout(), res.Content)
	return nil
}
