package scripts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Bounds on what a script run as a tool returns.
const (
	// maxToolContent bounds the content of a script's tool result: the
	// bound every tool result keeps.
	maxToolContent = host.MaxResultContent
	// stderrTail is how much of the end of stderr an error result shows.
	stderrTail = 2 << 10
)

// ToolOptions are what the runs of a script tool may reach besides their
// mounts, each only as the run's effective grant allows (see [ScriptRun]).
type ToolOptions struct {
	// Services are what each run of the tool reaches beyond its sandbox
	// (see [ScriptRun]): the workspace, the auditor (nil: the call
	// context's), the logger and the providers of the host functions.
	host.Services
	// Grant, if set, decides each call's grant in place of the tool's
	// fixed one: it gets what the script declares and returns the grant
	// to run with, or a result to return without running (a refusal).
	// A session asks its operator here.
	Grant func(ctx context.Context, declared capabilities.Set) (capabilities.Set, *host.ToolResult, error)
	// Native, when set, runs the tool's source script as a confined host
	// process ([ScriptRun].Native): the operator's trust in this skill.
	Native *NativeTier
}

// ScriptTool returns script of the skill s as a [host.Tool] named
// [host.SkillToolName](s.Name, script), of source "skill" and plugin
// s.Name; for a script file ("scripts/fill_form.py", see
// [skills.Skill.FileScripts]) the name has the file's stem
// (pdf__fill_form) and the input is a command line. Its description is the script's (or else the skill's), its
// input schema the script's input_schema file, read through os.Root and
// bounded by [host.MaxSchemaSize], or commandLineSchema if the script
// declares none.
//
// Call runs the script with [Runner.RunScript] under granted (or what
// o.Grant decides), with o's services (a nil o is the zero ToolOptions):
// the workspace mounted as granted, and the tools, skills and MCP servers
// the script may call, as under `skillrun run`. The input is what the
// input host function returns and also the script's stdin; for a command-line tool (no input
// schema) the input's "args" are the script's arguments and its "stdin",
// if given, the script's stdin instead. The result's content is what the
// script wrote with the output host function or, if nothing, its stdout.
// A script that exits non-zero, or that the sandbox stopped (timeout,
// memory, output limit, trap, denial, or a module not built), gives a
// result with IsError set that says why and ends with the tail of its
// stderr. Only a failure of the host itself (ctx cancelled) is an error.
func ScriptTool(r *Runner, s *skills.Skill, script string, granted capabilities.Set, o *ToolOptions) host.Tool {
	t := &scriptTool{r: r, s: s, script: script, granted: granted}
	if o != nil {
		t.opts = *o
	}
	t.def = host.ToolDef{
		Name:        host.SkillToolName(s.Name, script),
		Description: s.Description,
		Source:      host.SourceSkill,
		Plugin:      s.Name,
		Parallel:    true, // each run has its own sandbox
	}
	if skills.IsFileScriptName(script) {
		// A script file, as a published SKILL.md names it: the tool is
		// <skill>__<file stem>, a command line, described by the file
		// and the skill.
		stem := strings.TrimSuffix(path.Base(script), path.Ext(script))
		t.def.Name = host.SkillToolName(s.Name, stem)
		t.def.Description = "Runs " + script + " of the skill " + s.Name + " with the given arguments and stdin. " + s.Description
		t.def.InputSchema, t.argv = commandLineSchema, true
		return t
	}
	if s.Manifest != nil {
		if sc := s.Manifest.Scripts[script]; sc != nil {
			if d := strings.TrimSpace(sc.Description); d != "" {
				t.def.Description = d
			}
			// The agent the script requires, by identity: another skill's
			// agent of the same name is not it.
			t.def.RequiredAgent = sc.RequiredAgentIdentity(s.Name)
			if sc.InputSchema != "" {
				t.def.InputSchema, t.schemaErr = readSchema(filepath.Dir(s.Location), sc.InputSchema)
			} else {
				t.def.InputSchema, t.argv = commandLineSchema, true
			}
		}
	}
	return t
}

type scriptTool struct {
	r         *Runner
	s         *skills.Skill
	script    string
	granted   capabilities.Set
	opts      ToolOptions
	def       host.ToolDef
	schemaErr error
	argv      bool // no input schema: "args" and "stdin" of the input are the command line
}

