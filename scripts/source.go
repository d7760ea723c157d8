package scripts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// A SourceInterpreter is a WASI command module that runs script files of
// one language (kind "source" scripts): CPython for .py, skillrun's
// JavaScript guest for .js.
type SourceInterpreter struct {
	// Language is "python" or "js".
	Language string
	// Module is the path of the interpreter's .wasm file on the host.
	Module string
	// Mounts are read-only folders the interpreter needs besides the
	// script's mounts, such as Python's standard library.
	Mounts []sandbox.Mount
	// Env is set inside the guest only ("KEY=VALUE"), after the granted
	// variables, which cannot override it.
	Env []string
	// Args come before the script's guest path.
	Args []string
	// Version says what the interpreter was built from; it keys its
	// snapshots.
	Version string
	// Snapshot, if not nil, says how runs start from a snapshot of the
	// interpreter (snapshot.go).
	Snapshot *interp.Snapshot
}

// An InterpreterFunc returns the interpreter for a language ("python",
// "js"). An error that wraps [ErrNotRunnable] should say how to install
// the interpreter.
type InterpreterFunc func(ctx context.Context, language string) (*SourceInterpreter, error)

// InstalledInterpreters returns an InterpreterFunc that finds interpreters
// installed in dir (as `skillrun interpreters install` leaves them); ""
// means <os.UserCacheDir()>/skillrun/interpreters. It never builds one.
func InstalledInterpreters(dir string) InterpreterFunc {
	return func(ctx context.Context, language string) (*SourceInterpreter, error) {
		d, err := interpreterDir(dir)
		if err != nil {
			return nil, err
		}
		in, err := interp.Find(d, language)
		if err != nil {
			if errors.Is(err, interp.ErrNotInstalled) {
				return nil, fmt.Errorf("%w: %w", ErrNotRunnable, err)
			}
			return nil, err
		}
		return sourceInterpreterOf(in), nil
	}
}

// BuildingInterpreters is [InstalledInterpreters] that builds the
// JavaScript interpreter and the shell from skillrun's own source on
// first use (they are pure Go), writing one progress line to progress (nil: none); Python
// must be installed (`skillrun interpreters install python`). It is how
// `skillrun run` finds interpreters.
func BuildingInterpreters(dir string, progress io.Writer) InterpreterFunc {
	installed := InstalledInterpreters(dir)
	return func(ctx context.Context, language string) (*SourceInterpreter, error) {
		if !interp.IsGoGuest(language) {
			return installed(ctx, language)
		}
		d, err := interpreterDir(dir)
		if err != nil {
			return nil, err
		}
		in, err := interp.Ensure(ctx, d, language, &interp.BuildOptions{Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotRunnable, err)
		}
		return sourceInterpreterOf(in), nil
	}
}

// interpreterDir is dir, or the default interpreters folder for "".
func interpreterDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := interp.DefaultDir()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotRunnable, err)
	}
	return d, nil
}

// sourceInterpreterOf converts what package interp found.
func sourceInterpreterOf(in *interp.Interpreter) *SourceInterpreter {
	si := &SourceInterpreter{Language: in.Language, Module: in.Module, Env: in.Env, Args: in.Args,
		Version: in.Version, Snapshot: in.Snapshot}
	for _, m := range in.Mounts {
		si.Mounts = append(si.Mounts, sandbox.Mount{HostDir: m.HostDir, GuestPath: m.GuestPath})
	}
	return si
}

