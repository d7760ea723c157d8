package scripts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/fsguard"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// A NativeTier runs a skill's source scripts (Python, JavaScript, shell)
// as confined host processes (package native) instead of in WebAssembly:
// the real python3 with its compiled packages, node, bash and the host
// programs they call. The operator sets it for a skill they trust (a
// policy's native = true, `skillrun run --native`); nothing a skill
// declares asks for it. The script keeps its grants: the skill folder
// read-only, the workspace as granted, the environment variables
// granted, its limits, and the hosts its net grant names, reached through
// a proxy that checks them as http_fetch does (HTTP_PROXY, HTTPS_PROXY);
// no other connection leaves its network namespace.
type NativeTier struct {
	// Path are the folders python3, node, bash and the programs they
	// start are found in (nil: DefaultNativePath).
	Path []string
}

// DefaultNativePath is where the native tier finds programs when the
// policy names no path.
var DefaultNativePath = []string{"/usr/local/bin", "/usr/bin", "/bin"}

// nativePrograms are the host programs that run each language.
var nativePrograms = map[string]string{interp.Python: "python3", interp.JS: "node", interp.JSTS: "node", interp.Shell: "bash"}

// nativeExec is what differs in a native run a shell started (exec.go):
// where it works, the caller's /tmp it shares, and the arguments it was
// given with the sandbox's paths turned into the host's.
type nativeExec struct {
	dir  string   // the host working directory ("": as for any run)
	tmp  string   // the caller's /tmp on the host, writable
	args []string // the script's arguments
	note string   // what the audit adds
}

// nativeSearchMax bounds the entries of a writable folder read to find
// module folders in it before a native run.
const nativeSearchMax = 100_000

// checkNoModules refuses a writable folder dir of a native run that is,
// or holds, a module folder: a skill (SKILL.md), a YAML tool or skill
// module, YAML agents or Markdown skills, found as fsguard finds them.
// Landlock cannot carve a read-only folder out of a writable one, and a
// host process's changes cannot be checked one by one as the sandbox's
// are: given write access, it could rewrite another module's code, which
// then runs with that module's grants. A folder too large to search is
// refused too.
func checkNoModules(dir string) error {
	mod, err := fsguard.FindModuleFolder(dir, nativeSearchMax)
	switch {
	case errors.Is(err, fsguard.ErrTooLarge):
		return fmt.Errorf("the native tier cannot check the writable %s for skill and tool modules: it has more than %d entries", dir, nativeSearchMax)
	case err != nil:
		return fmt.Errorf("checking the writable %s for skill and tool modules: %w", dir, err)
	case mod != "":
		return fmt.Errorf("the native tier cannot keep the module folder %s unchangeable inside the writable %s", filepath.Join(dir, filepath.FromSlash(mod)), dir)
	}
	return nil
}

