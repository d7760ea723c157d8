package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/interp"
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
          pure Go), built with the go command on first use`,
	}
	cmd.AddCommand(newInterpretersInstallCmd(), newInterpretersListCmd(), newInterpretersCompileCmd())
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
	var dir, from, work, source string
	cmd := &cobra.Command{
		Use:   "install python|js|js-ts|sh",
		Short: "Build (or copy) an interpreter into skillrun's cache folder",
		Example: `  skillrun interpreters install python
  skillrun interpreters install python --from /tmp/python-wasi   # holds python.wasm and lib/python3.11/
  skillrun interpreters install js`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := interpretersDir(dir)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opts := &interp.BuildOptions{Progress: cmd.ErrOrStderr(), Work: work, Source: source}
			var in *interp.Interpreter
			switch args[0] {
			case interp.Python:
				if source != "" {
					return usageErr("--source is for js; python is built from Debian's source package (or copied with --from)")
				}
				if from != "" {
					in, err = interp.InstallPythonFrom(d, from)
				} else {
					in, err = interp.BuildPython(ctx, d, opts)
				}
			case interp.JS, interp.JSTS, interp.Shell:
				if from != "" || work != "" {
					return usageErr("--from and --work are for python; %s is built from source (--source DIR)", args[0])
				}
				in, err = interp.Ensure(ctx, d, args[0], opts)
			default:
				return usageErr("no interpreter %q; skillrun has python, js, js-ts and sh", args[0])
			}
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "installed %s (%s) in %s\n", in.Language, in.Version, in.Dir)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "dir", "", "the interpreters `DIR` (default: <user cache dir>/skillrun/interpreters)")
	fl.StringVar(&from, "from", "", "python: copy a prebuilt CPython for WASI from `DIR` (python.wasm and lib/python3.11/) instead of building")
	fl.StringVar(&work, "work", "", "python: keep the build's work files (apt files, source, objects) in `DIR` to reuse them")
	fl.StringVar(&source, "source", "", "js, sh: the skillrun source tree `DIR` to build from (default: the one this skillrun was built from)")
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
