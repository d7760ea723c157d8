package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// registry builds the session's tools: its own (skill disclosure, tool
// search), every skill script behind the permission gate, and the
// caller's.
func (r *run) registry() (*host.Registry, error) {
	reg := host.NewRegistry()
	var tools []host.Tool
	if len(r.s.Skills) > 0 {
		tools = append(tools, r.skillTools()...)
	}
	tools = append(tools, r.toolSearchTool())
	if r.s.Scripts != nil {
		g := &Gate{Skills: r.s.Skills, Permit: r.permit, Grant: r.grantFor, Activated: r.activatedSkills}
		if r.s.Tools != nil { // a nil *Registry must not become a non-nil ToolCaller
			g.Tools = r.s.Tools
		}
		tools = append(tools, r.s.Scripts.ScriptTools(g)...)
	}
	if r.s.Tools != nil {
		for _, d := range r.s.Tools.List() {
			if t, ok := r.s.Tools.Lookup(d.Name); ok {
				tools = append(tools, t)
			}
		}
	}
	for _, t := range tools {
		if err := reg.Add(t); err != nil {
			// One broken tool (a skill named "mcp" whose script would be
			// "mcp__x", a name taken twice) must not keep every session in
			// the repository from starting: it is left out, and said so.
			r.skip(Skip{Name: t.Definition().Name, Reason: err.Error()})
		}
	}
	return reg, nil
}

// skip notes a tool left out of the session: a warning now, a
// tool_skipped event once the transcript has its session_start.
func (r *run) skip(s Skip) {
	r.skipped = append(r.skipped, s)
	r.s.logger().Warn("tool left out of the session", "tool", s.Name, "reason", s.Reason)
}

// failed is the error result of a session tool whose input or work was
// wrong: a message for the model, not a host failure.
func failed(tool string, err error) (*host.ToolResult, error) {
	return host.ErrorResult(tool + ": " + err.Error()), nil
}

// funcTool is a [host.Tool] made of a definition and a function.
type funcTool struct {
	def  host.ToolDef
	call func(ctx context.Context, input json.RawMessage) (*host.ToolResult, error)
}

func (t *funcTool) Definition() host.ToolDef { return t.def }
func (t *funcTool) Call(ctx context.Context, in json.RawMessage) (*host.ToolResult, error) {
	return t.call(ctx, in)
}

func (r *run) skill(name string) (*skills.Skill, *host.ToolResult) {
	for _, sk := range r.s.Skills {
		if sk.Name == name {
			return sk, nil
		}
	}
	names := make([]string, len(r.s.Skills))
	for i, sk := range r.s.Skills {
		names[i] = sk.Name
	}
	return nil, host.ErrorResult(fmt.Sprintf("no skill %q; the skills are: %s", name, strings.Join(names, ", ")))
}

// skillTools are the disclosure tools (skill_search, skill_activate,
// skill_read: host.DisclosureTools, shared with `skillrun mcp`) and
// skill_run. Activating a skill loads its scripts' tools into the scope.
func (r *run) skillTools() []host.Tool {
	tools := host.DisclosureTools(r.s.Skills, &host.DisclosureOptions{
		Activated: func(_ context.Context, sk *skills.Skill) string {
			base := ""
			if dir := r.shellDir(sk.Name); dir != "" {
				r.activate(sk)
				base = "Base directory for this skill: " + dir + " (in the shell tool)"
			}
			var scriptTools []string
			uses := strings.Fields(sk.AllowedTools)
			for _, d := range r.scopeList() {
				// Its scripts, and the YAML tool actions its methodology
				// names (a skill.yaml's generated allowed-tools).
				if d.Source == host.SourceSkill && d.Plugin == sk.Name || d.Source == host.SourceYAML && slices.Contains(uses, d.Name) {
					scriptTools = append(scriptTools, d.Name)
				}
			}
			r.load(scriptTools, toolSkillActivate)
			if len(scriptTools) == 0 {
				return base
			}
			if base != "" {
				base += "\n"
			}
			return base + "Its scripts are now tools: " + strings.Join(scriptTools, ", ")
		},
	})
	if r.s.Scripts != nil {
		tools = append(tools, r.skillRunTool())
	}
	return tools
}

