package scripts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// A ShellRun says how to run skillrun's sandboxed shell with
// [Runner.RunShell]. Its ScriptRun brings the services (the workspace),
// the streams, the grant and the interpreters; ScriptRun.Args is the
// shell's command line: "-c", COMMAND [NAME ARGS...], or the guest path
// of a script file and its arguments.
type ShellRun struct {
	ScriptRun
	// Skills are mounted read-only at /skills/<name>, where a SKILL.md
	// followed as written finds its scripts ("Base directory for this
	// skill").
	Skills []*skills.Skill
	// Env are variables set in the shell ("KEY=VALUE"), replacing the
	// granted ones and skillrun's own of the same name (PWD, the working
	// directory; TMPDIR): the caller's fixed environment, such as a test
	// harness's. They exist only inside the sandbox.
	Env []string
}

// ShellDeclares is what the shell declares: reading and writing the
// workspace, nothing else. An operator's -A grants exactly that; the
// skills it is given are mounted read-only without a grant, since naming
// them is the operator's act.
func ShellDeclares() capabilities.Set {
	return capabilities.Set{
		Read:  []capabilities.Path{{Root: capabilities.RootWorkspace}},
		Write: []capabilities.Path{{Root: capabilities.RootWorkspace}},
	}
}

// SkillsGuestPath is where the shell sees the skills in play, one folder
// per skill name.
const SkillsGuestPath = "/skills"

// shellSkill stands for the shell in audit events and errors: it is no
// skill, and reads no skill's files through skill_read.
var shellSkill = &skills.Skill{Name: "shell"}

// RunShell runs the sandboxed shell (the sh interpreter) with the
// workspace mounted as granted (declared by [ShellDeclares]) and
// working directory /workspace, a private /tmp, and each skill of sr
// read-only at /skills/<name>. The shell's commands run inside the same
// WebAssembly module; nothing it runs is a host process.
func (r *Runner) RunShell(ctx context.Context, sr *ShellRun) (*sandbox.Result, error) {
	if sr == nil {
		sr = &ShellRun{}
	}
	eff := capabilities.Effective(ShellDeclares(), sr.Granted)
	protected := r.ProtectedDirs(sr.Protected...)
	var skillMounts []sandbox.Mount
	seen := map[string]bool{}
	for _, s := range sr.Skills {
		if !validMountName(s.Name) {
			return nil, fmt.Errorf("%w: skill %q cannot be mounted under %s: its name is not a plain folder name", ErrNotRunnable, s.Name, SkillsGuestPath)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("%w: two skills named %q", ErrNotRunnable, s.Name)
		}
		seen[s.Name] = true
		dir := filepath.Dir(s.Location)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: skill %s: the shell mounts skills that are folders on disk (extract a zipped skill first)", ErrNotRunnable, s.Name)
		}
		skillMounts = append(skillMounts, sandbox.Mount{HostDir: dir, GuestPath: SkillsGuestPath + "/" + s.Name})
		protected = append(protected, dir)
		site, err := pinnedSite(dir, sitePackagesGuestPath+"/"+s.Name)
		if err != nil {
			return nil, fmt.Errorf("%w: skill %s: %w", ErrNotRunnable, s.Name, err)
		}
		skillMounts = append(skillMounts, site...)
	}
	find := sr.Interpreters
	if find == nil {
		find = r.interpreters
	}
	if find == nil {
		find = InstalledInterpreters("")
	}
	in, err := find(ctx, interp.Shell)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	m, err := r.compileInterpreter(ctx, in.Module)
	if err != nil {
		return nil, fmt.Errorf("shell: interpreter %s: %w", in.Module, err)
	}
	protected = append(protected, filepath.Dir(in.Module))
	mounts, err := mountsFor(eff, "", sr.Workspace, protected)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	own := sr.ScriptRun // the run's own tools, over its own grant (runtools.go)
	own.Tools = runTools(sr.Workspace, eff, sr.Tools, protected)
	mounts = append(append(mounts, skillMounts...), in.Mounts...)
	mounts, env, removeTmp, err := withTmp(mounts, withWorkdir(envFor(eff), mounts), eff)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	defer removeTmp()
	env = setEnv(append(env, in.Env...), sr.Env)
	own.exec = &execService{r: r, s: shellSkill, find: find, mounts: mounts, prot: protected, eff: eff, sr: &own}
	args := append(append([]string{}, in.Args...), own.Args...)
	return runCompiled(ctx, m, shellSkill, shellLabel(own.Args), &skills.Script{}, eff, &own,
		&sandbox.RunConfig{Args: args, Env: env, Mounts: mounts, Protected: protected}, "; the sandboxed shell")
}

// shellLabel names a shell run in audit events: its script file, or -c.
func shellLabel(args []string) string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0]
	}
	return "-c"
}

// validMountName reports whether a skill name can name a folder under
// /skills: one path element, not hidden.
func validMountName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\\x00") && !strings.HasPrefix(name, ".")
}

// setEnv returns env with each KEY=VALUE of set replacing any variable of
// that name.
func setEnv(env, set []string) []string {
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, kv)
	}
	return env
}
