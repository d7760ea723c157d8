package scripts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/internal/fsguard"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// ErrNotRunnable matches errors that stop a script before it starts for a
// reason in the request or the skill, not the sandbox: no such script, a
// kind this runtime cannot run, a module not built yet, a workspace that is
// not a folder. The CLI reports them as usage errors (exit 2).
var ErrNotRunnable = errors.New("not runnable")

// maxModuleSize bounds a module file read from a skill.
const maxModuleSize = 256 << 20

// A ScriptRun says how to run one script of a loaded skill with
// [Runner.RunScript].
type ScriptRun struct {
	// Services are what the run reaches beyond its sandbox: the
	// workspace mounted at /workspace (as granted), the auditor of every
	// capability use and denial, the logger of its log lines, and the
	// providers of tool_call, skills_*, mcp_call and http_fetch, each
	// checked against the effective grant. The workspace tools never
	// come from Services.Tools: every run gets its own, built over the
	// workspace and the run's effective grant, with the protected
	// folders kept unchangeable, because a caller's act with the caller's
	// wider grant. A nil Fetch means a [host.Fetcher] over the effective
	// grant.
	host.Services
	// Args are passed after the manifest's fixed args.
	Args           []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Granted is what the operator grants. The script gets
	// declared ∩ granted ([capabilities.Effective]); nothing by default.
	Granted capabilities.Set
	// Input is what the input host function returns: a JSON value (other
	// bytes reach the guest as a JSON string); nil means null.
	Input []byte
	// Output receives the bytes the script writes with the output host
	// function; nil means Stdout. They count against the run's one output
	// limit, with stdout, stderr and log lines.
	Output io.Writer
	// Depth is the nesting depth of the run: 0 for a run the user or an
	// agent started, the depth given to [host.SkillIndex.RunScript] for a
	// run started by another script's skill_run.
	Depth int
	// Interpreters finds the interpreter of a "source" script (source.go).
	// Nil means the Runtime's ([Options.Interpreters]).
	Interpreters InterpreterFunc
	// Protected are host folders the script may never change through a
	// writable mount ([sandbox.RunConfig.Protected]): set it to the folders of
	// every other skill loaded alongside, so that a script with write
	// access to a workspace holding them cannot rewrite their code.
	// RunScript adds the script's own skill folder, the interpreters'
	// folders and the Runtime's compile cache.
	Protected []string

	// Native, when set, runs a source script as a confined host process
	// instead of in WebAssembly (see [NativeTier]). Only the operator
	// sets it, for a skill it trusts with it.
	Native *NativeTier

	// exec serves the exec host function of a shell run (exec.go).
	exec *execService
}

// declaredOf returns a script of s and what it declares: the skill-level
// capabilities extended by the script's own ([capabilities.Merge]). A
// script named by a file path ("scripts/x.py", see
// [skills.Skill.FileScript]) that skill.toml does not list declares the
// skill-level capabilities, or, in a skill without skill.toml,
// fileScriptDeclares.
func declaredOf(s *skills.Skill, script string) (*skills.Script, capabilities.Set, error) {
	if s.Manifest != nil {
		if sc, ok := s.Manifest.Scripts[script]; ok {
			return sc, capabilities.Merge(s.Manifest.Capabilities, sc.Capabilities), nil
		}
	}
	if skills.IsFileScriptName(script) {
		sc, err := s.FileScript(script)
		if err != nil {
			return nil, capabilities.Set{}, fmt.Errorf("%w: %s:%s: %w", ErrNotRunnable, s.Name, script, err)
		}
		if s.Manifest == nil {
			return sc, fileScriptDeclares(), nil
		}
		return sc, capabilities.Merge(s.Manifest.Capabilities, sc.Capabilities), nil
	}
	if s.Manifest == nil || len(s.Manifest.Scripts) == 0 {
		return nil, capabilities.Set{}, fmt.Errorf("%w: skill %s has no script %q (no [scripts] in skill.toml; run a file of the skill as %s:scripts/FILE)", ErrNotRunnable, s.Name, script, s.Name)
	}
	return nil, capabilities.Set{}, fmt.Errorf("%w: skill %s has no script %q (it has: %v)", ErrNotRunnable, s.Name, script, s.Manifest.ScriptNames())
}

