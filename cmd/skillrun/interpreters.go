package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
)

func newInterpretersCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "interpreters",
		Short: "Install and list the interpreters that run Python, JavaScript and shell scripts",
		Long: `Scripts of kind "source" (source = "scripts/x.py" or "scripts/x.js" in
skill.toml) run unchanged under an interpreter that is itself a WebAssembly
module, in the same sandbox as any other script. skillrun keeps the
interpreters in its cache folder (<user cache dir>/skillrun/interpreters):

  python  CPython 3.11 for WASI, built from Debian's python3.11 source
          package (needs clang, lld, wasi-libc, libclang-rt-14-dev-wasm32,
          dpkg-dev and python3.11), or copied from a prebuilt one (--from)
  js      skillrun's JavaScript interpreter (goja, pure Go), built with the
          go command on first use
  js-ts   the same with esbuild, for TypeScript and ES module scripts
  sh      skillrun's sandboxed shell (mvdan.cc/sh with built-in commands,
          pure Go), built with the go command on first use

A release installs all four from its interpreter bundle instead, with no
toolchain ("skillrun interpreters install"; --from FILE|URL for another
copy), each file verified against the digest the binary carries.`,
	}
	cmd.AddCommand(newInterpretersInstallCmd(), newInterpretersBundleCmd(), newInterpretersListCmd(), newInterpretersCompileCmd())
	return cmd
}

func interpretersDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := interp.DefaultDir()
	if err != nil {
		return "", usageErr("%v; pass --dir", err)
	}
	return d, nil
}

