// Package interp finds, installs and builds the interpreter modules that
// run skillrun's "source" scripts: CPython built for WASI preview1 (with
// its standard library) for .py files, skillrun's goja-based
// JavaScript guest (guest/interp/js) for .js files, and skillrun's
// sandboxed shell (guest/interp/sh) for .sh files and `skillrun shell`.
//
// Interpreters live in a folder of the user cache dir, one sub-folder per
// interpreter:
//
//	<dir>/python-3.11/python.wasm        the interpreter
//	<dir>/python-3.11/lib/python3.11/    its standard library
//	<dir>/python-3.11/VERSION            what it was built from
//	<dir>/js/js.wasm                     the JavaScript guest
//	<dir>/js/VERSION                     the hash of the source it was built from
//	<dir>/sh/sh.wasm                     the shell (and sh/VERSION, as js's)
//	<dir>/js-ts/jsts.wasm                the JavaScript guest with esbuild (TypeScript, ES modules)
//
// The functions here are safe for concurrent use by one process; two
// processes installing the same interpreter at once each build it, and
// the last to finish wins (every install is a rename into place, under
// the folder's lock). A killed install leaves the previous interpreter
// usable; Find and the next install clean up after it (recover.go).
package interp

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Languages of source scripts.
const (
	Python = "python"
	JS     = "js"
	Shell  = "sh"
	// JSTS is the JavaScript interpreter built with esbuild, which runs
	// TypeScript and ES modules: larger and slower to start than JS, so
	// it runs only the scripts that need it.
	JSTS = "js-ts"
)

// PythonVersion is the CPython series skillrun builds and expects.
const PythonVersion = "3.11"

// PythonHome is where the guest sees Python's prefix: the standard library
// is mounted read-only at PythonHome/lib/python3.11.
const PythonHome = "/usr/local"

// ErrNotInstalled matches the error of [Find] when an interpreter is not
// in the folder.
var ErrNotInstalled = errors.New("interpreter not installed")

//go:embed sitecustomize.py
var sitecustomize []byte

// subprocessPy is subprocess.Popen over the exec host function, which
// sitecustomize installs when a script imports subprocess.
//
//go:embed skillrun_subprocess.py
var subprocessPy []byte

// sysconfigData is the build-time configuration sysconfig reads, installed
// as sysconfigDataName (see sysconfigdata.py).
//
//go:embed sysconfigdata.py
var sysconfigData []byte

// sysconfigDataName is the module the guest's sysconfig imports
// (_PYTHON_SYSCONFIGDATA_NAME).
const sysconfigDataName = "_sysconfigdata_skillrun"

// skillrunFiles are the files skillrun puts beside the standard library
// of an installed CPython: they are skillrun's, not the install's.
var skillrunFiles = map[string][]byte{
	"sitecustomize.py":        sitecustomize,
	"_skillrun_subprocess.py": subprocessPy,
	sysconfigDataName + ".py": sysconfigData,
}

//go:embed build-python.sh
var buildPythonScript []byte

// pythonModuleC is the source of the _skillrun module build-python.sh
// links into python.wasm: the host functions, for sitecustomize.
//
//go:embed pyext/skillrun_module.c
var pythonModuleC []byte

// A Mount is a host folder the interpreter sees read-only at GuestPath.
type Mount struct {
	HostDir, GuestPath string
}

// An Interpreter is an installed interpreter module and how to run it.
type Interpreter struct {
	// Language is Python or JS.
	Language string
	// Version says what it was built from (a Debian source version, or
	// "source <hash>" for the JavaScript guest).
	Version string
	// Dir is its folder; Module is the path of its .wasm file.
	Dir, Module string
	// Mounts are read-only folders it needs besides the script's own
	// mounts (Python's standard library).
	Mounts []Mount
	// Env is the guest environment it needs ("KEY=VALUE"), set inside the
	// guest only.
	Env []string
	// Args come before the script's path on the command line.
	Args []string
}

// Language returns the language of a source script by its file name:
// Python for .py, JS for .js, .cjs and .mjs, JSTS for TypeScript (.ts,
// .mts, .cts), Shell for .sh and .bash.
func Language(file string) (string, bool) {
	switch strings.ToLower(path.Ext(file)) {
	case ".py":
		return Python, true
	case ".js", ".cjs", ".mjs":
		return JS, true
	case ".ts", ".mts", ".cts":
		return JSTS, true
	case ".sh", ".bash":
		return Shell, true
	}
	return "", false
}

