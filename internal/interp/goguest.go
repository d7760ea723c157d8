package interp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillrun/skillrun/internal/wasmopt"
)

// A goGuest is an interpreter built from Go source in skillrun's tree
// (GOOS=wasip1): the JavaScript interpreter and the shell.
type goGuest struct {
	pkg  string // its package, relative to the source root
	wasm string // the module's file name
	what string // for messages
	tags string // go build -tags
	// patch prepares the build in work and returns extra go build
	// arguments (the shell's -modfile, see shell.go); nil for none.
	patch func(ctx context.Context, src, work string) ([]string, error)
	// recipe fingerprints what this binary's patch applies (the shell's
	// patch files and hooks, embedded in the binary): part of the build's
	// identity, since it, not the tree's copy, is what the build uses.
	recipe func() string
}

// Every Go guest is built as a WASI reactor (-buildmode=c-shared) that
// exports goSnapshot's functions, rewritten by wasmopt.GoReactor so that
// it also starts as a command: runs start from a snapshot of it where
// the Runner keeps one (snapshot.go).
var goGuests = map[string]goGuest{
	JS:    {pkg: "guest/interp/js", wasm: "js.wasm", what: "the JavaScript interpreter"},
	JSTS:  {pkg: "guest/interp/js", wasm: "jsts.wasm", what: "the JavaScript interpreter with TypeScript", tags: "esbuild"},
	Shell: {pkg: "guest/interp/sh", wasm: "sh.wasm", what: "the sandboxed shell", tags: "skillrun_gojq", patch: patchShellBuild, recipe: shellRecipe},
}

// IsGoGuest reports whether language's interpreter is built from Go
// source with [Ensure] (js, js-ts, sh) rather than installed (python).
func IsGoGuest(language string) bool {
	_, ok := goGuests[language]
	return ok
}

// Ensure returns the interpreter of language (js or sh) in dir, building
// it first (with the go command, GOOS=wasip1) when it is missing or was
// built from other source than the tree at hand. Without a source tree,
// an installed interpreter is used as it is.
func Ensure(ctx context.Context, dir, language string, o *BuildOptions) (*Interpreter, error) {
	g, ok := goGuests[language]
	if !ok {
		return nil, fmt.Errorf("no interpreter built from source for language %q", language)
	}
	src := ""
	if o != nil {
		src = o.Source
	}
	if src == "" {
		src = sourceRoot()
	}
	installed, findErr := Find(dir, language)
	if src == "" {
		if findErr != nil && bundleDigest != "" {
			return nil, findErr // a release: its hint installs the bundle
		}
		if findErr != nil {
			return nil, fmt.Errorf("%w; building it needs a skillrun source tree (skillrun interpreters install %s --source DIR), or install it from a release bundle (--from FILE|URL)", findErr, language)
		}
		return installed, nil
	}
	hash, err := goSourceHash(src, g.pkg)
	if err == nil && g.tags != "" {
		hash += "+" + g.tags
	}
	if err == nil && g.recipe != nil {
		hash += "+" + g.recipe()
	}
	if err != nil {
		return nil, fmt.Errorf("source of %s in %s: %w", g.what, src, err)
	}
	version := "source " + hash + goGuestRewrite
	if findErr == nil && installed.Version == version {
		return installed, nil
	}
	if _, err := exec.LookPath("go"); err != nil {
		return nil, fmt.Errorf("building %s needs the go command, which is not in PATH: %w", g.what, err)
	}
	fmt.Fprintf(o.progress(), "skillrun: building %s (GOOS=wasip1) from %s\n", g.what, src)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := mkInstallTemp(dir, "build-"+language)
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// -checklinkname=0: package wasiproc reaches Go's process state by
	// name, to refresh it in a run from a snapshot.
	args := []string{"build", "-trimpath", "-buildmode=c-shared", "-ldflags=-s -w -checklinkname=0", "-o", filepath.Join(tmp, g.wasm)}
	if g.tags != "" {
		args = append(args, "-tags", g.tags)
	}
	if g.patch != nil {
		work := filepath.Join(tmp, "work")
		extra, err := g.patch(ctx, src, work)
		if err != nil {
			return nil, fmt.Errorf("preparing the build of %s: %w", g.what, err)
		}
		args = append(args, extra...)
		defer func() { _ = os.RemoveAll(work) }()
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+g.pkg)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s in %s: %w\n%s", g.what, src, err, out)
	}
	if g.patch != nil {
		_ = os.RemoveAll(filepath.Join(tmp, "work"))
	}
	// 100,000 data segments become a few, the reactor also starts as a
	// command and can be snapshotted (package wasmopt).
	if err := wasmopt.MergeDataFile(filepath.Join(tmp, g.wasm)); err != nil {
		return nil, fmt.Errorf("%s: %w", g.what, err)
	}
	if err := wasmopt.GoReactorFile(filepath.Join(tmp, g.wasm), goSnapshot.Entry); err != nil {
		return nil, fmt.Errorf("%s: %w", g.what, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := swapIn(dir, tmp, filepath.Join(dir, language)); err != nil {
		return nil, err
	}
	return Find(dir, language)
}

// goGuestRewrite marks, in an interpreter's version, how its module was
// built and rewritten (a reactor, wasmopt.MergeDataFile and
// wasmopt.GoReactorFile): an interpreter built before is built again.
const goGuestRewrite = " (reactor, data merged)"

// sourceRoot is the skillrun source tree this package was compiled from,
// if it is still on disk ("" otherwise, for example under -trimpath).
func sourceRoot() string {
	_, file, _, ok := goruntime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "guest", "interp", "js", "main.go")); err != nil {
		return ""
	}
	return root
}