// fileScriptDeclares is what a script file of a skill without skill.toml
// declares: reading the skill, reading and writing the workspace, nothing
// else (no environment, no network, no tools). It is what a published
// skill's scripts need to work as their SKILL.md says, and all an
// operator's grant (-A) can give them.
func fileScriptDeclares() capabilities.Set {
	return capabilities.Set{
		Read:  []capabilities.Path{{Root: capabilities.RootSkill}, {Root: capabilities.RootWorkspace}},
		Write: []capabilities.Path{{Root: capabilities.RootWorkspace}},
	}
}

// Resolve is what r grants script of s ([capabilities.Resolver.Resolve]
// over what declaredOf returns), or, with script "", the whole skill: what
// the skill and all its scripts declare, with the widest limit any of
// them declares (a grant for the skill must cover each script's). It is how `skillrun run` decides
// before a run (and asks about Missing in a terminal); pass the
// Resolution's Granted as [ScriptRun.Granted]. Errors: [ErrNotRunnable]
// for a script that does not exist, and the resolver's for bad flags.
func Resolve(s *skills.Skill, script string, r *capabilities.Resolver) (capabilities.Resolution, error) {
	var declared capabilities.Set
	switch {
	case script != "":
		_, d, err := declaredOf(s, script)
		if err != nil {
			return capabilities.Resolution{}, err
		}
		declared = d
	case s.Manifest == nil:
		declared = fileScriptDeclares() // its script files'
	default:
		declared = s.Manifest.Capabilities
		for _, name := range s.Manifest.ScriptNames() {
			_, d, _ := declaredOf(s, name) // name is one of the manifest's
			widest := capabilities.Merge(declared, d)
			widest.Memory = max(declared.Memory, d.Memory)
			widest.Timeout = max(declared.Timeout, d.Timeout)
			widest.Output = max(declared.Output, d.Output)
			declared = widest
		}
	}
	return r.Resolve(s.Ref(), declared)
}