// esmSyntax finds a top-level import or export statement (the same
// pattern the JS guest uses).
var esmSyntax = regexp.MustCompile(`(?m)^\s*(import\s*[\w{*'"]|import\s*$|export\s+(default|const|let|var|function|class|async|\{|\*))`)

// IsESModule reports whether JavaScript source is an ES module (a
// top-level import or export): such a script runs under [JSTS], whose
// esbuild rewrites it to the CommonJS goja runs.
func IsESModule(code []byte) bool { return esmSyntax.Match(code) }

// DefaultDir is <os.UserCacheDir()>/skillrun/interpreters.
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory for interpreters: %w", err)
	}
	return filepath.Join(base, "skillrun", "interpreters"), nil
}

func pythonDir(dir string) string { return filepath.Join(dir, "python-"+PythonVersion) }

// InstallHint says how to install an interpreter of language.
func InstallHint(language string) string {
	return "install it with `skillrun interpreters install " + language + "`"
}

// Find returns the installed interpreter of language in dir, or an error
// matching [ErrNotInstalled] that says how to install it.
func Find(dir, language string) (*Interpreter, error) {
	switch language {
	case Python, JS, Shell, JSTS:
		// An install killed between its two renames left the previous
		// interpreter aside: put it back before looking.
		d := pythonDir(dir)
		if language != Python {
			d = filepath.Join(dir, language)
		}
		if err := recoverLocked(dir, d); err != nil {
			return nil, err
		}
	}
	switch language {
	case Python:
		d := pythonDir(dir)
		stdlib := filepath.Join(d, "lib", "python"+PythonVersion)
		if err := hasFiles(filepath.Join(d, "python.wasm"), filepath.Join(stdlib, "os.py")); err != nil {
			return nil, fmt.Errorf("%w: Python %s is not in %s (%w); %s", ErrNotInstalled, PythonVersion, d, err, InstallHint(Python))
		}
		for name, data := range skillrunFiles {
			if err := ensureFile(filepath.Join(stdlib, name), data); err != nil {
				return nil, fmt.Errorf("python interpreter in %s: %w", d, err)
			}
		}
		return &Interpreter{
			Language: Python,
			Version:  readVersion(d),
			Dir:      d,
			Module:   filepath.Join(d, "python.wasm"),
			Mounts:   []Mount{{HostDir: stdlib, GuestPath: PythonHome + "/lib/python" + PythonVersion}},
			Env: []string{
				"PYTHONHOME=" + PythonHome,
				"PYTHONDONTWRITEBYTECODE=1",
				"PYTHONUTF8=1",
				"PYTHONNOUSERSITE=1",
				"_PYTHON_SYSCONFIGDATA_NAME=" + sysconfigDataName,
			},
		}, nil
	case JS, Shell, JSTS:
		g := goGuests[language]
		d := filepath.Join(dir, language)
		if err := hasFiles(filepath.Join(d, g.wasm)); err != nil {
			return nil, fmt.Errorf("%w: %s is not in %s (%w); %s", ErrNotInstalled, g.what, d, err, InstallHint(language))
		}
		return &Interpreter{Language: language, Version: readVersion(d), Dir: d, Module: filepath.Join(d, g.wasm)}, nil
	}
	return nil, fmt.Errorf("no interpreter for language %q (skillrun has %s, %s, %s and %s)", language, Python, JS, JSTS, Shell)
}

// List returns the interpreters installed in dir, sorted by language.
func List(dir string) []*Interpreter {
	var list []*Interpreter
	for _, l := range []string{JS, JSTS, Python, Shell} {
		if in, err := Find(dir, l); err == nil {
			list = append(list, in)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Language < list[j].Language })
	return list
}

func hasFiles(files ...string) error {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("no %s", filepath.Base(f))
			}
			return err
		}
	}
	return nil
}

// readVersion is the first line of d/VERSION, or "unknown" without one.
func readVersion(d string) string {
	b, err := os.ReadFile(filepath.Join(d, "VERSION"))
	if err != nil {
		return "unknown"
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if first = strings.TrimSpace(first); first == "" {
		return "unknown"
	}
	return first
}

// ensureFile writes data to name unless it already holds exactly data.
func ensureFile(name string, data []byte) error {
	if old, err := os.ReadFile(name); err == nil && string(old) == string(data) {
		return nil
	}
	return writeAtomic(name, data)
}

func writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-"+filepath.Base(name))
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}
