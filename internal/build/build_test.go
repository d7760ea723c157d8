package build

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/sandbox"
)

// TestMain lets this test binary confine toolchains as skillrun does:
// Script re-executes os.Executable, which here is the test binary.
func TestMain(m *testing.M) {
	SandboxMain()
	os.Exit(m.Run())
}

// requireTool skips the test when the named tool is not in PATH, or fails
// it when REQUIRE_TOOLCHAINS=1 (CI installs every toolchain it needs).
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		requireToolchain(t, err)
	}
}

// requireToolchain skips (or, with REQUIRE_TOOLCHAINS=1, fails) the test
// because a toolchain is missing, as err says.
func requireToolchain(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
		t.Fatalf("REQUIRE_TOOLCHAINS=1 but a toolchain is missing: %v", err)
	}
	t.Skipf("toolchain missing (set REQUIRE_TOOLCHAINS=1 to fail instead): %v", err)
}

// copySkill copies testdata/name into a fresh folder and returns it.
func copySkill(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testWriter sends toolchain output to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestScript(t *testing.T) {
	for _, tc := range []struct {
		lang  string
		tools []string
	}{
		{lang: "go", tools: []string{"go"}},
		{lang: "c", tools: []string{"clang", "wasm-ld"}},
		// CI installs Debian's rustc and libstd-rust-dev-wasm32.
		{lang: "rust", tools: []string{"rustc"}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			for _, tool := range tc.tools {
				requireTool(t, tool)
			}
			dir := copySkill(t, tc.lang)
			target := Target{Lang: tc.lang, Dir: "src", Output: "scripts/hello.wasm"}
			err := Script(t.Context(), dir, "hello:"+tc.lang, target, &Options{Stdout: testWriter{t}, Stderr: testWriter{t}})
			if errors.Is(err, ErrToolchainMissing) {
				requireToolchain(t, err)
			}
			if err != nil {
				t.Fatalf("Script: %v", err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "scripts", "hello.wasm"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("\x00asm")) {
				t.Fatalf("output starts %q, want a WebAssembly module", data[:min(len(data), 8)])
			}
			// The module runs, sandboxed, and says what its source says.
			if got, want := runModule(t, data), "hello from "+map[string]string{"go": "Go", "c": "C", "rust": "Rust"}[tc.lang]+"\n"; got != want {
				t.Errorf("the built module printed %q, want %q", got, want)
			}
			// Nothing but the module is left in its folder.
			entries, err := os.ReadDir(filepath.Join(dir, "scripts"))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("scripts/ holds %v, want only hello.wasm", names)
			}
		})
	}
}

// runModule runs a WASI command module with no grants and returns its
// stdout; it fails the test if the run fails or exits non-zero.
func runModule(t *testing.T, wasm []byte) string {
	t.Helper()
	ctx := t.Context()
	// The interpreter: compiling a Go module to machine code takes tens
	// of seconds under the race detector, and the build is under test
	// here, not the engine.
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true, Interpreter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	m, err := r.Compile(ctx, wasm)
	if err != nil {
		t.Fatalf("compiling the built module: %v", err)
	}
	var stdout, stderr bytes.Buffer
	res, err := m.Run(ctx, &sandbox.RunConfig{Name: "hello", Stdout: &stdout, Stderr: &stderr})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("running the built module: %v (exit %d, stderr %q)", err, res.ExitCode, stderr.String())
	}
	return stdout.String()
}

// TestOutputSymlinkReplaced: the module replaces a symlink planted at its
// path instead of writing through it, so a build writes no file of the
// skill but the module.
func TestOutputSymlinkReplaced(t *testing.T) {
	requireTool(t, "go")
	dir := copySkill(t, "go")
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "src", "main.go")
	before, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../src/main.go", filepath.Join(dir, "scripts", "hello.wasm")); err != nil {
		t.Fatal(err)
	}
	err = Script(t.Context(), dir, "hello:go", Target{Lang: "go", Dir: "src", Output: "scripts/hello.wasm"}, nil)
	if err != nil {
		t.Fatalf("Script: %v", err)
	}
	if after, _ := os.ReadFile(victim); !bytes.Equal(after, before) {
		t.Errorf("the build wrote through the symlink into src/main.go")
	}
	fi, err := os.Lstat(filepath.Join(dir, "scripts", "hello.wasm"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("scripts/hello.wasm: %v, %v; want the module as a regular file", fi, err)
	}
}

// TestToolchainMissing runs with an empty PATH: every language reports
// ErrToolchainMissing naming the tool and what to install.
func TestToolchainMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"go", []string{"go command", "golang-go"}},
		{"c", []string{"clang", "clang, lld, wasi-libc, libclang-rt-14-dev-wasm32"}},
		{"rust", []string{"rustc", "libstd-rust-dev-wasm32"}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			dir := copySkill(t, tc.lang)
			err := Script(t.Context(), dir, "hello:"+tc.lang, Target{Lang: tc.lang, Dir: "src", Output: "scripts/hello.wasm"}, nil)
			if !errors.Is(err, ErrToolchainMissing) {
				t.Fatalf("err = %v, want ErrToolchainMissing", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "hello:"+tc.lang+": ") {
				t.Errorf("error %q does not start with the script's name", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "scripts", "hello.wasm")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("module written despite the error (stat: %v)", err)
			}
		})
	}
}

