package skilltest

import (
	"context"
	"path/filepath"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
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
	tools := host.NewRegistry()
	core, err := host.CoreTools(ws, resolver.Workspace(), r.Scripts.ProtectedDirs()...)
	if err != nil {
		res.fail("%v", err)
		return
	}
	for _, t := range core {
		if err := tools.Add(t); err != nil {
			res.fail("%v", err)
			return
		}
	}
	auditor := r.Auditor
	if auditor == nil {
		auditor = audit.Discard
	}
	sess := &agent.Session{
		Provider:  agent.NewScripted(plan),
		Skills:    catalog,
		Runner:    r.Scripts,
		Workspace: ws,
		Shell:     resolver.Workspace(),
		Grant: func(skill string) capabilities.Set {
			if skill == c.Skill.Name {
				return grant.Granted
			}
			return capabilities.Set{}
		},
		Auditor: auditor,
		Tools:   tools,
	}
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
