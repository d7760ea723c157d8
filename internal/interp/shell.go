package interp

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A modulePatch is a dependency of the shell guest that its build
// changes: the build uses a writable copy of the module (in work/dir),
// patched, through a go.mod copy that replaces the module with it
// (-modfile). Go's -overlay cannot replace files in the module cache.
// Nothing of these modules is kept in skillrun's tree; a build fails
// with a clear message if a later version moves what a patch rewrites.
type modulePatch struct {
	module, dir string
	patch       func(copyDir string) error
}

// shellPatches are the shell guest's patched dependencies.
var shellPatches = []modulePatch{
	// mvdan.cc/sh's interpreter connects pipeline stages and
	// here-documents with os.Pipe, which GOOS=wasip1 lacks; its js/wasm
	// port uses in-process io.Pipes instead (stdin_js.go), which is what
	// a WASI module needs too: that file's build constraint is widened to
	// wasip1 (the copy is stdin_wasip1.go, as a _js.go file name implies
	// GOOS=js).
	{"mvdan.cc/sh/v3", "mvdan-sh", func(dir string) error {
		osFile := filepath.Join(dir, "interp", "stdin_os.go")
		jsFile := filepath.Join(dir, "interp", "stdin_js.go")
		if err := rewriteOnce(osFile, "//go:build !js\n", "//go:build !js && !wasip1\n", osFile); err != nil {
			return err
		}
		return rewriteOnce(jsFile, "//go:build js\n", "//go:build wasip1\n", filepath.Join(dir, "interp", "stdin_wasip1.go"))
	}},
	// gojq builds the syntax trees of its builtin definitions in a
	// package init: 8 ms of every shell command's start in WebAssembly,
	// jq or not. The patch builds them on first use.
	{"github.com/itchyny/gojq", "gojq", func(dir string) error {
		builtin := filepath.Join(dir, "builtin.go")
		if err := rewriteOnce(builtin, "func init() {\n\tbuiltinFuncDefs = ", "func initBuiltinFuncDefs() {\n\tbuiltinFuncDefs = ", builtin); err != nil {
			return err
		}
		compiler := filepath.Join(dir, "compiler.go")
		if err := rewriteOnce(compiler, "builtinFuncDefs[e.Name]", "lazyBuiltinFuncDefs()[e.Name]", compiler); err != nil {
			return err
		}
		if err := rewriteOnce(compiler, "range builtinFuncDefs {", "range lazyBuiltinFuncDefs() {", compiler); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "builtin_lazy.go"), []byte(`package gojq

import "sync"

var builtinOnce sync.Once

// lazyBuiltinFuncDefs is builtinFuncDefs, built on first use
// (skillrun's shell build: internal/interp/shell.go).
func lazyBuiltinFuncDefs() map[string][]*FuncDef {
	builtinOnce.Do(initBuiltinFuncDefs)
	return builtinFuncDefs
}
`), 0o644)
	}},
}

// patchShellBuild prepares the build of the shell guest in work: the
// copies of shellPatches' modules, patched, and the go.mod and go.sum
// that replace the modules with them. It returns the go build arguments
// that use them.
func patchShellBuild(ctx context.Context, src, work string) ([]string, error) {
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return nil, err
	}
	for _, p := range shellPatches {
		list := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", p.module)
		list.Dir = src
		out, err := list.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -m %s: %w (run `make deps`)", p.module, err)
		}
		modDir, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
		if modDir == "" {
			return nil, fmt.Errorf("%s is not in the module cache (run `make deps`)", p.module)
		}
		copyDir := filepath.Join(work, p.dir)
		if err := copyTreeWritable(modDir, copyDir); err != nil {
			return nil, err
		}
		if err := p.patch(copyDir); err != nil {
			return nil, err
		}
		gomod = append(gomod, []byte(fmt.Sprintf("\nreplace %s => %s\n", p.module, copyDir))...)
	}
	modfile := filepath.Join(work, "go.mod")
	if err := os.WriteFile(modfile, gomod, 0o644); err != nil {
		return nil, err
	}
	gosum, err := os.ReadFile(filepath.Join(src, "go.sum"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "go.sum"), gosum, 0o644); err != nil {
		return nil, err
	}
	return []string{"-modfile", modfile}, nil
}

// rewriteOnce writes file to dst with the first from in it replaced by
// to, and fails if file has no from.
func rewriteOnce(file, from, to, dst string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(from)) {
		return fmt.Errorf("%s no longer has %q, which the shell's wasip1 build rewrites; update internal/interp/shell.go", file, strings.TrimSpace(from))
	}
	return os.WriteFile(dst, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644)
}

// copyTreeWritable copies the Go files and go.mod of a module tree
// (module cache files are read-only), skipping test data.
func copyTreeWritable(from, to string) error {
	return filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if e.IsDir() {
			if e.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if n := e.Name(); n != "go.mod" && !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}
