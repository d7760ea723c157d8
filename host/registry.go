package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Bounds on what a registry accepts. Inputs come from a model, a guest or
// an MCP client, and schemas from skill manifests and MCP servers: none of
// them is trusted.
const (
	// maxInputSize bounds the JSON input of one tool call in bytes.
	maxInputSize = 1 << 20
	// MaxSchemaSize bounds an input or output schema in bytes.
	MaxSchemaSize = 256 << 10
	// MaxToolNameLen bounds a tool name, as MCP and the Anthropic API do.
	MaxToolNameLen = 128
)

// Tool sources, the values of [ToolDef.Source] the registry knows.
const (
	SourceCore  = "core"
	SourceSkill = "skill"
	SourceMCP   = "mcp"
	// SourceMarkdown is a Markdown skill (AchillesAgentLib's
	// .AchillesSkills kinds), served as skill_<name> as that format
	// names it.
	SourceMarkdown = "mdskill"
	// SourceYAML is an action of a YAML tool module (tools/<id>/tool.yaml),
	// served as <tool>__<action>.
	SourceYAML = "yamlmod"
)

// reservedSkillTools are the core tools a Markdown skill's name could
// spell (a skill named "search" would be skill_search).
var reservedSkillTools = []string{ToolSkillSearch, ToolSkillActivate, ToolSkillRead, "skill_run"}

// ErrUnknownTool is wrapped by the error [Registry.Call] returns for a
// name no tool has.
var ErrUnknownTool = errors.New("unknown tool")

// errToolExists is wrapped by the error [Registry.Add] returns for a name
// another tool already has.
var errToolExists = errors.New("tool name already registered")

// validToolName is the tool-name rule of MCP and the Anthropic API.
var validToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// A Registry holds the tools an agent, a guest or an MCP client can call:
// core tools, skill scripts and tools from other sources, behind one
// [Tool] interface and in one name space. It validates every call's input
// against the tool's input schema, its structured output against the
// output schema, and the calling agent against [ToolDef.RequiredAgent].
//
// # Names
//
// Names match ^[a-zA-Z0-9_-]{1,128}$. Core tools have bare names
// ("workspace_read"); every other tool's name is namespaced with "__"
// ([SkillToolName], [MCPToolName]), so no skill or server can shadow a
// core tool or another source's tool:
//   - a core tool's name holds no "__";
//   - any other tool's name holds "__", and only an "mcp" tool's name
//     starts with "mcp__";
//   - a "skill" tool with a Plugin starts with [SkillToolName](Plugin, "");
//   - a Markdown skill ([SourceMarkdown]) is skill_<name>, the format's
//     own name, never one of the disclosure tools' names.
//
// A Registry is safe for concurrent use. Tools are called without a lock
// held, so a slow tool blocks nobody and may itself use the registry.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*toolEntry
	gen   uint64 // incremented on every change, for the search index

	searchMu sync.Mutex
	search   *searchIndex // built lazily from gen; see search.go
}

// toolEntry is one registered tool with its compiled schemas.
type toolEntry struct {
	tool    Tool
	def     ToolDef
	in, out *jsonschema.Schema // nil: no schema
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{tools: make(map[string]*toolEntry)}
}

// Add registers t under the name of its definition. It compiles the
// definition's schemas (a schema cannot refer to a file or URL, and is at
// most [MaxSchemaSize] bytes) and refuses a name that breaks the rules in
// [Registry] or that another tool has (wrapping [errToolExists]).
func (r *Registry) Add(t Tool) error {
	if t == nil {
		return errors.New("host: Add(nil)")
	}
	def := t.Definition()
	if err := checkToolName(def); err != nil {
		return err
	}
	e := &toolEntry{tool: t, def: def}
	var err error
	if e.in, err = compileToolSchema(def.Name, "input", def.InputSchema); err != nil {
		return err
	}
	if e.out, err = compileToolSchema(def.Name, "output", def.OutputSchema); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.tools[def.Name]; ok {
		return fmt.Errorf("host: tool %q (%s) not added: %w by %s", def.Name, describeSource(def), errToolExists, describeSource(old.def))
	}
	r.tools[def.Name] = e
	r.gen++
	return nil
}

func describeSource(d ToolDef) string {
	if d.Plugin != "" {
		return d.Source + " " + d.Plugin
	}
	return d.Source
}