// shellDir is where the shell tool shows skill's folder, or "" when the
// session has no shell tool.
func (r *run) shellDir(skill string) string {
	if r.s.Scripts == nil {
		return ""
	}
	return r.s.Scripts.ShellDir(skill)
}

// activate notes that sk was activated: the shell tool mounts it.
func (r *run) activate(sk *skills.Skill) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.activated {
		if a == sk {
			return
		}
	}
	r.activated = append(r.activated, sk)
}

// activatedSkills are the skills activated so far.
func (r *run) activatedSkills(context.Context) []*skills.Skill {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.activated)
}

// skillRunTool is skill_run: a script of a skill by name, for a model
// that would rather not load each script's tool. It calls the script's
// own tool, so scope, schema, permissions and audit are the same.
func (r *run) skillRunTool() host.Tool {
	return &funcTool{
		def: host.ToolDef{Name: toolSkillRun, Source: host.SourceCore, Parallel: true,
			Description: "Run a script of a skill in the sandbox. Give the skill and the script (optional when the skill has one). " +
				"A script without an input schema takes command-line args and stdin; otherwise give input, an object matching its schema.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"skill":{"type":"string"},"script":{"type":"string"},` +
				`"args":{"type":"array","items":{"type":"string"}},"stdin":{"type":"string"},` +
				`"input":{"type":"object","description":"the script's input, for a script with an input schema"}},` +
				`"required":["skill"],"additionalProperties":false}`)},
		call: func(ctx context.Context, in json.RawMessage) (*host.ToolResult, error) {
			var a struct {
				Skill  string          `json:"skill"`
				Script string          `json:"script"`
				Args   []string        `json:"args"`
				Stdin  *string         `json:"stdin"`
				Input  json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal(in, &a); err != nil {
				return failed(toolSkillRun, err)
			}
			sk, bad := r.skill(a.Skill)
			if bad != nil {
				return bad, nil
			}
			names := sk.RunnableScripts()
			switch {
			case len(names) == 0:
				return host.ErrorResult(fmt.Sprintf("skill_run: skill %s has no scripts; it is instructions only (skill_activate)", sk.Name)), nil
			case a.Script == "" && len(names) > 1:
				return host.ErrorResult(fmt.Sprintf("skill_run: skill %s has %d scripts; name one: %s", sk.Name, len(names), strings.Join(names, ", "))), nil
			case a.Script == "":
				a.Script = names[0]
			case !slices.Contains(names, a.Script):
				return host.ErrorResult(fmt.Sprintf("skill_run: skill %s has no script %q; its scripts: %s", sk.Name, a.Script, strings.Join(names, ", "))), nil
			}
			name := host.SkillToolName(sk.Name, a.Script)
			if _, ok := r.scope[name]; !ok {
				return host.ErrorResult(fmt.Sprintf("skill_run: %s is not available to agent %s", name, r.def.QualifiedName())), nil
			}
			input := a.Input
			if len(input) == 0 {
				cl := map[string]any{}
				if a.Args != nil {
					cl["args"] = a.Args
				}
				if a.Stdin != nil {
					cl["stdin"] = *a.Stdin
				}
				input, _ = json.Marshal(cl)
			}
			res, err := r.reg.Call(ctx, name, input)
			if err != nil {
				return nil, err
			}
			return res, nil
		},
	}
}

// scopeList returns the tools in scope, in name order.
func (r *run) scopeList() []host.ToolDef {
	out := make([]host.ToolDef, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.scope[n])
	}
	return out
}