// TestConfined checks that sources and output stay inside the skill
// folder, lexically and through symlinks. Nothing reaches a toolchain.
func TestConfined(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "skill")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "go"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	for _, tc := range []struct {
		name   string
		target Target
		want   string
	}{
		{"dir dotdot", Target{Lang: "go", Dir: "../outside", Output: "scripts/x.wasm"}, `build.dir "../outside" leads outside`},
		{"dir absolute", Target{Lang: "go", Dir: outside, Output: "scripts/x.wasm"}, "is absolute"},
		{"dir unclean", Target{Lang: "go", Dir: "src/../src", Output: "scripts/x.wasm"}, "not a clean path"},
		{"dir symlink", Target{Lang: "go", Dir: "escape", Output: "scripts/x.wasm"}, "leads outside the skill folder"},
		{"dir missing", Target{Lang: "go", Dir: "nowhere", Output: "scripts/x.wasm"}, `build.dir "nowhere" does not exist`},
		{"dir is file", Target{Lang: "go", Dir: "src/main.go", Output: "scripts/x.wasm"}, "is not a folder"},
		{"output dotdot", Target{Lang: "go", Dir: "src", Output: "../outside/x.wasm"}, "leads outside"},
		{"output absolute", Target{Lang: "go", Dir: "src", Output: "/tmp/x.wasm"}, "is absolute"},
		{"output skill folder", Target{Lang: "go", Dir: "src", Output: "."}, "names the skill folder"},
		{"output symlink", Target{Lang: "go", Dir: "src", Output: "escape/x.wasm"}, "leads outside the skill folder"},
		{"output symlink deeper", Target{Lang: "go", Dir: "src", Output: "escape/sub/x.wasm"}, "leads outside the skill folder"},
		{"output under file", Target{Lang: "go", Dir: "src", Output: "src/main.go/x.wasm"}, "is not a folder"},
		{"output is folder", Target{Lang: "go", Dir: "src", Output: "src"}, "is a folder"},
		{"lang", Target{Lang: "cobol", Dir: "src", Output: "scripts/x.wasm"}, `build.lang "cobol" is not supported; use one of go, c, rust`},
		{"lang empty", Target{Lang: "", Dir: "src", Output: "scripts/x.wasm"}, "is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Script(t.Context(), dir, "s:x", tc.target, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if errors.Is(err, ErrToolchainMissing) {
				t.Errorf("err matches ErrToolchainMissing")
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("something was written outside the skill: %v", entries)
	}
}

// TestBuildFailure checks that a compile error is reported with the
// compiler's message and leaves the previous module in place.
func TestBuildFailure(t *testing.T) {
	for _, tc := range []struct {
		lang, file, src, want string
	}{
		{"go", "main.go", "package main\n\nfunc main() { undefinedThing() }\n", "undefined: undefinedThing"},
		{"c", "hello.c", "int main(void) { return undefined_thing; }\n", "undefined_thing"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			requireTool(t, map[string]string{"go": "go", "c": "clang"}[tc.lang])
			dir := copySkill(t, tc.lang)
			if err := os.WriteFile(filepath.Join(dir, "src", tc.file), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			old := filepath.Join(dir, "scripts", "hello.wasm")
			if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(old, []byte("\x00asm previous"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Script(t.Context(), dir, "hello:"+tc.lang, Target{Lang: tc.lang, Dir: "src", Output: "scripts/hello.wasm"}, nil)
			if errors.Is(err, ErrToolchainMissing) {
				requireToolchain(t, err)
			}
			if err == nil {
				t.Fatal("Script succeeded on a broken source")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not quote the compiler's message %q", err, tc.want)
			}
			if data, _ := os.ReadFile(old); string(data) != "\x00asm previous" {
				t.Errorf("previous module replaced by %q", data[:min(len(data), 16)])
			}
		})
	}
}

// TestCancel checks that a cancelled context stops the build.
func TestCancel(t *testing.T) {
	requireTool(t, "go")
	dir := copySkill(t, "go")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := Script(ctx, dir, "hello:go", Target{Lang: "go", Dir: "src", Output: "scripts/hello.wasm"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestCHeaders: headers passed in Options are on a C script's include path
// (how skillrun.h reaches C skills), and a header name cannot be a path.
func TestCHeaders(t *testing.T) {
	requireTool(t, "clang")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	code := "#include \"answer.h\"\nint main(void) { return ANSWER - 42; }\n"
	if err := os.WriteFile(filepath.Join(src, "main.c"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	target := Target{Lang: "c", Dir: "src", Output: "scripts/a.wasm"}
	err := Script(t.Context(), dir, "a:c", target, &Options{})
	if errors.Is(err, ErrToolchainMissing) {
		requireToolchain(t, err)
	}
	if err == nil || !strings.Contains(err.Error(), "answer.h") {
		t.Fatalf("without the header: %v, want a missing answer.h", err)
	}
	err = Script(t.Context(), dir, "a:c", target, &Options{CHeaders: map[string][]byte{"answer.h": []byte("#define ANSWER 42\n")}})
	if err != nil {
		t.Fatalf("with the header: %v", err)
	}
	err = Script(t.Context(), dir, "a:c", target, &Options{CHeaders: map[string][]byte{"../answer.h": []byte("")}})
	if err == nil || !strings.Contains(err.Error(), "plain file name") {
		t.Fatalf("header path: %v", err)
	}
}
