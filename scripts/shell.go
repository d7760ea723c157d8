package scripts

import (
	"context"
	"fmt"
	"os"
	"path"
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
	// WorkspaceAt, if set, is a second guest path where the workspace
	// is mounted as granted, and the shell's working directory: a
	// benchmark task written for a container expects its files at /app.
	WorkspaceAt string
	// Mounts are more host folders the caller shows the shell (a task's
	// tests read-only, a verifier's log folder writable). Each guest
	// path must be absolute and clean, and may not be, hold or lie inside
	// any other mount's: the caller cannot shadow /workspace, /skills,
	// /tmp or the interpreters.
	Mounts []sandbox.Mount
	// Native says which of Skills the operator runs under the native
	// tier ([NativeTier]): a command that runs one of their script files
	// (`python3 /skills/<name>/scripts/x.py`, `bash scripts/x.sh` in its
	// folder) starts it as a confined host process under the shell's
	// grant; everything else stays in the sandbox. Nil: none.
	Native func(*skills.Skill) *NativeTier
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
	var natives map[string]nativeSkill
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
		if sr.Native != nil {
			if tier := sr.Native(s); tier != nil {
				if natives == nil {
					natives = map[string]nativeSkill{}
				}
				natives[s.Name] = nativeSkill{s: s, tier: tier}
			}
		}
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
	// The shell's turn among the Runner's runs in flight (admission.go);
	// what it starts with exec spends this one.
	ctx, done, err := r.admit(ctx, shellSkill, shellLabel(sr.Args), eff, false, &sr.ScriptRun)
	if err != nil {
		return nil, err // it names the shell: "shell:-c: ..."
	}
	defer done()
	own := sr.ScriptRun // the run's own tools, over its own grant (runtools.go)
	own.Tools = runTools(sr.Workspace, eff, sr.Tools, protected)
	mounts = append(append(mounts, skillMounts...), in.Mounts...)
	mounts, env, removeTmp, err := withTmp(mounts, withWorkdir(envFor(eff), mounts), eff)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	defer removeTmp()
	mounts, workdir, err := withCallerMounts(mounts, sr.WorkspaceAt, sr.Mounts)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	if workdir != "" {
		env = setEnv(env, []string{"PWD=" + workdir})
	}
	env = setEnv(append(env, in.Env...), sr.Env)
	if len(natives) > 0 {
		// The shell hands a trusted skill's shell scripts to exec
		// rather than running them itself (execnative.go decides).
		var dirs []string
		for name := range natives {
			dirs = append(dirs, SkillBaseDir(name))
		}
		slices.Sort(dirs)
		env = setEnv(env, []string{nativeShellEnv + "=" + strings.Join(dirs, ":")})
	}
	own.exec = &execService{r: r, s: shellSkill, find: find, mounts: mounts, prot: protected, eff: eff, sr: &own, natives: natives}
	args := append(append([]string{}, in.Args...), own.Args...)
	start, mounts := r.startFrom(ctx, m, in, args, env, mounts, uint64(eff.Memory), false)
	note := "; the sandboxed shell"
	if _, ok := start.(*sandbox.Snapshot); ok {
		note += ", started from its snapshot"
	}
	return runCompiled(ctx, start, shellSkill, shellLabel(own.Args), &skills.Script{}, eff, &own,
		&sandbox.RunConfig{Args: args, Env: env, Mounts: mounts, Protected: protected}, note)
}

// shellLabel names a shell run in audit events: its script file, or -c.
func shellLabel(args []string) string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0]
	}
	return "-c"
}

// withCallerMounts adds a ShellRun's WorkspaceAt and Mounts to mounts,
// refusing any guest path that is not absolute and clean or that would
// shadow, or hide inside, a mount already there. It returns the working
// directory WorkspaceAt asks for ("" for none).
func withCallerMounts(mounts []sandbox.Mount, at string, extra []sandbox.Mount) ([]sandbox.Mount, string, error) {
	var add []sandbox.Mount
	if at == workspaceGuestPath {
		at = "" // where it is anyway
	}
	if at != "" {
		found := false
		for _, m := range mounts {
			if m.GuestPath == workspaceGuestPath || strings.HasPrefix(m.GuestPath, workspaceGuestPath+"/") {
				m.GuestPath = at + strings.TrimPrefix(m.GuestPath, workspaceGuestPath)
				add = append(add, m)
				found = m.GuestPath == at || found
			}
		}
		if !found {
			return nil, "", fmt.Errorf("%w: the workspace cannot be shown at %s: it is not granted", ErrNotRunnable, at)
		}
	}
	add = append(add, extra...)
	out := slices.Clone(mounts)
	for _, m := range add {
		g := m.GuestPath
		if !path.IsAbs(g) || path.Clean(g) != g || g == "/" {
			return nil, "", fmt.Errorf("%w: mount point %q: not an absolute, clean folder path", ErrNotRunnable, g)
		}
		for _, o := range slices.Concat(reservedGuestPaths, guestPaths(mounts)) {
			if nested(g, o) {
				return nil, "", fmt.Errorf("%w: mount point %s would overlap the shell's own %s", ErrNotRunnable, g, o)
			}
		}
		out = append(out, m)
	}
	for i, a := range extra {
		for _, b := range slices.Concat(add[:len(add)-len(extra)], extra[:i]) {
			if nested(a.GuestPath, b.GuestPath) {
				return nil, "", fmt.Errorf("%w: mount points %s and %s overlap", ErrNotRunnable, a.GuestPath, b.GuestPath)
			}
		}
	}
	return out, at, nil
}

// reservedGuestPaths are the shell's own folders, mounted or not in a
// given run: no caller's mount may take them.
var reservedGuestPaths = []string{workspaceGuestPath, SkillsGuestPath, tmpGuestPath, path.Dir(sitePackagesGuestPath)}

func guestPaths(mounts []sandbox.Mount) []string {
	out := make([]string, len(mounts))
	for i, m := range mounts {
		out[i] = m.GuestPath
	}
	return out
}

// nested reports whether guest paths a and b are the same or one holds
// the other.
func nested(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
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
