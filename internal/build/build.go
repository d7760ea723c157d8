// Package build compiles a skill's scripts into WebAssembly modules, as
// `skillrun build` does: the sources named by a script's build table
// (skill.toml `build = { lang, dir }`) become the module or plugin file the
// script declares.
//
// # Toolchains
//
// Each language uses its usual compiler, found in PATH:
//
//   - go: `go build` with GOOS=wasip1 GOARCH=wasm (Go 1.21 or later);
//   - c: clang for --target=wasm32-wasi, with a wasi-libc sysroot, wasm-ld
//     and clang's wasm32 builtins (Debian: clang, lld, wasi-libc,
//     libclang-rt-14-dev-wasm32);
//   - rust: rustc for wasm32-wasip1 (or the older name wasm32-wasi) with
//     that target's standard library (Debian: libstd-rust-dev-wasm32;
//     rustup: `rustup target add wasm32-wasip1`). When the rustc in PATH
//     has no such library, Debian's /usr/bin/rustc is tried.
//
// A missing toolchain is reported before anything runs, as an error that
// matches [ErrToolchainMissing] and says what to install.
//
// # Confinement
//
// A skill's sources are as untrusted as its code: a C .incbin or #include
// of an absolute path, Rust's include_bytes!, a go.mod replace naming a
// host folder or a symlink out of the skill would compile a host file
// into the module, which then prints it with no grant. So a build reads
// nothing outside the skill folder but the toolchain's own files:
//
//   - the toolchain compiles a private copy of the skill folder, made
//     through os.Root: a symlink leading out fails the build, special
//     files are refused, size, count and depth are bounded;
//   - the toolchain runs confined with Landlock: skillrun re-executes
//     itself ([SandboxMain]), restricts itself to reading the toolchain's
//     installation (and Go's module cache), writing the private folder
//     (and Go's build cache), with no TCP or UDP, and executes the
//     toolchain, which inherits the restriction with all it starts;
//   - Go fetches nothing (GOPROXY=off, GOTOOLCHAIN=local, -mod=readonly
//     or -mod=vendor), and a go.mod replace leading out of the skill is
//     refused with its line;
//   - the module, the only file written into the skill folder, goes in
//     through os.Root without following a symlink at its path.
//
// Without Landlock (not Linux, or Linux before 6.7) a build fails with
// [ErrUnconfined] unless [Options].Unconfined accepts the risk. Go sources
// with no go.mod in the skill folder build as a package of the enclosing
// module, in place, and that module is readable too; the build says so.
//
// The package sits below package skills in the layering (internal imports
// only internal), so it takes a [Target] of plain values rather than a
// skills.Script.
package build

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/internal/wasmopt"
)

// ErrToolchainMissing is matched (with errors.Is) by errors reporting that
// the compiler for a script's language, or a part of it such as a sysroot
// or a standard library, is not installed. The error's message names what
// is missing and what to install.
var ErrToolchainMissing = errors.New("build toolchain missing")

// Langs are the source languages [Script] builds.
var Langs = []string{"go", "c", "rust"}

// Debian packages that provide each toolchain; named in errors.
const (
	debianGo   = "golang-go (Go 1.21 or later; or https://go.dev/dl/)"
	debianRust = "rustc and libstd-rust-dev-wasm32 (or: rustup target add wasm32-wasip1)"
)

// debianC names the packages for C given clang's major version (the
// builtins package is versioned).
func debianC(clangMajor string) string {
	if clangMajor == "" {
		clangMajor = "14"
	}
	return "clang, lld, wasi-libc, libclang-rt-" + clangMajor + "-dev-wasm32"
}