// checkToolName applies the naming rules documented on Registry.
func checkToolName(d ToolDef) error {
	bad := func(why string) error {
		return fmt.Errorf("host: invalid tool name %q (source %q): %s", d.Name, d.Source, why)
	}
	if !validToolName.MatchString(d.Name) {
		return bad("a name is 1 to 128 ASCII letters, digits, '_' or '-'")
	}
	if d.Source == "" {
		return bad(`the definition has no source ("core", "skill", "mcp", ...)`)
	}
	namespaced := strings.Contains(d.Name, "__")
	if d.Source == SourceMarkdown {
		switch {
		case !strings.HasPrefix(d.Name, "skill_") || namespaced:
			return bad(`a Markdown skill's tool is skill_<name>, with no "__"`)
		case slices.Contains(reservedSkillTools, d.Name):
			return bad("the name is a core tool's")
		}
		return nil
	}
	switch {
	case d.Source == SourceCore && namespaced:
		return bad(`core tool names hold no "__"`)
	case d.Source != SourceCore && !namespaced:
		return bad(`only core tools have bare names; namespace it as "<source>__<tool>", e.g. with SkillToolName or MCPToolName`)
	case d.Source == SourceMCP && !strings.HasPrefix(d.Name, "mcp__"):
		return bad(`MCP tool names start with "mcp__" (use MCPToolName)`)
	case d.Source != SourceMCP && strings.HasPrefix(d.Name, "mcp__"):
		return bad(`the "mcp__" prefix is reserved for MCP tools`)
	case d.Source == SourceSkill && d.Plugin != "" && !strings.HasPrefix(d.Name, SkillToolName(d.Plugin, "")):
		return bad(fmt.Sprintf("a tool of skill %q is named %q (use SkillToolName)", d.Plugin, SkillToolName(d.Plugin, "SCRIPT")))
	}
	return nil
}

// compiledSchemas keeps compiled schemas by their text, so a schema that
// many tools or registries share (a session's own tools, a script's
// command-line schema, a reloaded skill) is compiled once. A compiled
// schema is immutable and safe for concurrent validation. At most
// maxCompiledSchemas are kept; beyond that, schemas are compiled each time.
var compiledSchemas struct {
	sync.Mutex
	m map[[32]byte]*jsonschema.Schema
}

const maxCompiledSchemas = 4096

// compileToolSchema compiles a tool's schema, or returns nil for none. The
// compiler loads nothing: a $ref to a file or URL fails.
func compileToolSchema(tool, which string, raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	if len(raw) > MaxSchemaSize {
		return nil, fmt.Errorf("host: tool %q: %s schema is %d bytes, over the %d-byte limit", tool, which, len(raw), MaxSchemaSize)
	}
	key := sha256.Sum256(raw)
	compiledSchemas.Lock()
	cached, ok := compiledSchemas.m[key]
	compiledSchemas.Unlock()
	if ok {
		return cached, nil
	}
	s, err := compileSchema(tool, which, raw, fmt.Sprintf("urn:skillrun:schema:%x", key[:16]))
	if err != nil {
		return nil, err
	}
	compiledSchemas.Lock()
	if compiledSchemas.m == nil {
		compiledSchemas.m = map[[32]byte]*jsonschema.Schema{}
	}
	if len(compiledSchemas.m) < maxCompiledSchemas {
		compiledSchemas.m[key] = s
	}
	compiledSchemas.Unlock()
	return s, nil
}

// compileSchema compiles raw as the resource url.
func compileSchema(tool, which string, raw json.RawMessage, url string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("host: tool %q: %s schema is not valid JSON: %w", tool, which, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no file or network access
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("host: tool %q: %s schema: %w", tool, which, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("host: tool %q: invalid %s schema: %w", tool, which, err)
	}
	return s, nil
}

// Remove removes the tool called name, if there is one.
func (r *Registry) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; ok {
		delete(r.tools, name)
		r.gen++
	}
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// List returns the definitions of every tool, sorted by name.
func (r *Registry) List() []ToolDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.listLocked()
}

// listLocked is List with r.mu held.
func (r *Registry) listLocked() []ToolDef {
	defs := make([]ToolDef, 0, len(r.tools))
	for _, name := range slices.Sorted(maps.Keys(r.tools)) {
		defs = append(defs, r.tools[name].def)
	}
	return defs
}