// RunScript runs one script of a skill loaded from a folder on disk, with
// the effective grant turned into mounts, environment and limits: the
// granted parts of the skill folder read-only under /skill, of the
// workspace under /workspace (writable where write is granted), the
// granted environment variables that are set on the host, and the tighter
// of each declared and granted limit. The module is read through os.Root
// (no symlink out of the skill) and compiled once per Runtime.
//
// Errors: [ErrNotRunnable] for the request, [capabilities.ErrDenied] for a
// grant that is never given (write access to the skill folder), and the
// errors of [sandbox.CompiledModule.Run].
func (r *Runner) RunScript(ctx context.Context, s *skills.Skill, script string, sr *ScriptRun) (*sandbox.Result, error) {
	if sr == nil {
		sr = &ScriptRun{}
	}
	sc, declared, err := declaredOf(s, script)
	if err != nil {
		return nil, err
	}
	label := s.Name + ":" + script
	if sc.Kind != skills.KindWASI && sc.Kind != skills.KindExtism && sc.Kind != skills.KindSource {
		return nil, fmt.Errorf("%w: %s: scripts of kind %q cannot run; this skillrun runs kinds %q (module = ...), %q (plugin = ...) and %q (source = ...)",
			ErrNotRunnable, label, sc.Kind, skills.KindWASI, skills.KindExtism, skills.KindSource)
	}
	skillDir := filepath.Dir(s.Location)
	if fi, err := os.Stat(skillDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s: running needs the skill as a folder on disk (extract a zipped skill first)", ErrNotRunnable, label)
	}
	eff := capabilities.Effective(declared, sr.Granted)
	protected := r.protectedDirs(skillDir, sr)
	own := *sr // the run's own tools, over its own grant (runtools.go)
	own.Tools = runTools(sr.Workspace, eff, sr.Tools, protected)
	sr = &own
	// The mounts (and the folders of write grants, created) are made only
	// once the run is known to start: a script that cannot run changes
	// nothing.
	mount := func() ([]sandbox.Mount, error) {
		mounts, err := mountsFor(eff, skillDir, sr.Workspace, protected)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		return mounts, nil
	}
	// The run's turn among the Runner's runs in flight (admission.go),
	// taken once the run is known to be runnable.
	nativeTier := sc.Kind == skills.KindSource && sr.Native != nil
	ctx, done, err := r.admit(ctx, s, script, eff, nativeTier, sr)
	if err != nil {
		return nil, err
	}
	defer done()
	if nativeTier {
		return r.runNative(ctx, s, script, sc, skillDir, protected, eff, sr, nil)
	}
	if sc.Kind == skills.KindSource {
		return r.runSourceScript(ctx, s, script, sc, skillDir, mount, protected, eff, sr)
	}
	file := sc.Module
	if sc.Kind == skills.KindExtism {
		file = sc.Plugin
	}
	wasm, err := readModule(skillDir, file)
	if err != nil {
		hint := ""
		if sc.Build != nil {
			hint = "; build it with `skillrun build`"
		}
		return nil, fmt.Errorf("%w: %s: module %s: %w%s", ErrNotRunnable, label, file, err, hint)
	}
	if sc.Kind == skills.KindExtism {
		if _, err := mount(); err != nil { // a plugin has no mounts, but its grant is checked the same
			return nil, err
		}
		return r.runPluginScript(ctx, s, script, sc, wasm, eff, sr)
	}
	m, err := r.compileScript(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", label, sc.Module, err)
	}
	mounts, err := mount()
	if err != nil {
		return nil, err
	}
	mounts, env, removeTmp, err := withTmp(mounts, withWorkdir(envFor(eff), mounts), eff)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	defer removeTmp()

	return runCompiled(ctx, m, s, script, sc, eff, sr, &sandbox.RunConfig{
		Args:      append(append([]string{}, sc.Args...), sr.Args...),
		Env:       env,
		Mounts:    mounts,
		Protected: protected,
	}, "")
}

// protectedDirs are the folders a script run may never change: the ones
// sr names, the skill's own folder and [Runner.ProtectedDirs].
// runSourceScript adds the interpreter it uses.
func (r *Runner) protectedDirs(skillDir string, sr *ScriptRun) []string {
	return r.ProtectedDirs(append(append([]string{}, sr.Protected...), skillDir)...)
}

// scriptAudit returns the auditor of a run of script (sr's, else ctx's),
// bounded per run because the guest decides how many events its run
// makes, and the same auditor stamping the skill and script on the
// sandbox's events.
func scriptAudit(ctx context.Context, s *skills.Skill, script string, sr *ScriptRun) (bounded, stamped audit.Auditor) {
	base := sr.Auditor
	if base == nil {
		base = audit.AuditorFrom(ctx) // Discard if ctx has none
	}
	bounded = audit.LimitAuditor(base, 0, 0)
	stamped = audit.AuditorFunc(func(ctx context.Context, e audit.Event) {
		e.Skill, e.Script = s.Name, script
		bounded.Audit(ctx, e)
	})
	return bounded, stamped
}

// auditRun records that a run of label starts with the effective grant
// eff.
func auditRun(ctx context.Context, a audit.Auditor, label string, eff capabilities.Set, note string) {
	a.Audit(ctx, audit.Event{Time: time.Now(), Kind: "run", Value: label, Decision: audit.Allow,
		Reason: "effective: " + capabilities.Describe(eff) + note})
}