// goSourceHash hashes what a Go guest is built from: its package and the
// packages under it, the guest SDK and ABI, this package's build
// patches, and the module's go.mod and go.sum.
func goSourceHash(root, pkg string) (string, error) {
	// A process that runs command after command (the resident) looks at
	// the tree at most once per sourceRecheck: walking and stating its
	// files costs a millisecond or two, and a guest source edited under a
	// running resident is picked up a moment later.
	key := root + "\x00" + pkg
	if v, ok := recentHashes.Load(key); ok && time.Since(v.(recentHash).at) < sourceRecheck {
		return v.(recentHash).sum, nil
	}
	sum, err := goSourceHashNow(root, pkg)
	if err == nil {
		recentHashes.Store(key, recentHash{sum, time.Now()})
	}
	return sum, err
}

// sourceRecheck is how long goSourceHash trusts its last look at a tree.
const sourceRecheck = 2 * time.Second

// recentHashes are goSourceHash's last answers, by tree and package.
var recentHashes sync.Map

// A recentHash is a hash and when it was computed.
type recentHash struct {
	sum string
	at  time.Time
}

// guestSource reports whether a file name is part of a guest's build:
// Go and assembly files, and the JavaScript the JS guest embeds (its
// built-in modules), not tests.
func guestSource(name string) bool {
	if strings.HasSuffix(name, "_test.go") {
		return false
	}
	return strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s") || strings.HasSuffix(name, ".js")
}

// goSourceHashNow is goSourceHash without the recent answers.
func goSourceHashNow(root, pkg string) (string, error) {
	var files []string
	add := func(d string, recursive bool) error {
		return filepath.WalkDir(filepath.Join(root, filepath.FromSlash(d)), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if !recursive && p != filepath.Join(root, filepath.FromSlash(d)) {
					return filepath.SkipDir
				}
				return nil
			}
			if n := e.Name(); guestSource(n) {
				files = append(files, p)
			}
			return nil
		})
	}
	if err := add(pkg, true); err != nil {
		return "", err
	}
	// What every Go guest links besides its own package: the process
	// state of a run from a snapshot.
	if err := add("guest/interp/internal", true); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, d := range []string{"guest", "internal/abi"} {
		if err := add(d, false); err != nil {
			return "", err
		}
	}
	files = append(files, filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum"))
	if pkg == goGuests[Shell].pkg {
		// The shell's additions to mvdan.cc/sh and the hooks that call
		// them (shell*.go writes them into its build copy); the other
		// guests do not depend on them.
		hooks, _ := filepath.Glob(filepath.Join(root, "internal", "interp", "shell*.go"))
		patches, _ := filepath.Glob(filepath.Join(root, "internal", "interp", "shellpatch", "*", "*.go"))
		files = append(files, hooks...)
		files = append(files, patches...)
	}
	sort.Strings(files)
	// A process that runs many commands (the resident, a server) reads
	// and hashes the source again only when a file's size or time
	// changed: the stat of each costs far less than reading them all.
	var stamp strings.Builder
	stamp.WriteString(root + "\x00" + pkg)
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&stamp, "\x00%s %d %d", f, fi.Size(), fi.ModTime().UnixNano())
	}
	if h, ok := sourceHashes.Load(stamp.String()); ok {
		return h.(string), nil
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	sourceHashes.Store(stamp.String(), sum)
	return sum, nil
}

// sourceHashes are the hashes goSourceHash computed in this process, by
// the names, sizes and times of the files hashed.
var sourceHashes sync.Map