// Call calls the tool called name with input, for the [Caller] in ctx.
//
// A call the tool must not see is a result with IsError set, which names
// what was wrong so that a model can correct itself: a caller that is not
// the tool's RequiredAgent, input that is over 1 MiB, not JSON,
// or does not satisfy the input schema (naming each field and why). Empty
// input means {}. A tool result whose Structured value does not satisfy
// the output schema is replaced by an IsError result saying so.
//
// An error return is a host failure: a name no tool has (wrapping
// [ErrUnknownTool]), or the tool's own error, wrapped.
func (r *Registry) Call(ctx context.Context, name string, input json.RawMessage) (*ToolResult, error) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("host: tool %q: %w", name, ErrUnknownTool)
	}
	if want := e.def.RequiredAgent; want != "" {
		if got := CallerFrom(ctx).Agent; got != want {
			if got == "" {
				got = "(none)"
			}
			return ErrorResult(fmt.Sprintf("tool %s can only be called by agent %q; it was called by agent %q", name, want, got)), nil
		}
	}
	input, res := e.checkInput(input)
	if res != nil {
		return res, nil
	}
	res, err := e.tool.Call(ctx, input)
	if err != nil {
		return nil, fmt.Errorf("host: tool %q: %w", name, err)
	}
	if res == nil {
		return nil, fmt.Errorf("host: tool %q returned neither a result nor an error", name)
	}
	if e.out != nil && res.Structured != nil && !res.IsError {
		if msg := validateJSON(e.out, res.Structured); msg != "" {
			return ErrorResult(fmt.Sprintf("tool %s returned output that does not match its schema: %s", name, msg)), nil
		}
	}
	return res, nil
}

// checkInput returns the input to pass to the tool, or an error result.
func (e *toolEntry) checkInput(input json.RawMessage) (json.RawMessage, *ToolResult) {
	name := e.def.Name
	if len(input) > maxInputSize {
		return nil, ErrorResult(fmt.Sprintf("tool %s: input is %d bytes, over the %d-byte limit", name, len(input), maxInputSize))
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	if e.in == nil {
		if !json.Valid(input) {
			return nil, ErrorResult(fmt.Sprintf("tool %s: input is not valid JSON", name))
		}
		if bytes.TrimSpace(input)[0] != '{' {
			return nil, ErrorResult(fmt.Sprintf("tool %s: input must be a JSON object", name))
		}
		return input, nil
	}
	if msg := validateJSON(e.in, input); msg != "" {
		return nil, ErrorResult(fmt.Sprintf("tool %s: invalid input: %s", name, msg))
	}
	return input, nil
}

// validate checks the JSON value raw against s, returning "" or what is
// wrong.
func validateJSON(s *jsonschema.Schema, raw json.RawMessage) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	err = s.Validate(v)
	if err == nil {
		return ""
	}
	ve, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return err.Error()
	}
	var msgs []string
	validationLeaves(ve, func(e *jsonschema.ValidationError) {
		msg := e.ErrorKind.LocalizedString(schemaPrinter())
		if len(e.InstanceLocation) > 0 { // else the problem is with the whole value
			msg = "at /" + strings.Join(e.InstanceLocation, "/") + ": " + msg
		}
		msgs = append(msgs, msg)
	})
	slices.Sort(msgs)
	return strings.Join(slices.Compact(msgs), "; ")
}

// schemaPrinter is made on first use, not at every command's start.
var schemaPrinter = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// validationLeaves calls f for each innermost cause of e: the specific problems,
// without the "does not match" of every enclosing schema.
func validationLeaves(e *jsonschema.ValidationError, f func(*jsonschema.ValidationError)) {
	if len(e.Causes) == 0 {
		f(e)
		return
	}
	for _, c := range e.Causes {
		validationLeaves(c, f)
	}
}

// SkillToolName returns the name of the tool for script of skill:
// skill+"__"+script, with every character outside [a-zA-Z0-9_-] replaced
// by '_' (skill names may hold any Unicode letter). Two different skills
// can map to the same name ("données" and "donn_es"); [Registry.Add]
// refuses the second, so neither can shadow the other. A name over 128
// bytes is refused by Add too.
func SkillToolName(skill, script string) string {
	return sanitizeToolName(skill) + "__" + sanitizeToolName(script)
}

// MCPToolName returns the name of the tool bridged from MCP server
// server: "mcp__"+server+"__"+tool.
func MCPToolName(server, tool string) string {
	return "mcp__" + server + "__" + tool
}

func sanitizeToolName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, s)
}