func newInterpretersInstallCmd() *cobra.Command {
	var dir, from, work, source, digest string
	var build bool
	cmd := &cobra.Command{
		Use:   "install [python|js|js-ts|sh...]",
		Short: "Install interpreters from a release bundle, or build them",
		Long: `Install puts interpreters into skillrun's cache folder.

From a release bundle (--from FILE or URL; a released skillrun fetches its
own release's bundle when --from is not given): nothing is built and no
toolchain is needed. Every file is verified against the digest this
skillrun carries (or --sha256 for a development build) before anything is
installed; a mismatch is refused naming the file. With no NAME, every
interpreter in the bundle is installed.

Built from source (a development build, or --build): python from Debian's
source package, js, js-ts and sh with the go command; --from DIR copies a
prebuilt CPython for WASI.`,
		Example: `  skillrun interpreters install                                   # a release: all, from its bundle
  skillrun interpreters install sh --from skillrun-interpreters.tar.gz --sha256 HEX
  skillrun interpreters install --from https://example.com/skillrun-interpreters.tar.gz
  skillrun interpreters install python --build
  skillrun interpreters install python --from /tmp/python-wasi   # holds python.wasm and lib/python3.11/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := interpretersDir(dir)
			if err != nil {
				return err
			}
			for _, a := range args {
				if !interp.IsBundled(a) {
					return usageErr("no interpreter %q; skillrun has python, js, js-ts and sh", a)
				}
			}
			release, releaseURL := interp.ReleaseBundle()
			if digest != "" && release != "" && !strings.EqualFold(digest, release) {
				return usageErr("--sha256 %s differs from the bundle digest this skillrun was built with (%s); a released skillrun installs only its own bundle", digest, release)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			out := cmd.OutOrStdout()
			bundle := from
			if bundle == "" && !build && releaseURL != "" {
				bundle = releaseBundle(releaseURL)
			}
			if bundle != "" && !isDir(bundle) && !prebuiltPython(bundle, args) {
				if build || work != "" || source != "" {
					return usageErr("--build, --work and --source build from source; --from %s installs a bundle", bundle)
				}
				ins, err := interp.InstallBundleFrom(ctx, d, bundle, &interp.BundleOptions{Languages: args, Digest: digest, Progress: cmd.ErrOrStderr()})
				for _, in := range ins {
					fmt.Fprintf(out, "installed %s (%s) in %s\n", in.Language, in.Version, in.Dir)
				}
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				return nil
			}
			if digest != "" {
				return usageErr("--sha256 verifies a bundle; pass the bundle with --from FILE|URL")
			}
			if len(args) == 0 {
				return usageErr("name the interpreters to build (python, js, js-ts, sh), or install a bundle with --from FILE|URL")
			}
			opts := &interp.BuildOptions{Progress: cmd.ErrOrStderr(), Work: work, Source: source}
			for _, lang := range args {
				in, err := buildInterpreter(ctx, d, lang, from, opts)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "installed %s (%s) in %s\n", in.Language, in.Version, in.Dir)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "dir", "", "the interpreters `DIR` (default: <user cache dir>/skillrun/interpreters)")
	fl.StringVar(&from, "from", "", "install from a release bundle `FILE|URL` (https; http only to loopback), or, for python, copy a prebuilt CPython for WASI from a DIR (python.wasm and lib/python3.11/)")
	fl.StringVar(&digest, "sha256", "", "the bundle's digest `HEX` (SHA-256 of its MANIFEST.sha256, published with it) for a development build of skillrun, which carries none")
	fl.BoolVar(&build, "build", false, "build from source even in a released skillrun (python needs Debian's toolchain; js, js-ts and sh the go command and --source)")
	fl.StringVar(&work, "work", "", "python: keep the build's work files (apt files, source, objects) in `DIR` to reuse them")
	fl.StringVar(&source, "source", "", "js, js-ts, sh: the skillrun source tree `DIR` to build from (default: the one this skillrun was built from)")
	return cmd
}

// buildInterpreter builds (or, for python with from, copies) one
// interpreter into the interpreters folder d.
func buildInterpreter(ctx context.Context, d, lang, from string, opts *interp.BuildOptions) (*interp.Interpreter, error) {
	var in *interp.Interpreter
	var err error
	switch lang {
	case interp.Python:
		if opts.Source != "" {
			return nil, usageErr("--source is for js, js-ts and sh; python is built from Debian's source package (or copied with --from DIR)")
		}
		if from != "" {
			in, err = interp.InstallPythonFrom(d, from)
		} else {
			in, err = interp.BuildPython(ctx, d, opts)
		}
	default:
		if from != "" || opts.Work != "" {
			return nil, usageErr("--from DIR and --work are for python; %s is built from source (--source DIR) or installed from a bundle (--from FILE|URL)", lang)
		}
		in, err = interp.Ensure(ctx, d, lang, opts)
	}
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	return in, nil
}

// releaseBundle is where a released skillrun installs its interpreters
// from: the bundle beside its executable, as the release archive ships
// it (no network needed), else the release's URL.
func releaseBundle(url string) string {
	exe, err := os.Executable()
	if err != nil {
		return url
	}
	beside := filepath.Join(filepath.Dir(exe), path.Base(url))
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
		return beside
	}
	return url
}

// isDir reports whether p is an existing folder (a prebuilt CPython, not
// a bundle file or URL).
// prebuiltPython reports whether --from names a folder meant to hold a
// prebuilt CPython: only python is asked for and the path is not a URL
// and not a file. A missing folder then gets the prebuilt's own message
// (what python.wasm and lib/python3.11/ it wants), not a bundle's "no
// such file".
func prebuiltPython(from string, langs []string) bool {
	if len(langs) == 0 || strings.Contains(from, "://") {
		return false
	}
	for _, l := range langs {
		if l != "python" {
			return false
		}
	}
	fi, err := os.Stat(from)
	return err != nil || fi.IsDir()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func newInterpretersBundleCmd() *cobra.Command {
	var dir, out string
	cmd := &cobra.Command{
		Use:   "bundle -o FILE [python|js|js-ts|sh...]",
		Short: "Write the installed interpreters into a bundle that installs without toolchains",
		Long: `Bundle writes the installed interpreters (all four, or those named) into one
gzip'd tar that "skillrun interpreters install --from FILE" installs on a
machine with no Go, clang or Debian packages. The shell and JavaScript
interpreters are built from this tree first if they are not current.

It prints the bundle's digest, the SHA-256 of its MANIFEST.sha256 (which
lists every file's SHA-256): a release binary is built with it
(make dist), and a development build takes it as --sha256.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("-o FILE is required")
			}
			for _, a := range args {
				if !interp.IsBundled(a) {
					return usageErr("no interpreter %q; skillrun has python, js, js-ts and sh", a)
				}
			}
			d, err := interpretersDir(dir)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			langs := args
			if len(langs) == 0 {
				langs = []string{interp.JS, interp.JSTS, interp.Python, interp.Shell}
			}
			for _, l := range langs {
				if interp.IsGoGuest(l) {
					if _, err := interp.Ensure(ctx, d, l, &interp.BuildOptions{Progress: cmd.ErrOrStderr()}); err != nil {
						return &exitError{code: 1, err: err}
					}
				}
			}
			var digest string
			err = safefile.WriteAtomic(out, 0o644, func(w io.Writer) error {
				digest, err = interp.WriteBundle(w, d, langs)
				return err
			})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "skillrun: wrote %s (%s); its digest:\n", out, strings.Join(langs, ", "))
			fmt.Fprintln(cmd.OutOrStdout(), digest)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the interpreters `DIR` (default: <user cache dir>/skillrun/interpreters)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the bundle `FILE` to write")
	return cmd
}