// toolSearchTool finds deferred tools and offers them from then on.
func (r *run) toolSearchTool() host.Tool {
	return &funcTool{
		def: host.ToolDef{Name: toolSearch, Source: host.SourceCore,
			Description: "Search for more tools by words (names, descriptions, argument names). Matching tools become callable; their definitions are returned.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":20}},"required":["query"],"additionalProperties":false}`)},
		call: func(_ context.Context, in json.RawMessage) (*host.ToolResult, error) {
			var a struct {
				Query string `json:"query"`
				Limit int    `json:"limit"`
			}
			if err := json.Unmarshal(in, &a); err != nil {
				return failed("tool_search", err)
			}
			matches, err := r.reg.Search(a.Query, &skills.SearchOptions{Limit: -1})
			if err != nil {
				return failed("tool_search", err)
			}
			limit := a.Limit
			if limit <= 0 {
				limit = skills.DefaultSearchLimit
			}
			type found struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema,omitempty"`
			}
			var out []found
			var names []string
			for _, m := range matches {
				d, ok := r.scope[m.Definition.Name]
				if !ok || d.Name == toolSearch {
					continue
				}
				out = append(out, found{d.Name, d.Description, d.InputSchema})
				names = append(names, d.Name)
				if len(out) == limit {
					break
				}
			}
			if len(out) == 0 {
				return &host.ToolResult{Content: fmt.Sprintf("no tool matches %q", a.Query)}, nil
			}
			r.load(names, toolSearch)
			b, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				return nil, err
			}
			return &host.ToolResult{Content: string(b)}, nil
		},
	}
}

// permit returns the grant a call of skill:script runs with: what the
// operator granted, what was allowed always in this session, and, when
// the script declares more than that, what the Asker allows. A denial is
// an error result naming the flags that would grant it.
func (r *run) permit(ctx context.Context, skill, script string, declared capabilities.Set) (capabilities.Set, *host.ToolResult, error) {
	granted := r.grantFor(skill)
	missing := capabilities.Missing(declared, granted)
	if missing.IsZero() {
		return granted, nil, nil
	}
	r.askMu.Lock()
	defer r.askMu.Unlock()
	r.mu.Lock() // another call may have been allowed always meanwhile
	granted = capabilities.Merge(granted, r.always[skill])
	r.mu.Unlock()
	if missing = capabilities.Missing(declared, granted); missing.IsZero() {
		return granted, nil, nil
	}
	decision, via := Deny, "no terminal to ask in"
	if r.s.Asker != nil {
		d, err := r.s.Asker.Ask(ctx, PermissionRequest{Skill: skill, Script: script, Missing: missing})
		if err != nil {
			return granted, nil, err
		}
		decision, via = d, "asked"
	}
	r.emit(TranscriptEvent{Type: EventPermission, Skill: skill, Script: script, Requested: capabilities.Describe(missing), Decision: decision, Via: via})
	switch decision {
	case AllowAlways:
		r.mu.Lock()
		r.always[skill] = capabilities.Merge(r.always[skill], missing)
		r.mu.Unlock()
		return capabilities.Merge(granted, missing), nil, nil
	case AllowOnce:
		return capabilities.Merge(granted, missing), nil, nil
	}
	return granted, host.ErrorResult(fmt.Sprintf("%s:%s needs %s, which the operator has not granted (%s); the script did not run. The operator can grant it with %s",
		skill, script, capabilities.Describe(missing), via, strings.Join(capabilities.Flags(missing), " "))), nil
}

// grantFor is what skill's scripts are granted now: the operator's grant
// and what was allowed always in this session. Runs started by another
// script (skill_run) get this, and are never asked about.
func (r *run) grantFor(skill string) capabilities.Set {
	var granted capabilities.Set
	if r.s.Grant != nil {
		granted = r.s.Grant(skill)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return capabilities.Merge(granted, r.always[skill])
}

// callTools runs the calls of one turn and returns one result for each,
// in call order. Consecutive calls of tools that allow it run in
// parallel. fatal is a host failure that ends the session; the calls it
// left undone get results saying so. On cancellation every call still
// gets a result.
func (r *run) callTools(ctx context.Context, turn int, calls []ToolCall) (results []ToolOutput, fatal error) {
	results = make([]ToolOutput, len(calls))
	done := make([]bool, len(calls))
	var mu sync.Mutex // guards fatal
	sem := make(chan struct{}, r.limits.MaxParallel)
	for i := 0; i < len(calls); {
		j := i + 1
		if r.parallel(calls[i].Name) {
			for j < len(calls) && r.parallel(calls[j].Name) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			mu.Lock()
			stop := fatal != nil
			mu.Unlock()
			if stop || ctx.Err() != nil {
				break
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				res, err := r.callOne(ctx, turn, calls[k])
				mu.Lock()
				defer mu.Unlock()
				results[k], done[k] = res, true
				if err != nil && fatal == nil {
					fatal = err
				}
			})
		}
		wg.Wait()
		if ctx.Err() != nil || fatal != nil {
			break
		}
		i = j
	}
	why := "not run: the session ended"
	if ctx.Err() != nil {
		why = "not run: the session was cancelled (" + context.Cause(ctx).Error() + ")"
	} else if fatal != nil {
		why = "not run: the session ended on a host error in an earlier call"
	}
	for k := range calls {
		if !done[k] {
			results[k] = r.notRun(turn, calls[k:k+1], why)[0]
		}
	}
	return results, fatal
}