// Options configures [Script]. A nil *Options means defaults: toolchain
// output is discarded (and quoted in the error when a build fails), and
// nothing is logged.
type Options struct {
	// Stdout and Stderr receive the toolchain's output. When Stderr is
	// nil, the tail of the output is included in the error of a failed
	// build instead.
	Stdout, Stderr io.Writer
	// Logger receives a debug record for each command run; nil discards.
	Logger *slog.Logger
	// WASISysroot is the wasi-libc sysroot for C. Empty means the first
	// of /usr (Debian's wasi-libc), /usr/share/wasi-sysroot and
	// /opt/wasi-sdk/share/wasi-sysroot that has lib/wasm32-wasi/libc.a.
	WASISysroot string
	// CHeaders are extra headers for C builds, by file name, put on the
	// include path: the CLI passes skillrun.h (package guest), so a C
	// script can #include "skillrun.h" without copying it.
	CHeaders map[string][]byte
	// Unconfined builds without Landlock where it is unavailable (not
	// Linux, or older than 6.7), instead of failing with [ErrUnconfined].
	// The sources are still copied through os.Root and go.mod replace
	// directives still checked, but a C .incbin or a Rust include_bytes!
	// of an absolute path can then read any file the user can: set it
	// only for skills whose sources you trust.
	Unconfined bool
	// Timeout bounds each script's build; zero means [DefaultTimeout].
	Timeout time.Duration
}

// DefaultTimeout bounds a script's build when [Options].Timeout is zero:
// a hostile source can make a compiler run for hours (deep templates,
// const evaluation).
const DefaultTimeout = 10 * time.Minute

// maxModule bounds the module a build may produce and install.
const maxModule = 512 << 20

// A Target is what [Script] builds: one script's build table and output
// path, as skill.toml declares them (`[scripts.NAME]` `module` or `plugin`,
// and `build = { lang, dir }`).
type Target struct {
	// Lang is the source language: "go", "c" or "rust".
	Lang string
	// Dir is the folder of the sources, slash-separated and relative to
	// the skill folder ("." for the skill folder itself).
	Dir string
	// Output is the module or plugin path, slash-separated and relative
	// to the skill folder.
	Output string
	// Plugin builds an Extism plugin (a reactor with exports, Go's
	// -buildmode=c-shared) instead of a WASI command.
	Plugin bool
}

// Script builds one script of the skill in skillDir: it compiles the
// sources in t.Dir with the toolchain for t.Lang and writes the module to
// t.Output inside skillDir, creating its folder if needed. name identifies
// the script in errors and logs (e.g. "csv-stats:stats").
//
// Both paths must stay inside skillDir: absolute paths, ".." and symlinks
// leading outside are refused. The module is compiled in a temporary
// folder and moved into place only once complete, so a failed or
// cancelled build leaves the previous module, if any, untouched.
// Cancelling ctx kills the toolchain.
//
// Script may be called concurrently for different outputs.
func Script(ctx context.Context, skillDir, name string, t Target, o *Options) error {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, fmt.Errorf("the build took longer than %v", opts.Timeout))
	defer cancel()
	b := &builder{ctx: ctx, name: name, opts: opts, limits: defaultCopyLimits}
	if err := b.build(skillDir, t); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

type builder struct {
	ctx    context.Context
	name   string
	opts   Options
	limits copyLimits
	// tmp is the build's private folder: src, the copy of the skill
	// folder; out, where the toolchain writes the module; tmp and home,
	// the toolchain's TMPDIR and HOME.
	tmp, src string
	// ro are the files and folders the confined toolchain may read
	// besides tmp (its own installation); rw those it may also write.
	ro, rw []string
}