// runSourceScript runs a script file of the skill under its language's
// interpreter: the skill folder is mounted read-only at /skill (the
// interpreter must read the script) on top of the granted mounts, the
// interpreter's own read-only mounts are added, and the script's path
// and arguments follow the interpreter's.
func (r *Runner) runSourceScript(ctx context.Context, s *skills.Skill, script string, sc *skills.Script,
	skillDir string, mount func() ([]sandbox.Mount, error), protected []string, eff capabilities.Set, sr *ScriptRun) (*sandbox.Result, error) {
	label := s.Name + ":" + script
	lang, err := checkedSource(sc, skillDir, label)
	if err != nil {
		return nil, err
	}
	if lang == interp.JS && isESModule(skillDir, sc.Source) {
		lang = interp.JSTS // an ES module: the guest with esbuild rewrites it to CommonJS
	}
	find := sr.Interpreters
	if find == nil {
		find = r.interpreters
	}
	if find == nil {
		find = InstalledInterpreters("")
	}
	in, err := find(ctx, lang)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	m, err := r.compileInterpreter(ctx, in.Module)
	if err != nil {
		return nil, fmt.Errorf("%s: interpreter %s: %w", label, in.Module, err)
	}

	mounts, err := mount()
	if err != nil {
		return nil, err
	}
	// The whole skill folder read-only at /skill replaces any granted part
	// of it; the workspace mounts stay as granted.
	all := []sandbox.Mount{{HostDir: skillDir, GuestPath: skillGuestPath}}
	for _, mt := range mounts {
		if mt.GuestPath != skillGuestPath && !strings.HasPrefix(mt.GuestPath, skillGuestPath+"/") {
			all = append(all, mt)
		}
	}
	all = append(all, in.Mounts...)
	if lang == interp.Python || lang == interp.Shell {
		// The pure-Python packages `skillrun deps` fetched for the skill.
		site, err := pinnedSite(skillDir, sitePackagesGuestPath)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotRunnable, label, err)
		}
		all = append(all, site...)
	}
	// The interpreter's own files are code every source script runs.
	protected = append(protected, filepath.Dir(in.Module))
	for _, mt := range in.Mounts {
		protected = append(protected, filepath.Join(mt.HostDir, filepath.FromSlash(mt.Sub)))
	}

	all, granted, removeTmp, err := withTmp(all, withWorkdir(envFor(eff), all), eff)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	defer removeTmp()
	env := interpreterEnv(lang, skillDir, granted, in.Env, all)
	// The shell starts python3 and node, Python's subprocess and node's
	// child_process any of python3, node, sh and the shell's commands, as
	// runs in this sandbox (the exec host function).
	own := *sr
	own.exec = &execService{r: r, s: s, find: find, mounts: all, prot: protected, eff: eff, sr: &own}
	sr = &own
	args := append([]string{}, in.Args...)
	if sc.Driver != "" && lang == interp.Python {
		args = append(args, "-c", sc.Driver)
	}
	args = append(args, path.Join(skillGuestPath, sc.Source))
	args = append(append(args, sc.Args...), sr.Args...)

	start, all := r.startFrom(ctx, m, in, args, env, all, uint64(eff.Memory), sc.Deterministic)
	note := "; interpreter " + lang + " for " + sc.Source
	if _, ok := start.(*sandbox.Snapshot); ok {
		note += ", started from its snapshot"
	}
	return runCompiled(ctx, start, s, script, sc, eff, sr, &sandbox.RunConfig{Args: args, Env: env, Mounts: all, Protected: protected}, note)
}

// checkedSource is the language of a source script, its file checked
// (inside the skill, a regular file); an error matches ErrNotRunnable.
func checkedSource(sc *skills.Script, skillDir, label string) (string, error) {
	lang, err := sourceLanguage(sc)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNotRunnable, label, err)
	}
	if err := checkSourceFile(skillDir, sc.Source); err != nil {
		return "", fmt.Errorf("%w: %s: source %s: %w", ErrNotRunnable, label, sc.Source, err)
	}
	return lang, nil
}