// runCompiled runs m as script of s, audited, with the host functions of
// sr and the limits of eff; rc brings the arguments, environment and
// mounts, the rest of it is filled in here. note is added to the audit
// line of the run.
func runCompiled(ctx context.Context, m runnable, s *skills.Skill, script string, sc *skills.Script,
	eff capabilities.Set, sr *ScriptRun, rc *sandbox.RunConfig, note string) (*sandbox.Result, error) {
	label := s.Name + ":" + script
	host.NoteTier(ctx, false)
	auditor, stamped := scriptAudit(ctx, s, script, sr)
	auditRun(ctx, stamped, label, eff, note)
	rc.Host = scriptHostEnv(s, script, eff, auditor, sr)
	if rc.Name == "" {
		rc.Name = label
	}
	rc.Stdin, rc.Stdout, rc.Stderr = sr.Stdin, sr.Stdout, sr.Stderr
	rc.Memory, rc.Timeout, rc.Output = uint64(eff.Memory), time.Duration(eff.Timeout), uint64(eff.Output)
	rc.Auditor = stamped
	rc.Deterministic = sc.Deterministic
	return m.Run(ctx, rc)
}

// scriptHostEnv builds the host functions' view of one script run.
func scriptHostEnv(s *skills.Skill, script string, eff capabilities.Set, auditor audit.Auditor, sr *ScriptRun) *host.Env {
	out := sr.Output
	if out == nil {
		out = sr.Stdout
	}
	// The run's services, with its auditor, skill_read of its own skill,
	// and a fetcher over its own grant unless one was given.
	svc := sr.Services
	svc.Auditor = auditor
	svc.Skills = &selfIndex{self: s, SkillIndex: sr.Skills}
	if svc.Fetch == nil {
		svc.Fetch = fetchFunc(host.NewFetcher(eff, &host.FetchOptions{Auditor: auditor, Skill: s.Name, Script: script}))
	}
	var exec host.ExecFunc
	if sr.exec != nil {
		exec = sr.exec.execFunc()
	}
	return &host.Env{
		Exec:        exec,
		Skill:       s.Name,
		Script:      script,
		Granted:     eff,
		Input:       sr.Input,
		Output:      out,
		OutputLimit: int64(eff.Output),
		Services:    svc,
		Depth:       sr.Depth,
	}
}

// fetchFunc adapts a Fetcher to the JSON form of [host.FetchFunc].
func fetchFunc(f *host.Fetcher) host.FetchFunc {
	return func(ctx context.Context, req json.RawMessage) (json.RawMessage, error) {
		var r host.FetchRequest
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, abi.Errorf(abi.CodeInvalid, "http_fetch: malformed request: %v", err)
		}
		resp, err := f.Fetch(ctx, &r)
		if err != nil {
			if errors.Is(err, host.ErrInvalidFetch) {
				return nil, abi.Errorf(abi.CodeInvalid, "http_fetch: %v", err)
			}
			return nil, err
		}
		return json.Marshal(resp)
	}
}

// selfIndex serves skill_read of the running skill from the skill itself,
// so a script reads its own files whatever index (if any) the run has,
// and passes everything else to the index.
type selfIndex struct {
	self *skills.Skill
	host.SkillIndex
}

func (x *selfIndex) index(fn string) (host.SkillIndex, error) {
	if x.SkillIndex == nil {
		return nil, abi.Errorf(abi.CodeUnavailable, "%s: this host provides no skills catalog to guests", fn)
	}
	return x.SkillIndex, nil
}

func (x *selfIndex) Search(query string, limit int) ([]host.SkillInfo, error) {
	ix, err := x.index(abi.FuncSkillsSearch)
	if err != nil {
		return nil, err
	}
	return ix.Search(query, limit)
}

func (x *selfIndex) Activate(name string) (string, []string, error) {
	ix, err := x.index(abi.FuncSkillActivate)
	if err != nil {
		return "", nil, err
	}
	return ix.Activate(name)
}

