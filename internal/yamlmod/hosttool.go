package yamlmod

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// InputSchema returns the JSON Schema of the action's input: an object
// with a property per parameter (its type, description and default), the
// required ones required, and no other property.
func (a *Action) InputSchema() json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range a.Parameters {
		prop := map[string]any{"type": p.Type}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		if p.Default != nil {
			prop["default"] = p.Default
		}
		props[p.Name] = prop
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required,
		"additionalProperties": false})
	return b
}

// description is what the model reads of an action: its description,
// what it returns and the tool's constraints.
func (t *Tool) description(a *Action) string {
	var b strings.Builder
	b.WriteString(a.Description)
	if a.Returns != "" {
		b.WriteString("\n\nReturns: " + a.Returns)
	}
	if len(t.Constraints) > 0 {
		b.WriteString("\n\nConstraints:")
		for _, c := range t.Constraints {
			b.WriteString("\n- " + oneLine(c))
		}
	}
	return b.String()
}

// HostTools returns the tool's actions as host tools, one per action in
// order, each named [Action.ToolName], of source [Source] and plugin the
// tool's id, with [Action.InputSchema] and a description made of the
// action's description and returns and the tool's constraints.
//
// Call runs the action's script with [scripts.Runner.RunScript] as
// script [Action] of [Tool.ScriptSkill], under granted, or what o.Grant
// decides, with o's services (nil o: none): deny by default, as any
// skill's script. The script gets the input, a JSON object with the
// parameters' defaults filled in, on stdin (and from the input host
// function) and the action's name as its one argument; its stdout (or
// what it wrote with the output host function) is the result, and its
// Structured too when it is a JSON object. A script that exits non-zero
// or that the sandbox stopped (timeout, memory, a path outside its
// mounts) gives a result with IsError set that says why, with the tail
// of its stderr. Only a failure of the host (ctx cancelled) is an error.
func (t *Tool) HostTools(r *scripts.Runner, granted capabilities.Set, o *scripts.ToolOptions) []host.Tool {
	var opts scripts.ToolOptions
	if o != nil {
		opts = *o
	}
	out := make([]host.Tool, 0, len(t.Actions))
	for _, a := range t.Actions {
		if a.Script == "" {
			continue // no implementation yet: listed with a warning, not served
		}
		out = append(out, &actionTool{r: r, t: t, a: a, granted: granted, opts: opts, def: host.ToolDef{
			Name:        a.ToolName(),
			Description: t.description(a),
			InputSchema: a.InputSchema(),
			Source:      Source,
			Plugin:      t.ID,
			Parallel:    true, // each run has its own sandbox
		}})
	}
	return out
}

// An actionTool is one action served as a host tool. It is immutable
// and safe for concurrent use.
type actionTool struct {
	r       *scripts.Runner
	t       *Tool
	a       *Action
	granted capabilities.Set
	opts    scripts.ToolOptions
	def     host.ToolDef
}

func (at *actionTool) Definition() host.ToolDef { return at.def }

func (at *actionTool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	in, err := at.withDefaults(input)
	if err != nil {
		return host.ErrorResult(fmt.Sprintf("%s: %v", at.def.Name, err)), nil
	}
	return runModuleScript(ctx, at.r, at.t.skill, at.a.key, at.granted, &at.opts, in, []string{at.a.Name})
}

// runModuleScript runs script of sk (a tool's action, a skill's
// executor) for one tool call: under granted, or what o.Grant decides
// for what the script declares; the input on stdin and from the input
// host function; args as its arguments. A result whose text is a JSON
// object is its Structured too.
func runModuleScript(ctx context.Context, r *scripts.Runner, sk *skills.Skill, script string, granted capabilities.Set,
	o *scripts.ToolOptions, in []byte, args []string) (*host.ToolResult, error) {
	if o.Grant != nil {
		m := sk.Manifest
		declared := capabilities.Merge(m.Capabilities, m.Scripts[script].Capabilities)
		g, res, err := o.Grant(ctx, declared)
		if res != nil || err != nil {
			return res, err
		}
		granted = g
	}
	sr := &scripts.ScriptRun{
		Services: o.Services,
		Granted:  granted,
		Native:   o.Native,
		Args:     args,
		Input:    in,
		Stdin:    bytes.NewReader(in),
		Depth:    host.CallerFrom(ctx).Depth,
	}
	result, err := scripts.RunAsTool(ctx, r, sk, script, sr)
	if err != nil || result.IsError {
		return result, err
	}
	if trimmed := bytes.TrimSpace([]byte(result.Content)); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		result.Structured = json.RawMessage(trimmed)
	}
	return result, nil
}

// withDefaults decodes the input object and fills in the defaults of the
// parameters it leaves out.
func (at *actionTool) withDefaults(input json.RawMessage) (json.RawMessage, error) {
	in := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(input); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(trimmed, &in); err != nil || in == nil {
			return nil, errors.New("the input must be a JSON object")
		}
	}
	for _, p := range at.a.Parameters {
		if _, ok := in[p.Name]; !ok && p.Default != nil {
			in[p.Name] = p.Default
		}
	}
	return json.Marshal(in)
}
