package yamlmod

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// ExecutorFile is a skill's implementation, beside its skill.yaml, as
// the ADR's layout has it: execute(input, tools) (a function, or a
// class's method; maybe a coroutine). A skill with one is served as the
// tool <id>__execute besides being disclosed, as a skill's script is
// served as <skill>__<script>.
const ExecutorFile = "executor.py"

// executorScript is the executor's name in its generated skill.toml.
const executorScript = "execute"

// findExecutor notes the skill's executor.py, if it has one: a regular
// file inside the module folder.
func (l *loader) findExecutor(p *parser, s *Skill, id string) {
	rel := path.Join(SkillsFolder, id, ExecutorFile)
	fi, err := l.root.Stat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		p.errf(0, "", "%s: %v", rel, describeFSError(err))
		return
	case !fi.Mode().IsRegular():
		p.errf(0, "", "%s is not a regular file", rel)
		return
	}
	dir, err := filepath.Abs(l.display(path.Join(SkillsFolder, id)))
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		p.errf(0, "", "%v", err)
		return
	}
	exec, err := executorSkill(s, dir)
	if err != nil {
		p.errf(0, "", "cannot make %s runnable: %v", rel, err)
		return
	}
	s.executor = exec
}

// executorSkill is the skill's folder as a skill whose generated
// manifest has one script, executor.py, run by moduleDriver. It
// declares what a published skill's scripts do (read the skill and the
// workspace, write the workspace) and the tools its methodology names,
// which it calls: the operator's grant decides.
func executorSkill(s *Skill, dir string) (*skills.Skill, error) {
	var md strings.Builder
	if err := writeFrontmatter(&md, skillFrontmatter{Name: s.ID,
		Description: fmt.Sprintf("The executor of the skill %s (%s).", s.ID, ExecutorFile)}); err != nil {
		return nil, err
	}
	fmt.Fprintf(&md, "# %s\n\nThis folder's %s runs the skill %s: execute(input, tools).\n", s.ID, ExecutorFile, s.ID)
	var m strings.Builder
	m.WriteString("# Made by skillrun from skill.yaml: executor.py, declaring what a published\n" +
		"# skill's script files do and the tools the skill's methodology names.\n" +
		"[capabilities]\nread = [\"skill\", \"workspace\"]\nwrite = [\"workspace\"]\n")
	if len(s.tools) > 0 {
		fmt.Fprintf(&m, "tools = %s\n", tomlStrings(s.tools))
	}
	fmt.Fprintf(&m, "\n[scripts.%s]\nsource = %s\nargs = [\"execute\"]\n", executorScript, tomlString(ExecutorFile))
	fsys := memFS{"SKILL.md": []byte(md.String()), "skill.toml": []byte(m.String())}
	sk, err := skills.LoadFS(fsys, ".", &skills.LoadOptions{DirName: s.ID})
	if err != nil {
		return nil, err
	}
	sk.Location = filepath.Join(dir, "SKILL.md")
	sk.Manifest.Scripts[executorScript].Driver = moduleDriver
	return sk, nil
}

// HasExecutor reports whether the skill comes with an executor.py.
func (s *Skill) HasExecutor() bool { return s.executor != nil }

// ExecutorSkill returns the skill's executor.py as a skill, to resolve
// its grant with scripts.Resolve (it declares the tools its methodology
// names); nil for a skill without one.
func (s *Skill) ExecutorSkill() *skills.Skill { return s.executor }

// ToolName is the name the skill's executor is served under:
// <id>__execute.
func (s *Skill) ToolName() string { return s.ID + "__" + executorScript }

// HostTool returns the skill's executor.py as the host tool
// <id>__execute (nil for a skill without one): its input is the skill's
// input_schema, its result what execute returned, checked against the
// output_schema. It runs in the Python sandbox under granted, or what
// o.Grant decides, deny by default; its tool calls reach o's
// Services.Tools through the tool_call host function, each checked
// against the grant's tools. A failing executor, a result that does not
// match the output_schema or a denied tool call gives a result with
// IsError set that says why; only a failure of the host is an error.
func (s *Skill) HostTool(r *scripts.Runner, granted capabilities.Set, o *scripts.ToolOptions) host.Tool {
	if s.executor == nil {
		return nil
	}
	var opts scripts.ToolOptions
	if o != nil {
		opts = *o
	}
	schema := s.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	desc := describeSkill(s)
	if len(s.Methodology) > 0 {
		desc += fmt.Sprintf(". Runs the skill's %s over its methodology's tools", ExecutorFile)
	}
	return &executorTool{r: r, s: s, granted: granted, opts: opts, def: host.ToolDef{
		Name:        s.ToolName(),
		Description: desc,
		InputSchema: schema,
		Source:      Source,
		Plugin:      s.ID,
		Parallel:    true,
	}}
}

// An executorTool is a skill's executor.py served as a host tool. It is
// immutable and safe for concurrent use.
type executorTool struct {
	r       *scripts.Runner
	s       *Skill
	granted capabilities.Set
	opts    scripts.ToolOptions
	def     host.ToolDef
}

func (et *executorTool) Definition() host.ToolDef { return et.def }

func (et *executorTool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || string(in) == "null" {
		in = []byte("{}")
	}
	// Anything but a JSON object leaves obj nil.
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(in, &obj)
	if obj == nil {
		return host.ErrorResult(et.def.Name + ": the input must be a JSON object"), nil
	}
	result, err := runModuleScript(ctx, et.r, et.s.executor, executorScript, et.granted, &et.opts, in, nil)
	if err != nil || result.IsError {
		return result, err
	}
	if et.s.out != nil {
		out := bytes.TrimSpace([]byte(result.Content))
		if !json.Valid(out) {
			out, _ = json.Marshal(string(out))
		}
		if err := et.s.CheckOutput(out); err != nil {
			return host.ErrorResult(err.Error()), nil
		}
	}
	return result, nil
}
