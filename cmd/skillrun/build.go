package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/guest"
	"github.com/skillrun/skillrun/internal/build"
	"github.com/skillrun/skillrun/skills"
)

func newBuildCmd() *cobra.Command {
	var asJSON, unconfined bool
	cmd := &cobra.Command{
		Use:   "build PATH[:SCRIPT]... [SCRIPT...]",
		Short: "Compile a skill's scripts into WebAssembly modules",
		Long: `Build compiles each script whose skill.toml entry has a build table
(build = { lang, dir }) and writes the module to the script's module (or
plugin) path inside the skill folder. Languages: go (GOOS=wasip1), c (clang
for wasm32-wasi with wasi-libc) and rust (rustc for wasm32-wasip1).

PATH is a skill folder, its SKILL.md, or a folder of skills (each is built).
Name scripts to build only those: as PATH:SCRIPT, or as words after PATH.
Without names every script with a build table is built.

A skill's sources are untrusted: the toolchain compiles a private copy of
the skill folder (no symlink leading out of it), confined with Landlock
(Linux 6.7 or later) to that copy, its own installation and Go's caches,
with no network. Nothing is fetched: Go dependencies must be vendored or
already in the module cache, and go.mod may not replace a module with a
folder outside the skill. Where Landlock is unavailable the build fails;
--unconfined builds anyway, and then a C .incbin or a Rust include_bytes!
can read any file you can: use it only for sources you trust. The only file
written into the skill folder is each built module.

One line per built module goes to stdout; progress and the compilers' output
go to stderr.

Exit status: 0 if everything built, 1 if a skill cannot be loaded, a build
failed, its toolchain is not installed or it cannot be confined, 2 on a
usage or I/O error.`,
		Example: `  skillrun build examples/csv-stats
  skillrun build examples/csv-stats stats
  skillrun build examples/csv-stats:stats examples/word-count`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, args, asJSON, unconfined)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print results as JSON on stdout")
	cmd.Flags().BoolVar(&unconfined, "unconfined", false, "build without Landlock confinement (the sources can read any file you can; only for sources you trust)")
	return cmd
}

// buildRequest is one PATH argument and the scripts named for it.
type buildRequest struct {
	path    string
	scripts []string
}

// buildResult is one script's outcome in --json output.
type buildResult struct {
	Path   string `json:"path"`
	Skill  string `json:"skill"`
	Script string `json:"script"`
	Lang   string `json:"lang"`
	Output string `json:"output"`
	Bytes  int64  `json:"bytes,omitempty"`
	Error  string `json:"error,omitempty"`
}

// scriptWord matches a script name (skills' rule for [scripts.NAME]).
var scriptWord = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// parseBuildArgs splits arguments into skills and the scripts named for
// each. An argument that exists on disk is a PATH; PATH:SCRIPT names one
// script; a script-name word that is not a file names a script of the
// PATH before it.
func parseBuildArgs(args []string) ([]*buildRequest, error) {
	var reqs []*buildRequest
	for _, arg := range args {
		if _, err := os.Stat(arg); err == nil {
			reqs = append(reqs, &buildRequest{path: arg})
			continue
		}
		if i := strings.LastIndexByte(arg, ':'); i > 0 && scriptWord.MatchString(arg[i+1:]) {
			if _, err := os.Stat(arg[:i]); err == nil {
				reqs = append(reqs, &buildRequest{path: arg[:i], scripts: []string{arg[i+1:]}})
				continue
			}
		}
		if len(reqs) > 0 && scriptWord.MatchString(arg) {
			last := reqs[len(reqs)-1]
			last.scripts = append(last.scripts, arg)
			continue
		}
		return nil, usageErr("%s: no such file or directory", arg)
	}
	return reqs, nil
}

