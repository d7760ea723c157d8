package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildOptions configures [BuildPython] and [EnsureJS].
type BuildOptions struct {
	// Progress receives the build's progress lines (nil: discarded).
	Progress io.Writer
	// Work is the folder the Python build works in (its apt files, source
	// and objects); "" means a temporary folder removed afterwards.
	Work string
	// Source is the root of a skillrun source tree to build the JavaScript
	// guest from; "" means the tree this program was built from, when it
	// is still there.
	Source string
}

func (o *BuildOptions) progress() io.Writer {
	if o == nil || o.Progress == nil {
		return io.Discard
	}
	return o.Progress
}

// InstallPythonFrom installs a prebuilt CPython for WASI into dir: from
// is a folder holding python.wasm and lib/python3.11/ (the layout
// [BuildPython] and `make python` produce), and PACKAGES and tests/ if
// it has compiled packages. The files are copied; a symbolic link in the
// standard library is an error.
func InstallPythonFrom(dir, from string) (*Interpreter, error) {
	stdlib := filepath.Join(from, "lib", "python"+PythonVersion)
	err := hasFiles(filepath.Join(from, "python.wasm"), filepath.Join(stdlib, "os.py"))
	if err == nil {
		err = checkWasm(filepath.Join(from, "python.wasm"))
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a CPython %s for WASI: %w (want python.wasm and lib/python%s/ with the standard library)", from, PythonVersion, err, PythonVersion)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := mkInstallTemp(dir, "install-python")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := copyFile(filepath.Join(from, "python.wasm"), filepath.Join(tmp, "python.wasm")); err != nil {
		return nil, err
	}
	installStage("module copied")
	if err := os.Mkdir(filepath.Join(tmp, "lib"), 0o755); err != nil {
		return nil, err
	}
	if err := copyTree(stdlib, filepath.Join(tmp, "lib", "python"+PythonVersion)); err != nil {
		return nil, fmt.Errorf("copying the standard library from %s: %w", stdlib, err)
	}
	// The compiled packages' list and their test suites, if the build
	// has them (build-pypackages.sh); a malformed list is refused here,
	// not at the first run.
	if _, err := os.Stat(filepath.Join(from, packagesFile)); err == nil {
		if _, err := readPackages(from); err != nil {
			return nil, err
		}
		if err := copyFile(filepath.Join(from, packagesFile), filepath.Join(tmp, packagesFile)); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(filepath.Join(from, "tests")); err == nil && fi.IsDir() {
		if err := copyTree(filepath.Join(from, "tests"), filepath.Join(tmp, "tests")); err != nil {
			return nil, fmt.Errorf("copying the packages' tests from %s: %w", from, err)
		}
	}
	version := "prebuilt (" + from + ")"
	if b, err := os.ReadFile(filepath.Join(from, "VERSION")); err == nil {
		version = strings.TrimSpace(string(b))
	}
	if err := os.WriteFile(filepath.Join(tmp, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
		return nil, err
	}
	installStage("version written")
	if err := swapIn(dir, tmp, pythonDir(dir)); err != nil {
		return nil, err
	}
	return Find(dir, Python)
}

// BuildPython builds CPython for WASI from Debian's python3.11 source
// package (the embedded build-python.sh: apt-get source through a private
// APT configuration, a pinned version and checksum, Debian's clang, lld,
// wasi-libc and libclang-rt-14-dev-wasm32) and installs it into dir.
func BuildPython(ctx context.Context, dir string, o *BuildOptions) (*Interpreter, error) {
	if _, err := exec.LookPath("bash"); err != nil {
		return nil, errors.New("building Python needs bash")
	}
	work := ""
	if o != nil {
		work = o.Work
	}
	if work == "" {
		t, err := os.MkdirTemp("", "skillrun-python-build-")
		if err != nil {
			return nil, err
		}
		defer func() { _ = os.RemoveAll(t) }()
		work = t
	}
	script := filepath.Join(work, "build-python.sh")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(script, buildPythonScript, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "build-pypackages.sh"), buildPackagesScript, 0o755); err != nil {
		return nil, err
	}
	for name, src := range map[string][]byte{"skillrun_module.c": pythonModuleC, "skillrun_main.c": pythonMainC} {
		if err := os.WriteFile(filepath.Join(work, name), src, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out, err := mkInstallTemp(dir, "build-python")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(out) }()
	cmd := exec.CommandContext(ctx, "bash", script, filepath.Join(out, "python"))
	cmd.Env = append(os.Environ(), "WORK="+filepath.Join(work, "w"))
	cmd.Stdout = o.progress()
	var stderr strings.Builder
	cmd.Stderr = io.MultiWriter(o.progress(), &stderr)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building Python for WASI: %w: %s", err, lastLines(stderr.String(), 5))
	}
	if err := swapIn(dir, filepath.Join(out, "python"), pythonDir(dir)); err != nil {
		return nil, err
	}
	return Find(dir, Python)
}

// swapIn moves the complete folder from into place at to, in the
// interpreters folder dir, under dir's lock, after cleaning up what killed
// installs left behind (see recover.go).
func swapIn(dir, from, to string) error {
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := cleanLeftovers(dir); err != nil {
		return fmt.Errorf("cleaning up after an interrupted install in %s: %w", dir, err)
	}
	return replaceDir(from, to)
}

// replaceDir moves the folder from into place at to, replacing what was
// there. It is two renames, to -> to.old and from -> to; recoverDir
// repairs a kill between them.
func replaceDir(from, to string) error {
	old := to + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(to, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	installStage("old moved aside")
	if err := os.Rename(from, to); err != nil {
		_ = os.Rename(old, to) // put the old one back
		return err
	}
	installStage("new moved in")
	return os.RemoveAll(old)
}

// copyTree copies the folder from to the new folder to, regular files
// and folders only. A symbolic link is refused, not copied (it could
// point anywhere on the host) nor followed (the copy would then hold
// files from outside from): CPython's standard library has none.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(dst, 0o755)
		case t.IsRegular():
			defer installStage("stdlib file copied")
			return copyFile(p, dst)
		case t&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			return fmt.Errorf("%s is a symbolic link (to %s); skillrun copies only regular files and folders", p, target)
		default:
			return fmt.Errorf("%s is not a regular file or folder (%s)", p, t)
		}
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// checkWasm checks that file starts like a WebAssembly binary module, so
// a wrong file is refused at install, not at the first run.
func checkWasm(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "\x00asm" {
		return fmt.Errorf("%s is not a WebAssembly module (it does not start with \\0asm)", filepath.Base(file))
	}
	return nil
}