func (x *selfIndex) ReadResource(skill, p string) ([]byte, error) {
	if skill == x.self.Name {
		return x.self.ReadResource(p)
	}
	ix, err := x.index(abi.FuncSkillRead)
	if err != nil {
		return nil, err
	}
	return ix.ReadResource(skill, p)
}

func (x *selfIndex) RunScript(ctx context.Context, skill, script string, input json.RawMessage, depth int) (*host.ToolResult, error) {
	ix, err := x.index(abi.FuncSkillRun)
	if err != nil {
		return nil, err
	}
	return ix.RunScript(ctx, skill, script, input, depth)
}

// mountsFor turns the effective read and write paths into mounts. The
// skill folder is never writable; a write grant on a workspace sub-path
// creates that folder if needed; a read path at or below a writable mount
// is left to it (mounting it again read-only would shadow the write).
//
// A sub-path is resolved inside its root folder's os.Root, here and again
// when the run opens it (Mount.Sub), never as a joined host path: a skill
// that ships "references -> /" and declares read = ["skill/references"],
// or a workspace with "out -> /elsewhere", fails instead of mounting the
// link's target.
//
// A write grant's folder is not created inside a protected folder.
func mountsFor(eff capabilities.Set, skillDir, workspace string, protected []string) ([]sandbox.Mount, error) {
	var mounts []sandbox.Mount
	for _, p := range eff.Write {
		if p.Root == capabilities.RootSkill {
			return nil, &capabilities.DeniedError{Kind: "write", Value: p.String(),
				Reason: "skillrun never writes into a skill folder"}
		}
	}
	baseDir := func(p capabilities.Path) (string, error) {
		if p.Root != capabilities.RootWorkspace {
			return skillDir, nil
		}
		if workspace == "" {
			return "", fmt.Errorf("%w: %s is granted but no workspace folder was given", ErrNotRunnable, p)
		}
		if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%w: workspace %s is not a folder", ErrNotRunnable, workspace)
		}
		return workspace, nil
	}
	// check opens p's folder inside its base's os.Root (creating it for a
	// write grant), which refuses a sub-path leading out through a symlink.
	check := func(p capabilities.Path, create bool) (sandbox.Mount, error) {
		base, err := baseDir(p)
		if err != nil {
			return sandbox.Mount{}, err
		}
		root, err := fsguard.OpenRoot(base, p.Sub, create, protected)
		if err != nil {
			verb := "opening"
			if create {
				verb = "creating"
			}
			hint := fmt.Sprintf("a granted folder must be a real folder inside %s, not a symlink leading out of it", base)
			if errors.Is(err, fsguard.ErrProtected) {
				hint = "grant a folder outside the skill, interpreter and compile-cache folders"
			}
			return sandbox.Mount{}, fmt.Errorf("%w: %s %s for %s: %w (%s)",
				ErrNotRunnable, verb, filepath.Join(base, filepath.FromSlash(p.Sub)), p, err, hint)
		}
		root.Close()
		return sandbox.Mount{HostDir: base, Sub: p.Sub, GuestPath: p.GuestPath(), Writable: create}, nil
	}
	for _, p := range eff.Write {
		mt, err := check(p, true)
		if err != nil {
			return nil, err
		}
		mounts = append(mounts, mt)
	}
	for _, p := range eff.Read {
		covered := false
		for _, w := range eff.Write {
			covered = covered || w.Contains(p)
		}
		if covered {
			continue
		}
		mt, err := check(p, false)
		if err != nil {
			return nil, err
		}
		mounts = append(mounts, mt)
	}
	return mounts, nil
}