// runNative runs a source script under the native tier: see [NativeTier].
// x is nil for a run the user or an agent started.
func (r *Runner) runNative(ctx context.Context, s *skills.Skill, script string, sc *skills.Script,
	skillDir string, protected []string, eff capabilities.Set, sr *ScriptRun, x *nativeExec) (*sandbox.Result, error) {
	label := s.Name + ":" + script
	lang, err := checkedSource(sc, skillDir, label)
	if err != nil {
		return nil, err
	}
	path := sr.Native.Path
	if len(path) == 0 {
		path = DefaultNativePath
	}
	prog := nativePrograms[lang]
	exe, err := lookNative(prog, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotRunnable, label, err)
	}
	auditor := audit.AuditorFrom(ctx)
	if sr.Auditor != nil {
		auditor = sr.Auditor
	}
	// The native tier is given host paths, absolute and with links
	// resolved, as Landlock opens them.
	if skillDir, err = filepath.Abs(skillDir); err == nil {
		skillDir, err = filepath.EvalSymlinks(skillDir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	workspace := ""
	if sr.Workspace != "" {
		if workspace, err = filepath.Abs(sr.Workspace); err == nil {
			workspace, err = filepath.EvalSymlinks(workspace)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: workspace: %w", label, err)
		}
	}
	ro := append(append([]string{skillDir}, native.SystemPaths...), path...)
	var rw []string
	for _, p := range eff.Read {
		if dir, err := grantDir(p, skillDir, workspace, false); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		} else if dir != "" {
			ro = append(ro, dir)
		}
	}
	for _, p := range eff.Write {
		dir, err := grantDir(p, skillDir, workspace, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		for _, pd := range protected {
			if abs, err := filepath.Abs(pd); err == nil {
				pd = abs
				if real, err := filepath.EvalSymlinks(abs); err == nil {
					pd = real
				}
			}
			if pd == dir || strings.HasPrefix(pd, dir+string(filepath.Separator)) {
				return nil, fmt.Errorf("%w: %s: the native tier cannot keep %s unchangeable inside the writable %s; grant write on a folder that does not hold it",
					capabilities.ErrDenied, label, pd, p)
			}
		}
		if err := checkNoModules(dir); err != nil {
			return nil, fmt.Errorf("%w: %s: %w; grant write on a folder that holds none (--allow-write=workspace/SUB)", capabilities.ErrDenied, label, err)
		}
		rw = append(rw, dir)
	}
	args := append(append([]string{}, sc.Args...), sr.Args...)
	if x != nil {
		args = x.args
		if x.tmp != "" {
			rw = append(rw, x.tmp)
		}
	}
	// A net grant: the process's HTTP(S) goes through a proxy that lets
	// through what http_fetch would (host.NetProxy), over a UNIX socket in
	// a folder of its own that the process cannot reach.
	var proxySock string
	if len(eff.Net) > 0 {
		sockDir, err := os.MkdirTemp("", "skillrun-proxy-")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		defer func() { _ = os.RemoveAll(sockDir) }()
		proxySock = filepath.Join(sockDir, "proxy.sock")
		ln, err := net.Listen("unix", proxySock)
		if err != nil {
			return nil, fmt.Errorf("%s: the network proxy: %w", label, err)
		}
		proxy := host.NewNetProxy(eff, &host.FetchOptions{Auditor: auditor, Skill: s.Name, Script: script})
		pctx, pcancel := context.WithCancel(ctx)
		served := make(chan struct{})
		go func() { _ = proxy.Serve(pctx, ln); close(served) }()
		defer func() { proxy.Close(); pcancel(); <-served }()
	}
	dir := skillDir
	if ws := workspace; ws != "" && (len(eff.Read) > 0 || len(eff.Write) > 0) {
		for _, d := range append(append([]string{}, ro...), rw...) {
			if d == ws {
				dir = ws
			}
		}
	}
	if x != nil && x.dir != "" {
		dir = x.dir
	}
	env := append(envFor(eff), "PATH="+strings.Join(path, ":"), "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1",
		"SKILL_DIR="+skillDir)
	if workspace != "" && !hasEnv(env, "WORKSPACE") {
		// Where the sandbox shows /workspace: a script written for both
		// ("WORKSPACE", default /workspace) finds it.
		env = append(env, "WORKSPACE="+workspace)
	}
	if lang == interp.Python {
		// The same packages as in WebAssembly: the skill's vendored lib/
		// and what `skillrun deps` pinned for it, read-only.
		var pp []string
		if fi, err := os.Stat(filepath.Join(skillDir, "lib")); err == nil && fi.IsDir() {
			pp = append(pp, filepath.Join(skillDir, "lib"))
		}
		site, err := pinnedSite(skillDir, sitePackagesGuestPath)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotRunnable, label, err)
		}
		for _, m := range site {
			pp = append(pp, m.HostDir)
			ro = append(ro, m.HostDir)
		}
		// As in WebAssembly, a grant cannot set the interpreter's own.
		env = slices.DeleteFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return slices.Contains([]string{"PYTHONPATH", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONHOME", "PYTHONEXECUTABLE"}, k)
		})
		if len(pp) > 0 {
			env = append(env, "PYTHONPATH="+strings.Join(pp, ":"))
		}
	}
	spec := &native.Spec{
		Path: exe, Args: append(nativeArgv(prog, lang, sc, skillDir), args...),
		Env: env, Dir: dir, ReadOnly: ro, ReadWrite: rw,
		Stdin: sr.Stdin, Stdout: sr.Stdout, Stderr: sr.Stderr,
		Timeout: time.Duration(eff.Timeout), Output: int64(eff.Output), Memory: int64(eff.Memory),
		Proxy: proxySock,
	}
	note := ""
	if x != nil {
		note = x.note
	}
	auditor.Audit(ctx, audit.Event{Time: time.Now(), Skill: s.Name, Script: script, Kind: "run", Value: label, Decision: audit.Allow,
		Reason: fmt.Sprintf("started natively (native tier: %s %s, confined)%s", exe, sc.Source, note)})
	host.NoteTier(ctx, true)
	res, err := native.Run(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	out := &sandbox.Result{ExitCode: uint32(res.ExitCode), Duration: res.Duration}
	end := fmt.Sprintf("exited %d (native tier, processes bounded by %s)", res.ExitCode, res.ProcLimit)
	switch {
	case res.TimedOut:
		err = fmt.Errorf("%s: %w after %s (native tier)", label, sandbox.ErrTimeout, res.Duration.Round(time.Millisecond))
	case res.OutputLimit:
		err = fmt.Errorf("%s: %w (native tier)", label, sandbox.ErrOutputLimit)
	}
	if err != nil {
		end = err.Error()
	}
	auditor.Audit(ctx, audit.Event{Time: time.Now(), Skill: s.Name, Script: script, Kind: "run", Value: label, Decision: audit.Allow, Reason: end})
	return out, err
}

// hasEnv reports whether env sets key.
func hasEnv(env []string, key string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
}

// lookNative finds prog in the folders of path.
func lookNative(prog string, path []string) (string, error) {
	for _, dir := range path {
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the native tier's path (%s); install it or set native_path in the policy", prog, strings.Join(path, ":"))
}

// grantDir is the host folder a granted path names: in the skill folder
// or the workspace, resolved (links followed) and still inside it. A
// write grant's missing folder is made; a read grant's is skipped ("").
func grantDir(p capabilities.Path, skillDir, workspace string, write bool) (string, error) {
	base := skillDir
	if p.Root == capabilities.RootWorkspace {
		if workspace == "" {
			return "", nil
		}
		base = workspace
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if p.Sub == "" {
		return real, nil
	}
	if write {
		root, err := os.OpenRoot(real)
		if err != nil {
			return "", err
		}
		err = root.MkdirAll(p.Sub, 0o755)
		_ = root.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(real, filepath.FromSlash(p.Sub)))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if dir != real && !strings.HasPrefix(dir, real+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s leads outside %s", capabilities.ErrDenied, p, real)
	}
	return dir, nil
}

// nativeArgv is the native program's command line up to the script's
// path: a Python script with a Driver runs as python3 -c DRIVER SCRIPT.
func nativeArgv(prog, lang string, sc *skills.Script, skillDir string) []string {
	argv := []string{prog}
	if sc.Driver != "" && lang == interp.Python {
		argv = append(argv, "-c", sc.Driver)
	}
	return append(argv, filepath.Join(skillDir, filepath.FromSlash(sc.Source)))
}
