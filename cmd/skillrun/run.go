package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/skillname"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// Exit codes of `skillrun run` for skillrun's own failures (docs/contracts/exit-codes.md); any other code is the script's own.
const (
	exitTimeout = 124
	exitSandbox = 125
	exitDenied  = 126
)

// grantFlag is an --allow-KIND flag whose value is optional: with no value
// it grants what the skill declares, with one only that part. Each use is
// recorded, so repeated flags accumulate.
type grantFlag struct {
	kind   string
	grants *[]capabilities.FlagGrant
}

// noValue is what pflag stores when a grant flag is given without "=".
const noValue = "\x00declared"

func (f grantFlag) String() string { return "" }
func (f grantFlag) Type() string   { return "" }
func (f grantFlag) Set(v string) error {
	if v == noValue {
		*f.grants = append(*f.grants, capabilities.FlagGrant{Kind: f.kind})
		return nil
	}
	*f.grants = append(*f.grants, capabilities.FlagGrant{Kind: f.kind, Value: v, HasValue: true})
	return nil
}

type runFlags struct {
	workspace string
	grants    []capabilities.FlagGrant
	all       bool
	timeout   time.Duration
	memory    string
	output    string
	policy    string
	audit     string
	noPrompt  bool
	mcpConfig string
	skills    []string
	input     string
	native    bool
	// strictPython refuses a Python script whose requires-python the
	// sandbox's Python does not meet (pyversion.go).
	strictPython bool
	// nativeSkills are the skills `shell --native NAME` trusts with the
	// native tier.
	nativeSkills []string

	pol *capabilities.Policy   // --policy, once loaded (loadPolicy)
	res *capabilities.Resolver // the flags as a resolver, once built (resolver)
	// warn receives what resolve has to say about a policy table that
	// is not a skill's (nil: os.Stderr).
	warn io.Writer
}