// envFor passes the granted variables that are set on the host.
func envFor(eff capabilities.Set) []string {
	var env []string
	for _, name := range eff.Env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// workspaceGuestPath is where a script sees the workspace, and its
// working directory when the workspace (or a part of it) is mounted.
const workspaceGuestPath = "/workspace"

// withWorkdir makes /workspace the run's working directory when a mount
// is there or below: published scripts open files relative to where they
// were started ("output/report.md"). The working directory reaches the
// guest as PWD, which Go's WASI port reads at start and skillrun's
// Python sitecustomize changes to; a PWD the grant passes from the host
// is dropped, since the host's directory means nothing inside.
func withWorkdir(env []string, mounts []sandbox.Mount) []string {
	out := slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "PWD=") })
	for _, m := range mounts {
		if m.GuestPath == workspaceGuestPath || strings.HasPrefix(m.GuestPath, workspaceGuestPath+"/") {
			return append(out, "PWD="+workspaceGuestPath)
		}
	}
	return out
}

// readModule reads a module through os.Root, so a symlink cannot lead
// outside the skill folder, and bounds its size.
func readModule(skillDir, module string) ([]byte, error) {
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(module))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readModuleFrom(f)
}

// readModuleFrom reads a module's bytes from f, refusing more than
// maxModuleSize. The buffer is sized from f's size, so a large module
// (an interpreter: 7 MB) is read in one allocation, not by doubling
// (which cost 30 ms a start); f growing meanwhile is still read whole.
func readModuleFrom(f *os.File) ([]byte, error) {
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if size > maxModuleSize {
		return nil, fmt.Errorf("larger than the %d MiB limit", maxModuleSize>>20)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead)) // room for the read that finds EOF
	if _, err := buf.ReadFrom(io.LimitReader(f, maxModuleSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxModuleSize {
		return nil, fmt.Errorf("larger than the %d MiB limit", maxModuleSize>>20)
	}
	return buf.Bytes(), nil
}

// runPluginScript runs an Extism plugin script: its input is ScriptRun.Input
// (or, when that is nil, all of stdin, bounded by the output limit's
// order of magnitude: maxPluginInput), its output goes to ScriptRun.Output
// or Stdout. Plugins get no files (Extism's paths are not a jail) and the
// network only as net grants allow.
func (r *Runner) runPluginScript(ctx context.Context, s *skills.Skill, script string, sc *skills.Script,
	wasm []byte, eff capabilities.Set, sr *ScriptRun) (*sandbox.Result, error) {
	label := s.Name + ":" + script
	host.NoteTier(ctx, false)
	auditor, stamped := scriptAudit(ctx, s, script, sr)
	input := sr.Input
	if input == nil && sr.Stdin != nil {
		data, err := io.ReadAll(io.LimitReader(sr.Stdin, maxPluginInput+1))
		if err != nil {
			return nil, fmt.Errorf("%s: reading input: %w", label, err)
		}
		if len(data) > maxPluginInput {
			return nil, fmt.Errorf("%w: %s: input is over the %d MiB limit", ErrNotRunnable, label, maxPluginInput>>20)
		}
		input = data
	}
	auditRun(ctx, stamped, label, eff, "")
	out, res, err := r.sb.CallPlugin(ctx, wasm, &sandbox.PluginCall{
		Name:    label,
		Export:  sc.Export,
		Input:   input,
		Memory:  uint64(eff.Memory),
		Timeout: time.Duration(eff.Timeout),
		Output:  uint64(eff.Output),
		Host:    scriptHostEnv(s, script, eff, auditor, sr),
		Auditor: stamped,
	})
	if nr, ok := errors.AsType[*sandbox.NetRefusedError](err); ok {
		// Extism's own http_request, refused whatever the grant: for the
		// operator it is a net capability the script did not get.
		err = fmt.Errorf("%s: %w", label, &capabilities.DeniedError{Kind: "net", Value: nr.Host,
			Reason: "plugins reach the network through skillrun's http_fetch host function, never Extism's http_request"})
	}
	w := sr.Output
	if w == nil {
		w = sr.Stdout
	}
	if w != nil && len(out) > 0 {
		if _, werr := w.Write(out); werr != nil && err == nil {
			err = werr
		}
	}
	return res, err
}

// maxPluginInput bounds the input a plugin script reads from stdin.
const maxPluginInput = 16 << 20