// sourceLanguage is the interpreter language of a source script: its
// Language (a file script's, told by extension or #! line) or its
// extension's. Languages skillrun has no interpreter for yet say so.
func sourceLanguage(sc *skills.Script) (string, error) {
	switch sc.Language {
	case skills.LangPython:
		return interp.Python, nil
	case skills.LangJS:
		return interp.JS, nil
	case skills.LangTypeScript:
		return interp.JSTS, nil // the JS guest with esbuild strips the types
	case skills.LangShell:
		return interp.Shell, nil
	}
	if lang, ok := interp.Language(sc.Source); ok {
		return lang, nil
	}
	return "", fmt.Errorf("source %s: skillrun runs source scripts in Python (.py) and JavaScript (.js); compile other languages to a WASI module (module = ...)", sc.Source)
}

// isESModule reports whether the JavaScript file of the skill runs under
// the esbuild guest: an ES module (named .mjs, or with a top-level import
// or export) or a script with syntax goja lacks (for await, async
// generators), judged by its first 256 KiB (read through os.Root).
func isESModule(skillDir, file string) bool {
	if strings.EqualFold(path.Ext(file), ".mjs") {
		return true
	}
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return false
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(file))
	if err != nil {
		return false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 256<<10))
	return interp.NeedsESBuild(b)
}

// sitePackagesGuestPath is where a run sees the pure-Python packages
// `skillrun deps` fetched for its skill (read-only, on PYTHONPATH); a
// shell sees those of each skill it mounts below it, by skill name.
const sitePackagesGuestPath = "/skillrun/site-packages"

// pinnedSite returns the mount of the site `skillrun deps` pinned for the
// skill at skillDir, at guest path at; none without a pin. A pin whose
// site is broken is an error saying to run deps again.
func pinnedSite(skillDir, at string) ([]sandbox.Mount, error) {
	pin, err := pydeps.LoadPin("", skillDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []sandbox.Mount{{HostDir: pin.SiteDir, GuestPath: at}}, nil
}

// skillGuestPath is where a script sees its skill folder.
const skillGuestPath = "/skill"

// interpreterEnv is the granted environment with the interpreter's own
// variables, which the granted ones cannot override. Python gets the
// skill's lib/ folder (vendored pure-Python packages) on its path.
func interpreterEnv(lang, skillDir string, granted, own []string, mounts []sandbox.Mount) []string {
	ownKeys := map[string]bool{}
	for _, kv := range own {
		k, _, _ := strings.Cut(kv, "=")
		ownKeys[k] = true
	}
	if lang == interp.Python {
		// The script's own PYTHONPATH comes first, as python3 puts it
		// (`PYTHONPATH=lib/ python3 x.py` in a shell script): it names
		// folders of the sandbox's view, nothing more.
		var paths []string
		for _, kv := range granted {
			if k, v, _ := strings.Cut(kv, "="); k == "PYTHONPATH" && v != "" {
				paths = append(paths, v)
			}
		}
		if skillDir != "" {
			if fi, err := os.Stat(filepath.Join(skillDir, "lib")); err == nil && fi.IsDir() {
				paths = append(paths, skillGuestPath+"/lib")
			}
		}
		for _, m := range mounts {
			if m.GuestPath == sitePackagesGuestPath || strings.HasPrefix(m.GuestPath, sitePackagesGuestPath+"/") {
				paths = append(paths, m.GuestPath)
			}
		}
		if len(paths) > 0 {
			own = append(own, "PYTHONPATH="+strings.Join(paths, ":"))
		}
		ownKeys["PYTHONPATH"] = true
		for _, k := range []string{"PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONHOME", "PYTHONEXECUTABLE"} {
			ownKeys[k] = true
		}
	}
	var env []string
	for _, kv := range granted {
		if k, _, _ := strings.Cut(kv, "="); !ownKeys[k] {
			env = append(env, kv)
		}
	}
	return append(env, own...)
}

// checkSourceFile checks that the script file is a regular file inside
// the skill folder (through os.Root, so no symlink leads out of it).
func checkSourceFile(skillDir, file string) error {
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Stat(filepath.FromSlash(file))
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	return nil
}