// loadPolicy reads the --policy file the first time and returns it after
// (nil without --policy), so a command that grants many skills reads it
// once.
func (f *runFlags) loadPolicy() (*capabilities.Policy, error) {
	if f.policy == "" || f.pol != nil {
		return f.pol, nil
	}
	p, err := capabilities.LoadPolicy(f.policy)
	if err != nil {
		return nil, usageErr("--policy: %v", err)
	}
	f.pol = p
	return p, nil
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run PATH[:SCRIPT|:FILE] [flags] [-- ARGS...]",
		Short: "Run a skill's script in the sandbox with only the capabilities granted",
		Long: `Run executes one script of a skill as a WebAssembly module. The script sees
only what is both declared in its skill.toml and granted here: the skill
folder read-only at /skill, the workspace at /workspace (its working
directory), named environment variables, and limits on memory, time and
output. Nothing is granted by default.

SCRIPT is a script named in skill.toml. FILE is a path inside the skill, as
a published SKILL.md names it (scripts/fill_form.py): it runs by extension
or #! line, Python and JavaScript under interpreters that are themselves
WebAssembly, with or without a skill.toml. A skill without skill.toml
declares for its files: read the skill, read and write the workspace.

A grant flag with no value grants what the skill declares for that kind; with
a value, only that part of it, in skill.toml's words:
  --allow-read=workspace/data  --allow-write=workspace/out
  --allow-env=LANG  --allow-net=api.example.com
-A grants everything the skill declares, nothing more. In a terminal,
skillrun asks before granting what is missing; elsewhere it denies and names
the flag to add. Arguments after -- go to the script.

A Markdown skill file (.AchillesSkills/<name>.<kind>.md) runs as its kind
with --input as its parameters; its result goes to stdout, and a failure
is exit status 1.

Exit status: the script's own, or 2 usage error, 124 timeout, 125 sandbox or
host error (trap, memory or output limit), 126 a capability the script needs
was not granted.`,
		Example: `  skillrun run examples/csv-stats:stats --workspace examples/workspace -A -- sales.csv
  skillrun run ./pdf-skill:scripts/fill_form.py --workspace . -A -- input.pdf
  skillrun run examples/word-count --allow-read=workspace --workspace . -- README.md
  skillrun run examples/achilles/.AchillesSkills/csv-total.cgskill.md --input '{"csv": "a\n1\n2", "column": "a"}'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScript(cmd, &f, args[0], args[1:])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workspace, "workspace", ".", "the host `DIR` mounted at /workspace (as granted)")
	addGrantFlags(fl, &f)
	fl.StringVar(&f.mcpConfig, "mcp-config", "", "an mcpServers JSON `FILE`: start those MCP servers; the script reaches their tools through mcp_call, as --allow-mcp grants")
	fl.StringArrayVar(&f.skills, "skills", nil, "a skill `PATH` (or a folder of skills) the script may search, activate and run (repeatable; running needs --allow-skills, and a run gets what --policy grants that skill)")
	fl.StringVar(&f.input, "input", "", "the `JSON` value the script reads with the input host function")
	fl.BoolVar(&f.native, "native", false, "run this skill's Python, JavaScript and shell scripts as confined host processes (the native tier: real python3 and its compiled packages; Linux with Landlock; only for a skill you trust)")
	fl.BoolVar(&f.strictPython, strictPythonFlag, false, strictPythonUsage)
	return cmd
}

// splitTarget separates PATH[:SCRIPT]. A path that exists as given wins,
// so a folder whose name contains ':' still works.
func splitTarget(arg string) (path, script string) {
	if _, err := os.Stat(arg); err == nil {
		return arg, ""
	}
	if i := strings.LastIndex(arg, ":"); i > 0 {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}

func runScript(cmd *cobra.Command, f *runFlags, target string, scriptArgs []string) error {
	stderr := cmd.ErrOrStderr()
	if isMarkdownSkillFile(target) {
		return runMarkdownSkill(cmd, f, target)
	}
	s, scriptName, err := loadTarget(target, stderr)
	if err != nil {
		return err
	}
	if !f.native {
		if err := checkScriptPython(s, scriptName, f.strictPython, stderr); err != nil {
			return err
		}
	}
	// The names are the skill author's: escaped wherever they are shown.
	label := termsafe.String(s.Name + ":" + scriptName)
	// What the script may use: declared ∩ granted (RunScript intersects).
	f.warn = stderr
	grant, err := f.resolve(s, scriptName)
	if err != nil {
		return err
	}
	catalog, err := loadSkills(stderr, f.skills, s)
	if err != nil {
		return err
	}
	if !grant.Missing.IsZero() {
		if grant, err = askOrDeny(cmd, f, s, scriptName, grant); err != nil {
			return err
		}
	}
	var input []byte
	if f.input != "" {
		if !json.Valid([]byte(f.input)) {
			return usageErr("--input: not a JSON value: %s", f.input)
		}
		input = []byte(f.input)
	}
	auditor, auditDone, err := openAuditLog(f.audit, stderr) // ownfiles.go: never through a symlink
	if err != nil {
		return usageErr("--audit: %v", err)
	}
	defer auditDone()
	if auditor == nil {
		auditor = audit.Discard
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	rt, release, err := scriptsRunner(ctx, stderr) // resident.go
	if err != nil {
		return &exitError{code: exitSandbox, err: err}
	}
	defer release()
	sr := &scripts.ScriptRun{
		Services: host.Services{Workspace: f.workspace, Auditor: auditor, Logger: guestLogger(stderr)},
		Args:     scriptArgs, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		Granted: grant.Granted, Input: input,
		Interpreters: runInterpreters(stderr), // source scripts (interpreters.go)
	}
	if f.mcpConfig != "" {
		bridge, err := startBridge(ctx, f.mcpConfig, stderr)
		if err != nil {
			return err
		}
		defer func() { _ = bridge.Close() }()
		sr.MCP = bridge
	}
	if len(catalog) > 0 {
		// The runs it starts reach what this one does (the policy was
		// loaded by resolve).
		ix := scripts.NewSkillIndex(rt, catalog, policyGrants(f.pol, catalog, stderr))
		ix.Services = sr.Services
		sr.Skills = ix
	}
	if sr.Native, err = nativeTier(f, s, stderr); err != nil {
		return err
	}
	res, err := rt.RunScript(ctx, s, scriptName, sr)
	return runExit(label, res, err)
}

// loadTarget loads the skill of PATH[:SCRIPT|:FILE], its problems said
// on stderr, and names the script to run: the one given, or the skill's
// only script.
func loadTarget(target string, stderr io.Writer) (*skills.Skill, string, error) {
	dir, scriptName := splitTarget(target)
	s, err := skills.Load(dir, nil)
	if le, ok := errors.AsType[*skills.LoadError](err); ok {
		for _, p := range le.Problems {
			fmt.Fprintln(stderr, p.Error())
		}
		return nil, "", &exitError{code: exitUsage, err: fmt.Errorf("%s: the skill cannot be loaded", dir)}
	}
	if err != nil {
		return nil, "", usageErr("%v", err)
	}
	for _, p := range s.Problems {
		fmt.Fprintln(stderr, p.Error())
	}
	if scriptName != "" {
		return s, scriptName, nil
	}
	if s.Manifest == nil || len(s.Manifest.Scripts) == 0 {
		return nil, "", usageErr("%s: skill %s has no scripts in skill.toml; run one of its files as %s:PATH (for example %s:scripts/main.py), or see `skillrun show %s`",
			dir, termsafe.Quote(s.Name, maxShownName), dir, dir, dir)
	}
	names := s.Manifest.ScriptNames()
	if len(names) != 1 {
		return nil, "", usageErr("%s has %d scripts; name one as %s:SCRIPT (%s)", termsafe.Quote(s.Name, maxShownName), len(names), dir, termsafe.String(strings.Join(names, ", ")))
	}
	return s, names[0], nil
}

// runExit turns the end of a run into the command's result: the
// script's exit code, or skillrun's own codes for its failures (docs/contracts/exit-codes.md).
func runExit(label string, res *sandbox.Result, err error) error {
	switch {
	case errors.Is(err, scripts.ErrNotRunnable):
		return usageErr("%v", err)
	case errors.Is(err, capabilities.ErrDenied):
		return &exitError{code: exitDenied, err: fmt.Errorf("%s: %w", label, err)}
	case errors.Is(err, sandbox.ErrTimeout):
		return &exitError{code: exitTimeout, err: fmt.Errorf("%w (raise it with --timeout, within what the skill declares)", err)}
	case pluginFailed(err):
		// A plugin's own failure is its answer, like a script's exit code.
		pe, _ := errors.AsType[*sandbox.PluginError](err)
		code := int(pe.Code)
		if code <= 0 || code > 255 || code == exitUsage || code >= exitTimeout {
			code = 1
		}
		return &exitError{code: code, err: err}
	case err != nil:
		return &exitError{code: exitSandbox, err: err}
	case res.ExitCode != 0:
		return &exitError{code: int(res.ExitCode)}
	}
	return nil
}

// loadSkills loads the skills of the --skills paths. Two skills claiming
// one name (after NFKC normalisation and case folding), or one claiming
// the name of target, the skill being run, are an error naming both:
// which one a script's skill_run reaches, and which one a policy grant by
// name is for, would be a guess. The same skill met twice is kept once.
func loadSkills(stderr io.Writer, paths []string, target *skills.Skill) ([]*skills.Skill, error) {
	var list []*skills.Skill
	byKey := map[string]*skills.Skill{}
	if target != nil {
		byKey[skillname.Key(target.Name)] = target
	}
	for _, p := range paths {
		found := skills.FindSkills(p)
		if found.Err != nil {
			return nil, usageErr("--skills %s: %v", p, found.Err)
		}
		for _, pr := range found.Problems {
			fmt.Fprintln(stderr, pr.Error())
		}
		if len(found.Paths) == 0 {
			return nil, usageErr("--skills %s: no skill there (no SKILL.md)", p)
		}
		for _, sp := range found.Paths {
			s, err := skills.Load(sp, nil)
			if err != nil {
				return nil, usageErr("--skills %s: %v", sp, err)
			}
			key := skillname.Key(s.Name)
			if prev, dup := byKey[key]; dup {
				if prev.Place() != "" && prev.Place() == s.Place() {
					continue
				}
				return nil, usageErr("--skills: two skills claim the name %s: %s at %s and %s at %s; keep one of them, or rename one (its folder and its SKILL.md name)",
					termsafe.Quote(s.Name, maxShownName), termsafe.Quote(prev.Name, maxShownName), termsafe.Quote(prev.Location, 0),
					termsafe.Quote(s.Name, maxShownName), termsafe.Quote(s.Location, 0))
			}
			byKey[key] = s
			list = append(list, s)
		}
	}
	return list, nil
}

// policyGrants returns what the policy grants each skill of list, by its
// identity ([capabilities.Policy.Grant], through the one resolver), keyed
// by the name it is called by: nothing without a policy. A table by a
// skill's name that is not that skill's is reported on warn.
func policyGrants(p *capabilities.Policy, list []*skills.Skill, warn io.Writer) func(string) capabilities.Set {
	if p == nil {
		return nil
	}
	r := &capabilities.Resolver{Policy: p}
	grants := make(map[string]capabilities.Set, len(list))
	for _, s := range list {
		res, _ := r.Resolve(s.Ref(), capabilities.Set{}) // no flags: cannot fail
		reportUnbound(warn, res)
		grants[s.Name] = res.Granted
	}
	return func(name string) capabilities.Set {
		if g, ok := grants[name]; ok {
			return g
		}
		return capabilities.Set{} // no skill in play has that name
	}
}

// guestLogger writes the script's log lines to stderr, without a time.
func guestLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// askOrDeny handles declared capabilities nothing grants: in a terminal it
// asks; elsewhere (or with --no-prompt) it denies with exit 126, naming the
// flags that would grant them, when the operator granted nothing at all.
// When some grant was given, the operator chose: the rest stays denied and
// a note says how to grant it.
func askOrDeny(cmd *cobra.Command, f *runFlags, s *skills.Skill, script string, grant capabilities.Resolution) (capabilities.Resolution, error) {
	missing := grant.Missing
	stderr := cmd.ErrOrStderr()
	label := termsafe.String(s.Name + ":" + script)
	anyGrant := f.all || len(f.grants) > 0 || f.policy != ""
	if f.noPrompt || !isTerminal(cmd.InOrStdin()) || !isTerminal(stderr) {
		if anyGrant {
			// The operator chose what to grant; the rest stays denied.
			fmt.Fprintf(stderr, "skillrun: note: %s\n", termsafe.String(capabilities.AlsoDeclared(label, missing)))
			return grant, nil
		}
		return grant, &exitError{code: exitDenied, err: errors.New(termsafe.String(capabilities.NotGranted(label, missing)))}
	}
	in := bufio.NewReader(cmd.InOrStdin())
	where := s.Place()
	if where == "" {
		where = s.Location
	}
	fmt.Fprint(stderr, permissionPrompt(missing, s.Name, script, where, "Allow? [y/N] "))
	answer, _ := in.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return grant, &exitError{code: exitDenied, err: fmt.Errorf("%s: denied at the prompt; to grant without asking add %s", label, termsafe.String(grantFlags(missing)))}
	}
	return grant.Allow(missing, "the prompt"), nil
}

// maxShownName bounds a skill or script name shown beside a decision.
const maxShownName = 64

// permissionPrompt is the question put to the operator at a terminal. The
// request comes first, on a line of its own, so nothing a skill's author
// wrote can push it out of view; then who asks, quoted, escaped and cut
// to maxShownName runes, with the skill's folder when known; the question
// last. Every untrusted string is escaped (internal/termsafe).
func permissionPrompt(missing capabilities.Set, skill, script, where, question string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nPermission requested: %s\n  by skill %s, script %s",
		termsafe.String(capabilities.Describe(missing)), termsafe.Quote(skill, maxShownName), termsafe.Quote(script, maxShownName))
	if where != "" {
		fmt.Fprintf(&b, " (%s)", termsafe.Quote(where, 256))
	}
	b.WriteString("\n")
	b.WriteString(question)
	return b.String()
}

// grantFlags renders a Set as the flags that grant it.
func grantFlags(s capabilities.Set) string {
	return strings.Join(capabilities.Flags(s), " ")
}

var _ pflag.Value = grantFlag{}

func pluginFailed(err error) bool {
	_, ok := errors.AsType[*sandbox.PluginError](err)
	return ok
}