// commandLineSchema is the input schema of a script tool whose script
// declares none: most scripts are command-line programs, so the input's
// "args" become the script's arguments and "stdin" its standard input.
// Other keys are allowed and reach the script through the input host
// function with the rest of the input.
var commandLineSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"args":{"type":"array","items":{"type":"string"},"maxItems":256,"description":"the script's command-line arguments"},` +
	`"stdin":{"type":"string","description":"text for the script's standard input"}}}`)

// commandLine decodes the "args" and "stdin" of a command-line tool's
// input (already checked against commandLineSchema).
func commandLine(input json.RawMessage) (args []string, stdin io.Reader) {
	var in struct {
		Args  []string `json:"args"`
		Stdin *string  `json:"stdin"`
	}
	_ = json.Unmarshal(input, &in) // the registry validated it; a bad shape just gives no args
	if in.Stdin != nil {
		return in.Args, strings.NewReader(*in.Stdin)
	}
	return in.Args, bytes.NewReader(input)
}

func (t *scriptTool) Definition() host.ToolDef { return t.def }

func (t *scriptTool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	if t.schemaErr != nil {
		// The tool's own fault, for the caller to see: not a host failure.
		return host.ErrorResult(fmt.Sprintf("%s:%s: its input schema cannot be read: %v", t.s.Name, t.script, t.schemaErr)), nil //nolint:nilerr // reported in the result
	}
	_, declared, err := declaredOf(t.s, t.script)
	if err != nil {
		return host.ErrorResult(err.Error()), nil //nolint:nilerr // the tool's own fault, reported in the result
	}
	granted := t.granted
	if t.opts.Grant != nil {
		g, res, err := t.opts.Grant(ctx, declared)
		if res != nil || err != nil {
			return res, err
		}
		granted = g
	}
	sr := &ScriptRun{
		Services: t.opts.Services, // RunScript builds the workspace tools
		Granted:  granted,
		Native:   t.opts.Native,

		Input: input,
		Stdin: bytes.NewReader(input),
		Depth: host.CallerFrom(ctx).Depth,
	}
	if t.argv {
		sr.Args, sr.Stdin = commandLine(input)
	}
	return RunAsTool(ctx, t.r, t.s, t.script, sr)
}

// RunAsTool runs script of s as a tool call, with [Runner.RunScript]:
// sr's Stdout, Stderr and Output are replaced by buffers (each bounded)
// that make the result. The result's content is what the script wrote
// with the output host function or, if nothing, its stdout. A script
// that exits non-zero, or that the sandbox stopped, gives a result with
// IsError set that says why, with the tail of its stderr; only a failure
// of the host (ctx cancelled) is an error. Other tools made of scripts
// (YAML tool modules) run their scripts through it too.
func RunAsTool(ctx context.Context, r *Runner, s *skills.Skill, script string, sr *ScriptRun) (*host.ToolResult, error) {
	label := s.Name + ":" + script
	var stdout, stderr, output boundedBuffer
	stdout.limit, stderr.limit, output.limit = maxToolContent, maxToolContent, maxToolContent
	sr.Stdout, sr.Stderr, sr.Output = &stdout, &stderr, &output
	res, err := r.RunScript(ctx, s, script, sr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		return host.BoundResult(host.ErrorResult(withTail(fmt.Sprintf("%s failed: %v", label, err), stderr.String()))), nil
	}
	content := output.String()
	if output.n == 0 {
		content = stdout.String()
	}
	if res.ExitCode != 0 {
		msg := fmt.Sprintf("%s exited with status %d", label, res.ExitCode)
		if strings.TrimSpace(content) != "" {
			// Room for the tail of stderr, which says why.
			msg += "\n" + host.CutText(content, maxToolContent-len(msg)-stderrTail-64)
		}
		return host.BoundResult(host.ErrorResult(withTail(msg, stderr.String()))), nil
	}
	return &host.ToolResult{Content: content}, nil
}

// withTail appends the tail of stderr, if any, to msg.
func withTail(msg, stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return msg
	}
	if len(stderr) > stderrTail {
		cut := len(stderr) - stderrTail
		for cut < len(stderr) && !utf8.RuneStart(stderr[cut]) {
			cut++
		}
		stderr = "..." + stderr[cut:]
	}
	return msg + "\nstderr:\n" + stderr
}

// boundedBuffer keeps the first limit bytes written to it and counts
// them all; writes never fail, so a chatty script is not stopped by it.
type boundedBuffer struct {
	buf   bytes.Buffer
	limit int
	n     int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.n += int64(len(p))
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String is what was written, or, if that was over the limit, its first
// bytes and the [host.CutNotice] of the rest, together within the limit.
func (b *boundedBuffer) String() string {
	s := b.buf.String()
	if b.n == int64(len(s)) {
		return s
	}
	n := min(max(b.limit-len(host.CutNotice(b.n)), 0), len(s))
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + host.CutNotice(b.n-int64(n))
}

// readSchema reads a schema file of a skill through os.Root, so a symlink
// cannot lead outside the skill folder, bounded by [host.MaxSchemaSize].
func readSchema(skillDir, name string) (json.RawMessage, error) {
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, host.MaxSchemaSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > host.MaxSchemaSize {
		return nil, fmt.Errorf("%s is larger than the %d KiB limit", name, host.MaxSchemaSize>>10)
	}
	return data, nil
}
