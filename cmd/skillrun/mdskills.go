package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// isMarkdownSkillFile reports whether target is a Markdown skill file
// (<name>.<kind>.md in a .AchillesSkills folder, or <kind>.md in a skill
// folder of one), which `run` runs as its kind rather than as a skill
// folder.
func isMarkdownSkillFile(target string) bool {
	fi, err := os.Stat(target)
	return err == nil && !fi.IsDir() && mdskill.IsSkillFile(target) && mdskill.RootOf(target) != ""
}

// runMarkdownSkill is `skillrun run DIR/.AchillesSkills/x.<kind>.md
// (or DIR/.AchillesSkills/x/<kind>.md) --input JSON`: the skill called once as its tool, with the input checked
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
	// The skill's folder as a session would have it: its Markdown skills,
	// the workspace tools (without a workspace: tskills fail).
	cfg := &toolset.Config{Runner: rt}
	if fi, err := os.Stat(f.workspace); err == nil && fi.IsDir() {
		cfg.Workspace, cfg.WorkspaceGrant = f.workspace, r.Workspace()
	}
	set, err := toolset.New(ctx, toolset.Discover([]skills.Root{{Dir: mdskill.RootOf(target)}}, nil), cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	defer func() { _ = set.Close() }()
	reg := set.Tools
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