func newInterpretersListCmd() *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the installed interpreters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := interpretersDir(dir)
			if err != nil {
				return err
			}
			return listInterpreters(cmd.OutOrStdout(), d, asJSON)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the interpreters `DIR` (default: <user cache dir>/skillrun/interpreters)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func listInterpreters(w io.Writer, dir string, asJSON bool) error {
	type row struct {
		Language string           `json:"language"`
		Version  string           `json:"version"`
		Module   string           `json:"module"`
		Status   string           `json:"status"`
		Packages []interp.Package `json:"packages,omitempty"`
	}
	var rows []row
	for _, lang := range []string{interp.JS, interp.JSTS, interp.Python, interp.Shell} {
		in, err := interp.Find(dir, lang)
		switch {
		case err == nil:
			rows = append(rows, row{lang, in.Version, in.Module, "installed", in.Packages})
		case errors.Is(err, interp.ErrNotInstalled):
			rows = append(rows, row{Language: lang, Status: "not installed: " + interp.InstallHint(lang)})
		default:
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	for _, r := range rows {
		if r.Module == "" {
			fmt.Fprintf(w, "%-7s %s\n", r.Language, r.Status)
			continue
		}
		fmt.Fprintf(w, "%-7s %s  %s\n", r.Language, r.Version, r.Module)
		// The compiled packages built in, then the C libraries they use.
		for _, p := range r.Packages {
			if p.Import != "" {
				fmt.Fprintf(w, "        %-14s %-8s import %s\n", p.Name, p.Version, p.Import)
			}
		}
		for _, p := range r.Packages {
			if p.Import == "" {
				fmt.Fprintf(w, "        %-14s %-8s C library\n", p.Name, p.Version)
			}
		}
	}
	return nil
}

// runInterpreters is how `skillrun run` finds interpreters: installed ones
// from the cache folder, and the JavaScript one built from source on
// first use (a progress line on stderr).
func runInterpreters(progress io.Writer) scripts.InterpreterFunc {
	return scripts.BuildingInterpreters("", progress)
}

func newInterpretersCompileCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "compile [LANGUAGE...]",
		Short: "Compile the installed interpreters into the sandbox's cache, so first runs start fast",
		Long: `Compile turns the installed interpreters (all, or the languages named) into
machine code in the sandbox's compile cache (<user cache dir>/skillrun/
wazero), as their first run would: tens of MB of WebAssembly take seconds
to compile, once per machine and skillrun version.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := interpretersDir(dir)
			if err != nil {
				return err
			}
			langs := args
			if len(langs) == 0 {
				for _, in := range interp.List(d) {
					langs = append(langs, in.Language)
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			// The interpreters are skillrun's own: a generous budget.
			sb, err := sandbox.New(ctx, &sandbox.Options{CompileTimeout: 30 * time.Minute})
			if err != nil {
				return &exitError{code: exitSandbox, err: err}
			}
			defer func() { _ = sb.Close(context.WithoutCancel(ctx)) }()
			for _, lang := range langs {
				in, err := interp.Find(d, lang)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				wasm, err := os.ReadFile(in.Module)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				start := time.Now()
				if _, err := sb.Compile(ctx, wasm); err != nil {
					return &exitError{code: 1, err: fmt.Errorf("%s: %w", in.Module, err)}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "compiled %s (%s) in %v\n", in.Language, in.Version, time.Since(start).Round(time.Millisecond))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the interpreters `DIR` (default: <user cache dir>/skillrun/interpreters)")
	return cmd
}