func (b *builder) build(skillDir string, t Target) error {
	if !slices.Contains(Langs, t.Lang) {
		return fmt.Errorf("build.lang %q is not supported; use one of %s", t.Lang, strings.Join(Langs, ", "))
	}
	if why := checkRel(t.Dir); why != "" {
		return fmt.Errorf("build.dir %q %s", t.Dir, why)
	}
	if why := checkRel(t.Output); why != "" || t.Output == "." {
		if why == "" {
			why = "names the skill folder itself"
		}
		return fmt.Errorf("output %q %s", t.Output, why)
	}

	abs, err := filepath.Abs(skillDir)
	if err != nil {
		return err
	}
	// Every path is checked through an os.Root, so no symlink in the
	// skill leads the build outside it.
	root, err := os.OpenRoot(abs)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Stat(filepath.FromSlash(t.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("build.dir %q does not exist in the skill folder %s", t.Dir, abs)
	} else if err != nil {
		return fmt.Errorf("build.dir %q: %w", t.Dir, describePathErr(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("build.dir %q is not a folder", t.Dir)
	}
	if fi, err := root.Lstat(filepath.FromSlash(t.Output)); err == nil && fi.IsDir() {
		return fmt.Errorf("output %q is a folder", t.Output)
	}
	// The output's folder is made only once there is a module to put in
	// it, but a folder that leads outside is refused before building.
	if fi, err := root.Stat(filepath.FromSlash(path.Dir(t.Output))); err == nil && !fi.IsDir() {
		return fmt.Errorf("output %q: %s is not a folder", t.Output, path.Dir(t.Output))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("output %q: %w", t.Output, describePathErr(err))
	}
	tmp, err := os.MkdirTemp("", "skillrun-build-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// The toolchain compiles a private copy of the skill folder, read
	// through root: no symlink leads it out, and the skill folder itself
	// is never written but for the module.
	b.tmp = tmp
	b.src = filepath.Join(tmp, "skill")
	if err := copyTree(root, b.src, b.limits); err != nil {
		return err
	}
	for _, d := range []string{"out", "tmp", "home"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o700); err != nil {
			return err
		}
	}
	srcDir := filepath.Join(b.src, filepath.FromSlash(t.Dir))
	out := filepath.Join(tmp, "out", path.Base(t.Output))

	switch t.Lang {
	case "go":
		if err = b.goBuild(abs, t.Dir, srcDir, out, t.Plugin); err == nil {
			err = wasmopt.MergeDataFile(out) // a Go module starts faster (package wasmopt)
		}
	case "c":
		err = b.cBuild(srcDir, t.Dir, out)
	case "rust":
		err = b.rustBuild(srcDir, t.Dir, out)
	}
	if err != nil {
		return err
	}
	return install(root, out, t.Output)
}

// checkRel checks a manifest path lexically: a clean, local,
// slash-separated path. ParseManifest has checked it already; this package
// does not rely on that.
func checkRel(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.Contains(p, `\`):
		return "contains a backslash"
	case path.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)):
		return "is absolute; write a path relative to the skill folder"
	case path.Clean(p) != p:
		return "is not a clean path"
	case !filepath.IsLocal(filepath.FromSlash(p)):
		return "leads outside the skill folder"
	}
	return ""
}

// describePathErr makes os.Root's escape error say what it means.
func describePathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && strings.Contains(pe.Err.Error(), "escapes") {
		return errors.New("leads outside the skill folder (through a symlink or \"..\")")
	}
	return err
}

// install moves the built module to rel inside root, atomically: it is
// written to a temporary file beside its final name and renamed over it.
// It is the only write a build makes in the skill folder.
func install(root *os.Root, built, rel string) error {
	fi, err := os.Stat(built)
	if err != nil {
		return fmt.Errorf("the toolchain wrote no module: %w", err)
	}
	if fi.Size() > maxModule {
		return fmt.Errorf("the built module %s is %d MiB, more than the %d MiB a build may write", path.Base(rel), fi.Size()>>20, maxModule>>20)
	}
	data, err := os.ReadFile(built)
	if err != nil {
		return fmt.Errorf("the toolchain wrote no module: %w", err)
	}
	if !bytes.HasPrefix(data, []byte("\x00asm")) {
		return fmt.Errorf("the toolchain's output %s is not a WebAssembly module", path.Base(rel))
	}
	rel = filepath.FromSlash(rel)
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.ToSlash(rel), describePathErr(err))
	}
	// A fresh name, created exclusively: a symlink planted under the
	// temporary name is not followed, and the rename replaces whatever is
	// at rel (a symlink included) without following it.
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.ToSlash(rel), describePathErr(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("writing %s: %w", filepath.ToSlash(rel), describePathErr(err))
	}
	return nil
}

// missing returns an error matching ErrToolchainMissing.
func missing(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrToolchainMissing, fmt.Sprintf(format, args...))
}

// goEnvVars are the settings goBuild asks the go command for.
type goEnvVars struct {
	GOROOT, GOMODCACHE, GOCACHE, GOVERSION string
}

// goBuild runs `go build` for GOOS=wasip1 in srcDir, the copy of the
// build folder. The sources are their own module (a go.mod in the build
// folder or above it inside the skill folder) or, failing that, a package
// of the Go module enclosing the skill folder (as the examples of this
// repository are), which is then built in place in skillDir with that
// module readable.
//
// Nothing is fetched: the build runs with GOPROXY=off, GOTOOLCHAIN=local,
// GOWORK=off and -mod=readonly (or -mod=vendor when the module has
// vendor/modules.txt), so a skill's dependencies must be vendored or
// already in the module cache, whose files go.sum verifies.
func (b *builder) goBuild(skillDir, dir, srcDir, out string, plugin bool) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return missing("building Go needs the go command, which is not in PATH; install %s", debianGo)
	}
	goCmd, err = filepath.Abs(goCmd)
	if err != nil {
		return err
	}
	var ge goEnvVars
	// Asked outside the skill, so no go.mod of the skill can switch the
	// toolchain or otherwise affect the answer.
	query := exec.CommandContext(b.ctx, goCmd, "env", "-json", "GOROOT", "GOMODCACHE", "GOCACHE", "GOVERSION")
	query.Dir = b.tmp
	query.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
	if data, err := query.Output(); b.ctx.Err() != nil {
		return fmt.Errorf("go env cancelled: %w", context.Cause(b.ctx))
	} else if err != nil || json.Unmarshal(data, &ge) != nil || ge.GOROOT == "" {
		return missing("building Go needs a working go command (go env failed: %v); install %s", err, debianGo)
	}

	buildDir := srcDir
	modDir := findGoMod(srcDir, b.src)
	modName := ""
	if modDir != "" {
		rel, _ := filepath.Rel(b.src, modDir)
		modName = filepath.ToSlash(filepath.Join(rel, "go.mod"))
		if err := checkReplaces(modDir, b.src, modName); err != nil {
			return err
		}
	} else {
		// A package of an enclosing module: built where it is, with that
		// module (which holds the skill folder) readable. Still no symlink
		// out of the skill folder, no fetching, no replace leading out
		// of that module.
		orig := filepath.Join(skillDir, filepath.FromSlash(dir))
		modDir = findGoMod(filepath.Dir(skillDir), string(filepath.Separator))
		if modDir == "" {
			// No module anywhere: an author's skill copied out of a
			// repository, say. It builds as a module of its own, made in
			// the private copy (standard library only), and stays
			// confined to the skill folder.
			return b.goBuildAlone(dir, srcDir, out, plugin, goCmd, ge)
		}
		modName = filepath.Join(modDir, "go.mod")
		if err := checkReplaces(modDir, modDir, modName); err != nil {
			return err
		}
		if b.opts.Stderr != nil {
			fmt.Fprintf(b.opts.Stderr, "%s: build.dir %q has no go.mod of its own, so it builds as a package of the Go module %s, which the build may read; give the script its own go.mod to confine the build to the skill folder\n", b.name, dir, modName)
		}
		b.opts.Logger.Info("Go build in the enclosing module", "script", b.name, "module", modName)
		b.ro = append(b.ro, modDir)
		buildDir = orig
	}
	mod := "-mod=readonly"
	if isFile(filepath.Join(modDir, "vendor", "modules.txt")) {
		mod = "-mod=vendor"
	}
	return b.goRun(buildDir, out, plugin, goCmd, ge, mod, modName)
}

// goBuildAlone builds srcDir, a copy of a build folder with no go.mod in
// or above it, as a module of its own: a go.mod naming the installed Go's
// language version is written into the copy (never into the skill).
func (b *builder) goBuildAlone(dir, srcDir, out string, plugin bool, goCmd string, ge goEnvVars) error {
	name := "skill"
	if base := path.Base(path.Clean(filepath.ToSlash(dir))); base != "." && base != "/" && base != ".." {
		name += "/" + base
	}
	gomod := fmt.Sprintf("// Made by skillrun build: %s has no go.mod.\nmodule %s\n\ngo %s\n", dir, name, goLanguageVersion(ge.GOVERSION))
	modName := filepath.Join(srcDir, "go.mod")
	if err := os.WriteFile(modName, []byte(gomod), 0o644); err != nil {
		return err
	}
	if b.opts.Stderr != nil {
		fmt.Fprintf(b.opts.Stderr, "%s: build.dir %q has no go.mod; it builds as a module of its own (standard library only; add a go.mod to use other modules)\n", b.name, dir)
	}
	err := b.goRun(srcDir, out, plugin, goCmd, ge, "-mod=readonly", modName)
	if err != nil && (strings.Contains(err.Error(), "no required module provides package") || strings.Contains(err.Error(), "cannot find module providing package")) {
		return fmt.Errorf("%w\nbuild.dir %q has no go.mod, so it can import only the standard library: make it a module (go mod init, go get) to use others", err, dir)
	}
	return err
}

// goLanguageVersion turns GOVERSION ("go1.26.8", "go1.27rc1") into the
// language version of a go directive ("1.26"); "1.21" if it cannot.
func goLanguageVersion(v string) string {
	v = strings.TrimPrefix(v, "go")
	major, rest, ok := strings.Cut(v, ".")
	if !ok {
		return "1.21"
	}
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
	}
	if major == "" || minor == "" {
		return "1.21"
	}
	return major + "." + minor
}

// goRun runs the confined go build in buildDir with the module flag mod;
// modName names the go.mod in messages.
func (b *builder) goRun(buildDir, out string, plugin bool, goCmd string, ge goEnvVars, mod, modName string) error {
	b.ro = append(b.ro, ge.GOROOT, ge.GOMODCACHE, filepath.Dir(resolve(goCmd)))
	if ge.GOCACHE != "" && ge.GOCACHE != "off" {
		// The build cache is shared, so the standard library is not
		// rebuilt for every skill. The go command alone writes it and runs
		// no code of the skill (no cgo, no toolexec), so a skill cannot
		// choose what goes in.
		b.rw = append(b.rw, ge.GOCACHE)
	}
	env := append(b.baseEnv(),
		"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0",
		"GOROOT="+ge.GOROOT, "GOMODCACHE="+ge.GOMODCACHE, "GOCACHE="+ge.GOCACHE,
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off", "GOENV=off",
		"GOFLAGS="+mod+" -buildvcs=false")
	args := []string{"build", "-trimpath", "-ldflags=-s -w"}
	if plugin {
		// A plain build makes a command whose exports trap with
		// runtime.notInitialized; a plugin must be a library.
		args = append(args, "-buildmode=c-shared")
	}
	output, err := b.run("go build", buildDir, env, goCmd, append(args, "-o", out, ".")...)
	switch {
	case err == nil:
		return nil
	case strings.Contains(output, "unsupported GOOS/GOARCH pair wasip1/wasm"):
		return missing("building Go for GOOS=wasip1 needs Go 1.21 or later; install %s", debianGo)
	case strings.Contains(output, "GOPROXY=off") || strings.Contains(output, "missing go.sum entry") ||
		strings.Contains(output, "inconsistent vendoring"):
		return fmt.Errorf("%w\nskillrun build fetches no modules: vendor the dependencies (go mod vendor) in %s, or, if you trust them, download them first (go mod download)", err, filepath.Dir(modName))
	case strings.Contains(output, "GOTOOLCHAIN=local"):
		return fmt.Errorf("%w\nskillrun build uses the installed Go and downloads no toolchain: install the Go version %s asks for", err, modName)
	}
	return err
}

// resolve returns p with symlinks resolved, or p itself.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// systemRO are the system folders every confined toolchain may read: its
// programs and shared libraries, the dynamic linker's cache and Debian's
// alternatives links. Nothing under /etc but those, nothing under /home.
var systemRO = []string{"/usr/bin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/etc/alternatives"}

// baseEnv is the environment every toolchain starts from: no variable of
// the user's but PATH, so no CPATH, RUSTFLAGS or GOFLAGS reaches in.
func (b *builder) baseEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(b.tmp, "home"),
		"TMPDIR=" + filepath.Join(b.tmp, "tmp"),
		"LC_ALL=C",
	}
}

// cBuild compiles every .c file of srcDir into one WASI command module.
func (b *builder) cBuild(srcDir, dir, out string) error {
	clang, err := exec.LookPath("clang")
	if err != nil {
		return missing("building C needs clang, which is not in PATH; install the Debian packages %s", debianC(""))
	}
	major := b.probe(clang, "-dumpversion")
	if i := strings.IndexByte(major, '.'); i > 0 {
		major = major[:i]
	}
	pkgs := debianC(major)

	sysroot := b.opts.WASISysroot
	if sysroot == "" {
		for _, s := range []string{"/usr", "/usr/share/wasi-sysroot", "/opt/wasi-sdk/share/wasi-sysroot"} {
			if _, err := os.Stat(filepath.Join(s, "lib", "wasm32-wasi", "libc.a")); err == nil {
				sysroot = s
				break
			}
		}
		if sysroot == "" {
			return missing("building C needs the wasi-libc sysroot (lib/wasm32-wasi/libc.a), which is not installed; install the Debian packages %s", pkgs)
		}
	} else if _, err := os.Stat(filepath.Join(sysroot, "lib", "wasm32-wasi", "libc.a")); err != nil {
		return missing("WASISysroot %s has no lib/wasm32-wasi/libc.a; install the Debian packages %s", sysroot, pkgs)
	}
	// clang names the linker and builtins it would use; check both exist
	// rather than let the link fail with a cryptic message.
	ld := b.probe(clang, "--target=wasm32-wasi", "-print-prog-name=wasm-ld")
	if !isFile(ld) {
		if ld, err = exec.LookPath("wasm-ld"); err != nil {
			return missing("building C needs wasm-ld (from lld), which is not installed; install the Debian packages %s", pkgs)
		}
	}
	rt := b.probe(clang, "--target=wasm32-wasi", "-print-libgcc-file-name")
	if rt == "" || !isFile(rt) {
		return missing("building C needs clang's wasm32 builtins (%s), which are not installed; install the Debian packages %s", rt, pkgs)
	}
	// Confined, clang reads its own installation, the sysroot and the
	// copy of the skill: /usr/include (the host's headers) is not there.
	b.ro = append(b.ro, filepath.Dir(resolve(clang)), filepath.Dir(resolve(ld)), filepath.Dir(rt), sysroot)
	if res := b.probe(clang, "-print-resource-dir"); res != "" {
		b.ro = append(b.ro, res)
	}

	sources, err := filepath.Glob(filepath.Join(srcDir, "*.c"))
	if err != nil {
		return err
	}
	if len(sources) == 0 {
		return fmt.Errorf("build.dir %q has no .c files", dir)
	}
	args := []string{"--target=wasm32-wasi", "--sysroot=" + sysroot, "-O2", "-Wl,--strip-all", "-o", out}
	if len(b.opts.CHeaders) > 0 {
		inc := filepath.Join(b.tmp, "include")
		if err := os.MkdirAll(inc, 0o755); err != nil {
			return err
		}
		for name, data := range b.opts.CHeaders {
			if name != filepath.Base(name) {
				return fmt.Errorf("header name %q must be a plain file name", name)
			}
			if err := os.WriteFile(filepath.Join(inc, name), data, 0o644); err != nil {
				return err
			}
		}
		args = append(args, "-I", inc)
	}
	for _, s := range sources {
		args = append(args, filepath.Base(s)) // relative, so messages say "count.c:12"
	}
	_, err = b.run("clang", srcDir, b.baseEnv(), clang, args...)
	return err
}

// rustBuild compiles main.rs (or src/main.rs) of srcDir with rustc.
func (b *builder) rustBuild(srcDir, dir, out string) error {
	rustc, err := exec.LookPath("rustc")
	if err != nil {
		return missing("building Rust needs rustc, which is not in PATH; install %s", debianRust)
	}
	target := b.wasiTarget(rustc)
	if target == "" && rustc != systemRustc && isFile(systemRustc) {
		// A rustup rustc without the wasm target often shadows Debian's,
		// which has it when libstd-rust-dev-wasm32 is installed.
		if t := b.wasiTarget(systemRustc); t != "" {
			b.opts.Logger.Debug("using the system rustc: the one in PATH has no wasm32-wasip1 standard library", "script", b.name, "path", rustc)
			rustc, target = systemRustc, t
		}
	}
	if target == "" {
		return missing("building Rust needs the standard library for wasm32-wasip1, which %s does not have; install %s", rustc, debianRust)
	}

	entry := ""
	for _, e := range []string{"main.rs", filepath.Join("src", "main.rs")} {
		if isFile(filepath.Join(srcDir, e)) {
			entry = e
			break
		}
	}
	if entry == "" {
		return fmt.Errorf("build.dir %q has no main.rs (or src/main.rs)", dir)
	}
	if sysroot := b.probe(rustc, "--print", "sysroot"); sysroot != "" {
		b.ro = append(b.ro, sysroot)
	}
	b.ro = append(b.ro, filepath.Dir(resolve(rustc)))
	_, err = b.run("rustc", srcDir, b.baseEnv(), rustc, "--target", target, "--edition", "2021", "-O", "-C", "strip=symbols", "-o", out, entry)
	return err
}

// systemRustc is Debian's rustc, tried when the one in PATH cannot build
// for WASI.
const systemRustc = "/usr/bin/rustc"

// wasiTarget returns the WASI preview 1 target rustc knows and has a
// standard library for, or "". Rust renamed wasm32-wasi to wasm32-wasip1
// (1.78); either will do.
func (b *builder) wasiTarget(rustc string) string {
	known := strings.Fields(b.probe(rustc, "--print", "target-list"))
	for _, t := range []string{"wasm32-wasip1", "wasm32-wasi"} {
		if !slices.Contains(known, t) {
			continue
		}
		libdir := b.probe(rustc, "--print", "target-libdir", "--target", t)
		if std, _ := filepath.Glob(filepath.Join(libdir, "libstd-*.rlib")); libdir != "" && len(std) > 0 {
			return t
		}
	}
	return ""
}

// probe runs a toolchain query and returns its trimmed stdout, or "".
func (b *builder) probe(tool string, args ...string) string {
	cmd := exec.CommandContext(b.ctx, tool, args...)
	out, err := cmd.Output()
	if err != nil {
		b.opts.Logger.Debug("toolchain probe failed", "script", b.name, "cmd", tool, "args", args, "err", err)
		return ""
	}
	return strings.TrimSpace(string(out))
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// maxQuoted bounds the toolchain output quoted in an error.
const maxQuoted = 8 << 10

// run runs a toolchain command in dir, with env (nil: inherit); label
// names it in errors. Output goes to the options' writers; the combined
// output's tail is returned, and quoted in the error when nobody else saw
// it.
func (b *builder) run(label, dir string, env []string, tool string, args ...string) (string, error) {
	b.opts.Logger.Debug("build", "script", b.name, "dir", dir, "cmd", tool, "args", args, "confined", !b.opts.Unconfined)
	tool, err := filepath.Abs(tool)
	if err != nil {
		return "", err
	}
	var cmd *exec.Cmd
	if b.opts.Unconfined {
		cmd = exec.CommandContext(b.ctx, tool, args...)
		cmd.Env = env
	} else {
		if _, err := landlockABI(); err != nil {
			return "", fmt.Errorf("%w; to build anyway, trusting the skill's sources not to read your files, use skillrun build --unconfined", err)
		}
		rw := append([]string{b.tmp}, b.rw...)
		cmd, err = sandboxCommand(b.ctx, tool, args, env, append(slices.Clone(systemRO), b.ro...), rw)
		if err != nil {
			return "", err
		}
	}
	tail := &tailBuffer{max: maxQuoted}
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = tail, tail
	if b.opts.Stdout != nil {
		cmd.Stdout = io.MultiWriter(b.opts.Stdout, tail)
	}
	if b.opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(b.opts.Stderr, tail)
	}
	err = cmd.Run()
	output := tail.String()
	switch {
	case err == nil:
		return output, nil
	case b.ctx.Err() != nil:
		return output, fmt.Errorf("%s cancelled: %w", label, context.Cause(b.ctx))
	}
	msg := fmt.Sprintf("%s failed: %v", label, err)
	if b.opts.Stderr == nil && strings.TrimSpace(output) != "" {
		msg += "\n" + strings.TrimRight(output, "\n")
	}
	return output, errors.New(msg)
}

// tailBuffer keeps the last max bytes written to it. The command's
// stdout and stderr are copied into it from two goroutines.
type tailBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.truncated {
		return "...\n" + string(t.buf)
	}
	return string(t.buf)
}