func runBuild(cmd *cobra.Command, args []string, asJSON, unconfined bool) error {
	reqs, err := parseBuildArgs(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	b := &builder{stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(), asJSON: asJSON, code: exitOK, results: []buildResult{},
		opts: &build.Options{Stdout: cmd.ErrOrStderr(), Stderr: cmd.ErrOrStderr(), CHeaders: map[string][]byte{"skillrun.h": guest.CHeader}, Unconfined: unconfined}}
	if unconfined {
		fmt.Fprintln(b.stderr, "skillrun build: --unconfined: the toolchain runs without confinement and can read any file you can")
	}
	for _, req := range reqs {
		paths, err := expandSkillPaths(req.path)
		if err != nil {
			b.fail(exitUsage, "%s: %v", req.path, err)
			continue
		}
		if len(paths) > 1 && len(req.scripts) > 0 {
			b.fail(exitUsage, "%s: holds %d skills; name scripts of one skill (PATH:SCRIPT)", req.path, len(paths))
			continue
		}
		for _, p := range paths {
			if err := b.skill(ctx, p, req.scripts); err != nil {
				return err
			}
		}
	}
	if asJSON {
		if err := writeJSON(b.stdout, b.results); err != nil {
			return err
		}
	}
	if b.code != exitOK {
		return &exitError{code: b.code}
	}
	return nil
}

// builder is one `skillrun build`: what it has built and its worst
// failure so far.
type builder struct {
	stdout, stderr io.Writer
	asJSON         bool
	opts           *build.Options
	code           int
	results        []buildResult
}

// fail says why something was not built and keeps the worst exit code.
func (b *builder) fail(c int, format string, args ...any) {
	b.code = max(b.code, c)
	fmt.Fprintf(b.stderr, format+"\n", args...)
}

// skill builds the named scripts of the skill at p (all with a build
// table when none is named). The error ends the command: interrupted.
func (b *builder) skill(ctx context.Context, p string, named []string) error {
	if strings.EqualFold(filepath.Ext(p), ".zip") {
		b.fail(exitUsage, "%s: cannot build inside a .zip archive; unzip the skill and build the folder", p)
		return nil
	}
	s, err := skills.Load(p, &skills.LoadOptions{Strict: false})
	if le, ok := errors.AsType[*skills.LoadError](err); ok {
		for _, pr := range le.Problems {
			fmt.Fprintln(b.stderr, pr.Error())
		}
		b.fail(exitInvalid, "%s: the skill cannot be loaded; nothing built", p)
		return nil
	} else if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = errors.New("no such file or directory")
		}
		b.fail(exitUsage, "%s: %v", p, err)
		return nil
	}
	for _, pr := range s.Problems {
		fmt.Fprintln(b.stderr, pr.Error())
	}
	names, c, msg := buildScripts(s, named)
	if msg != "" && c == exitOK {
		fmt.Fprintln(b.stderr, msg)
	} else if msg != "" {
		b.fail(c, "%s", msg)
	}
	dir := filepath.Dir(s.Location) // SKILL.md on disk, symlinks resolved
	for _, name := range names {
		sc := s.Manifest.Scripts[name]
		r := buildResult{Path: p, Skill: s.Name, Script: name, Lang: sc.Build.Lang, Output: scriptOutput(sc)}
		id := s.Name + ":" + name
		fmt.Fprintf(b.stderr, "building %s (%s, %s)\n", id, sc.Build.Lang, sc.Build.Dir)
		err := build.Script(ctx, dir, id, build.Target{Lang: sc.Build.Lang, Dir: sc.Build.Dir, Output: r.Output, Plugin: sc.Kind == skills.KindExtism}, b.opts)
		if err != nil {
			r.Error = err.Error()
			b.results = append(b.results, r)
			b.fail(exitInvalid, "%v", err)
			if ctx.Err() != nil {
				return &exitError{code: exitInvalid}
			}
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.Output))); err == nil {
			r.Bytes = fi.Size()
		}
		b.results = append(b.results, r)
		if !b.asJSON {
			fmt.Fprintf(b.stdout, "built %s -> %s (%s)\n", id, r.Output, humanSize(r.Bytes))
		}
	}
	return nil
}

// buildScripts picks the scripts of s to build: those named, or every
// script with a build table. With nothing to build it returns a message,
// and the exit code it deserves (exitOK when merely nothing to do).
func buildScripts(s *skills.Skill, named []string) ([]string, int, string) {
	all := s.Manifest.ScriptNames() // nil-safe
	var scripts map[string]*skills.Script
	if s.Manifest != nil {
		scripts = s.Manifest.Scripts
	}
	if len(named) == 0 {
		var names []string
		for _, n := range all {
			if scripts[n].Build != nil {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			why := "it has no skill.toml"
			if s.Manifest != nil {
				why = "no script in its skill.toml has a build table"
			}
			return nil, exitOK, fmt.Sprintf("%s: nothing to build: %s", s.Name, why)
		}
		return names, exitOK, ""
	}
	var names, problems []string
	code := exitOK
	for _, n := range named {
		sc, ok := scripts[n]
		switch {
		case !ok:
			code = max(code, exitUsage)
			list := "it has none"
			if len(all) > 0 {
				list = "it has " + strings.Join(all, ", ")
			}
			problems = append(problems, fmt.Sprintf("skill %s has no script %q (%s)", s.Name, n, list))
		case sc.Build == nil:
			code = max(code, exitInvalid)
			problems = append(problems, fmt.Sprintf("%s:%s has no build table; add build = { lang = \"go\", dir = \"src/%s\" } to [scripts.%s] in skill.toml", s.Name, n, n, n))
		default:
			names = append(names, n)
		}
	}
	return names, code, strings.Join(problems, "\n")
}

// scriptOutput is the file a script's build writes.
func scriptOutput(sc *skills.Script) string {
	if sc.Plugin != "" {
		return sc.Plugin
	}
	return sc.Module
}

// humanSize formats a byte count the way people read file sizes.
func humanSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1000*1000))
	}
}
