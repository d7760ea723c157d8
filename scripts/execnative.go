package scripts

import (
	"context"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// nativeShellEnv names the variable that lists the sandboxed shell's
// skill folders whose scripts run natively: the shell then passes their
// shell scripts to exec instead of running them itself.
const nativeShellEnv = "SKILLRUN_NATIVE"

// A nativeSkill is a skill the shell shows at /skills/<name> whose
// scripts the operator runs under the native tier ([ShellRun.Native]).
type nativeSkill struct {
	s    *skills.Skill
	tier *NativeTier
}

// nativeTarget is a script of a trusted skill that an exec request runs.
type nativeTarget struct {
	skill nativeSkill
	sc    *skills.Script
	args  []string // the script's own arguments, as the guest gave them
}

// nativeLanguages are the interpreters an exec request may name for a
// native run, with the language of the script they run. TypeScript stays
// in the sandbox: the host's node does not run it.
var nativeLanguages = map[string]string{
	"python": skills.LangPython, "python3": skills.LangPython, "python3.11": skills.LangPython,
	"node": skills.LangJS, "nodejs": skills.LangJS,
	"sh": skills.LangShell, "bash": skills.LangShell,
}

// nativeTarget says whether req runs a script of a skill the operator
// runs natively, and which: `python3|node|bash SCRIPT ARGS...` or
// `SCRIPT ARGS...` where SCRIPT (made absolute against the request's
// working directory) lies in /skills/<name>/ of such a skill and is a
// script file of it ([skills.Skill.FileScript]: confined to the skill,
// its language told by name or #! line). An interpreter given options
// before the script (node --require, python -c) is not: options can load
// code from anywhere, and the run stays in the sandbox, as does
// everything else.
func (x *execService) nativeTarget(req *abi.ExecRequest) (nativeTarget, bool) {
	if len(x.natives) == 0 || len(req.Args) == 0 {
		return nativeTarget{}, false
	}
	script, args := req.Args[0], req.Args[1:]
	lang, named := nativeLanguages[path.Base(script)]
	if named {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return nativeTarget{}, false
		}
		script, args = args[0], args[1:]
	} else if !strings.Contains(script, "/") {
		return nativeTarget{}, false
	}
	if !path.IsAbs(script) {
		dir := req.Dir
		if dir == "" {
			dir = "/"
		}
		script = path.Join(dir, script)
	}
	rest, ok := strings.CutPrefix(path.Clean(script), SkillsGuestPath+"/")
	if !ok {
		return nativeTarget{}, false
	}
	name, rel, ok := strings.Cut(rest, "/")
	ns, trusted := x.natives[name]
	if !ok || !trusted {
		return nativeTarget{}, false
	}
	sc, err := ns.s.FileScript(rel)
	if err != nil {
		return nativeTarget{}, false // the sandbox says what is wrong with it
	}
	if named {
		c := *sc
		c.Language = lang
		sc = &c
	}
	if sc.Language != skills.LangPython && sc.Language != skills.LangJS && sc.Language != skills.LangShell {
		return nativeTarget{}, false
	}
	return nativeTarget{skill: ns, sc: sc, args: args}, true
}

// execNative runs the target script as a confined host process under the
// shell's effective grant, as the sandboxed interpreter would have run
// it, but seeing host paths: the working directory and every argument
// that names a path of the workspace, of the skill or of /tmp are turned
// into the host's (a path inside a file or a variable is not). The
// request's environment is not passed: the process gets the granted
// variables only, so that a command line cannot reach the host
// interpreter's own (PYTHONPATH, NODE_OPTIONS).
func (x *execService) execNative(ctx context.Context, req *abi.ExecRequest, t nativeTarget, tmp string, run *ScriptRun) (*sandbox.Result, error) {
	s := t.skill.s
	skillDir := filepath.Dir(s.Location)
	paths := x.hostPaths(skillDir, SkillBaseDir(s.Name), tmp)
	args := make([]string, len(t.args))
	for i, a := range t.args {
		args[i] = hostArg(paths, req.Dir, a)
	}
	dir := ""
	if req.Dir != "" {
		if d, ok := hostPath(paths, req.Dir); ok {
			dir = d
		}
	}
	run.Native = t.skill.tier
	return x.r.runNative(ctx, s, t.sc.Source, t.sc, skillDir, x.prot, x.eff, run,
		&nativeExec{dir: dir, tmp: tmp, args: args, note: "; started by exec from " + x.s.Name})
}

// A pathMap turns a guest folder into its host folder.
type pathMap struct{ guest, host string }

// hostPaths are the guest folders a native run started by exec sees at
// their host paths: the workspace's mounts (at /workspace and at a
// benchmark task's mount point), the skill's own folder and the caller's
// /tmp, longest guest path first.
func (x *execService) hostPaths(skillDir, skillGuest, tmp string) []pathMap {
	maps := []pathMap{{skillGuest, skillDir}, {tmpGuestPath, tmp}}
	if ws := x.sr.Workspace; ws != "" {
		wsAbs, err := filepath.Abs(ws)
		if err == nil {
			for _, m := range x.mounts {
				h, err := filepath.Abs(m.HostDir)
				if err == nil && (h == wsAbs || strings.HasPrefix(h, wsAbs+string(filepath.Separator))) {
					maps = append(maps, pathMap{m.GuestPath, h})
				}
			}
		}
	}
	sort.SliceStable(maps, func(i, j int) bool { return len(maps[i].guest) > len(maps[j].guest) })
	return maps
}

// hostPath turns guest path p into the host's, if a folder of maps holds
// it.
func hostPath(maps []pathMap, p string) (string, bool) {
	m, ok := mapOf(maps, p)
	if !ok {
		return "", false
	}
	return filepath.Join(m.host, filepath.FromSlash(strings.TrimPrefix(path.Clean(p), m.guest))), true
}

// mapOf returns the folder of maps holding guest path p.
func mapOf(maps []pathMap, p string) (pathMap, bool) {
	clean := path.Clean(p)
	for _, m := range maps {
		if rest, ok := strings.CutPrefix(clean, m.guest); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
			return m, true
		}
	}
	return pathMap{}, false
}

// hostArg turns an argument naming a guest path ("/workspace/in.csv",
// "--out=/tmp/x.png", "../../workspace/in.csv" from the guest working
// directory dir) into one naming the host's; others are unchanged. A
// relative path that stays in dir's folder stays relative: it means the
// same on the host.
func hostArg(maps []pathMap, dir, a string) string {
	if strings.HasPrefix(a, "..") && dir != "" {
		g := path.Join(dir, a)
		if gm, ok := mapOf(maps, g); ok {
			if dm, ok := mapOf(maps, dir); !ok || dm != gm {
				h, _ := hostPath(maps, g)
				return h
			}
		}
		return a
	}
	if strings.HasPrefix(a, "/") {
		if h, ok := hostPath(maps, a); ok {
			return h
		}
		return a
	}
	if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") && strings.HasPrefix(v, "/") {
		if h, ok := hostPath(maps, v); ok {
			return k + "=" + h
		}
	}
	return a
}
