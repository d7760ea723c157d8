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

// shellModule is the shell interpreter's module, mvdan.cc/sh.
const shellModule = "mvdan.cc/sh/v3"

// patchShellBuild prepares the build of the shell guest. mvdan.cc/sh's
// interpreter connects pipeline stages and here-documents with os.Pipe,
// which GOOS=wasip1 lacks; its js/wasm port uses in-process io.Pipes
// instead (stdin_js.go), which is what a WASI module needs too. Go's
// -overlay cannot replace files in the module cache, so the build uses a
// copy of the module in work with that file's build constraint widened to
// wasip1 (the wasip1 copy is stdin_wasip1.go, as a _js.go file name
// implies GOOS=js), through a go.mod copy that replaces the module with
// it (-modfile). Nothing of mvdan.cc/sh is kept in skillrun's tree; the
// build fails with a clear message if a later version moves these files.
func patchShellBuild(ctx context.Context, src, work string) ([]string, error) {
	list := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", shellModule)
	list.Dir = src
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s: %w (run `make deps`)", shellModule, err)
	}
	modDir, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if modDir == "" {
		return nil, fmt.Errorf("%s is not in the module cache (run `make deps`)", shellModule)
	}
	copyDir := filepath.Join(work, "mvdan-sh")
	if err := copyTreeWritable(modDir, copyDir); err != nil {
		return nil, err
	}
	osFile := filepath.Join(copyDir, "interp", "stdin_os.go")
	jsFile := filepath.Join(copyDir, "interp", "stdin_js.go")
	if err := rewriteConstraint(osFile, "//go:build !js\n", "//go:build !js && !wasip1\n", osFile); err != nil {
		return nil, err
	}
	if err := rewriteConstraint(jsFile, "//go:build js\n", "//go:build wasip1\n", filepath.Join(copyDir, "interp", "stdin_wasip1.go")); err != nil {
		return nil, err
	}
	modfile := filepath.Join(work, "go.mod")
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return nil, err
	}
	gomod = append(gomod, []byte(fmt.Sprintf("\nreplace %s => %s\n", shellModule, copyDir))...)
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

// rewriteConstraint writes file to dst with its build constraint line
// from replaced by to.
func rewriteConstraint(file, from, to, dst string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(from)) {
		return fmt.Errorf("%s no longer has the line %q the shell's wasip1 build rewrites; update internal/interp/shell.go", file, strings.TrimSpace(from))
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
