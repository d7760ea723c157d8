package skilltest

import (
	"context"
	"path/filepath"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// runSession runs a session case: the scripted plan plays the model over
// the catalog, in a fresh workspace, with the case's grant for its skill
// (and for the workspace tools and the shell). Every turn's expect must
// hold and the session must complete; the final answer is checked as the
// case's stdout, and the workspace as for a script.
func (r *Runner) runSession(ctx context.Context, c *Case, res *Result, catalog []*skills.Skill) {
	rel, _ := relPath(c.Plan) // checked when parsed
	plan, err := agent.LoadPlan(filepath.Join(filepath.Dir(c.Skill.Location), rel))
	if err != nil {
		res.fail("%s: plan: %v", c.File, err)
		return
	}
	if plan.Task == "" {
		res.fail("%s: plan %s has no task", c.File, c.Plan)
		return
	}
	ws, before, done, ok := c.startWorkspace(res)
	if !ok {
		return
	}
	defer done()
	resolver := &capabilities.Resolver{Flags: c.Grant.flags(), All: c.Grant.All, Timeout: c.Timeout}
	grant, err := scripts.Resolve(c.Skill, "", resolver) // what the whole skill declares
	if err != nil {
		res.fail("%s: [grant]: %v", c.File, err)
		return
	}
	auditor := r.Auditor
	if auditor == nil {
		auditor = audit.Discard
	}
	cat := r.Modules
	if cat == nil {
		cat = toolset.Of(catalog)
	}
	// The same tools as `skillrun session` over these folders, with the
	// case's grant for its skill alone.
	set, err := toolset.New(ctx, cat, &toolset.Config{Runner: r.Scripts,
		Workspace: ws, WorkspaceGrant: resolver.Workspace(), Auditor: auditor,
		Grant: func(s *skills.Skill) (capabilities.Set, error) {
			if s.Name == c.Skill.Name {
				return grant.Granted, nil
			}
			return capabilities.Set{}, nil
		}})
	if err != nil {
		res.fail("%v", err)
		return
	}
	defer func() { _ = set.Close() }()
	sess := &agent.Session{Provider: agent.NewScripted(plan), Skills: set.Skills(),
		Scripts: set, Grant: set.Grant, Tools: set.Tools, Skipped: set.Skipped}
	out, err := sess.Run(ctx, plan.Task)
	if err != nil {
		res.fail("%s: session: %v", c.File, err)
		return
	}
	if out.Outcome != agent.OutcomeCompleted {
		res.fail("the session ended %s: %v", out.Outcome, out.Err)
	}
	res.Stdout = out.Text
	after, err := snapshot(ws)
	if err != nil {
		res.fail("the workspace after the session: %v", err)
		return
	}
	c.verify(res, ws, before, after)
}