func (r *run) parallel(name string) bool {
	d, ok := r.scope[name]
	return ok && d.Parallel
}

// callOne runs one call and records it. Whatever goes wrong with the call
// itself is an error result for the model; the error return is a host
// failure (the call's result says so too).
func (r *run) callOne(ctx context.Context, turn int, c ToolCall) (ToolOutput, error) {
	r.emit(TranscriptEvent{Type: EventToolCall, Turn: turn, CallID: c.ID, Tool: c.Name, Input: safeJSON(c.Input)})
	t0 := time.Now()
	ctx, tier := host.RecordTiers(ctx)
	res, fatal := r.dispatch(ctx, c)
	res.CallID = c.ID
	r.mu.Lock()
	r.totals.ToolCalls++
	if res.IsError {
		r.totals.ToolErrors++
	}
	r.mu.Unlock()
	r.emit(TranscriptEvent{Type: EventToolResult, Turn: turn, CallID: c.ID, Tool: c.Name, Content: Truncate(res.Content, maxTranscriptContent),
		IsError: res.IsError, DurationMS: time.Since(t0).Milliseconds(), Tier: tier()})
	return res, fatal
}

func (r *run) dispatch(ctx context.Context, c ToolCall) (ToolOutput, error) {
	def, ok := r.scope[c.Name]
	if !ok {
		if _, exists := r.reg.Lookup(c.Name); exists {
			return ToolOutput{Content: fmt.Sprintf("tool %q is not available to agent %s", c.Name, r.def.QualifiedName()), IsError: true}, nil
		}
		return ToolOutput{Content: fmt.Sprintf("unknown tool %q; the tools are: %s", Truncate(c.Name, host.MaxToolNameLen), r.offered()), IsError: true}, nil
	}
	// The agent's identity, not its bare name: a plugin's agent named like
	// the one a tool requires is another agent.
	identity := r.def.QualifiedName()
	if err := CheckRequiredAgent(def, identity); err != nil {
		return ToolOutput{Content: err.Error(), IsError: true}, nil //nolint:nilerr // a refusal is the model's to see
	}
	// The registry checks the input (JSON, an object, the schema) and says
	// what is wrong in an error result.
	ctx = host.WithCaller(ctx, host.Caller{Agent: identity})
	res, err := r.reg.Call(ctx, c.Name, c.Input)
	switch {
	case err != nil && ctx.Err() != nil:
		return ToolOutput{Content: "cancelled: " + context.Cause(ctx).Error(), IsError: true}, nil //nolint:nilerr // the session ends on ctx itself
	case err != nil:
		return ToolOutput{Content: "host error: " + err.Error(), IsError: true}, fmt.Errorf("%s: %w", c.Name, err)
	}
	return ToolOutput{Content: res.Content, IsError: res.IsError}, nil
}

// offered lists the tools offered now, for an unknown tool's message.
func (r *run) offered() string {
	var names []string
	for _, t := range r.toolSpecs() {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	if len(names) > 40 {
		names = append(names[:40], "…")
	}
	return strings.Join(names, ", ")
}

// safeJSON returns raw if it is valid JSON of at most
// maxTranscriptContent bytes, else raw (cut to that size) as a JSON
// string, so a transcript line is always valid JSON and bounded.
func safeJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	if len(raw) <= maxTranscriptContent && json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(Truncate(string(raw), maxTranscriptContent))
	return b
}
