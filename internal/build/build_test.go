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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))))
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
	if testing.Short() {
		t.Skip("slow: builds a Go, a C and a Rust skill and runs each (3 s); the full suite runs it")
	}
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
			require.NoError(t, err, "Script")
			data, err := os.ReadFile(filepath.Join(dir, "scripts", "hello.wasm"))
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(data, []byte("\x00asm")), "output starts %q, want a WebAssembly module", data[:min(len(data), 8)])
			// The module runs, sandboxed, and says what its source says.
			want := "hello from " + map[string]string{"go": "Go", "c": "C", "rust": "Rust"}[tc.lang] + "\n"
			assert.Equal(t, want, runModule(t, data), "the built module's output")
			// Nothing but the module is left in its folder.
			entries, err := os.ReadDir(filepath.Join(dir, "scripts"))
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.Equal(t, []string{"hello.wasm"}, names, "scripts/ holds")
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
	require.NoError(t, err)
	defer r.Close(ctx)
	m, err := r.Compile(ctx, wasm)
	require.NoError(t, err, "compiling the built module")
	var stdout, stderr bytes.Buffer
	res, err := m.Run(ctx, &sandbox.RunConfig{Name: "hello", Stdout: &stdout, Stderr: &stderr})
	require.NoError(t, err, "running the built module: stderr %q", stderr.String())
	require.Zero(t, res.ExitCode, "running the built module: exit code; stderr %q", stderr.String())
	return stdout.String()
}

// TestOutputSymlinkReplaced: the module replaces a symlink planted at its
// path instead of writing through it, so a build writes no file of the
// skill but the module.
func TestOutputSymlinkReplaced(t *testing.T) {
	requireTool(t, "go")
	dir := copySkill(t, "go")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	victim := filepath.Join(dir, "src", "main.go")
	before, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.NoError(t, os.Symlink("../src/main.go", filepath.Join(dir, "scripts", "hello.wasm")))
	err = Script(t.Context(), dir, "hello:go", Target{Lang: "go", Dir: "src", Output: "scripts/hello.wasm"}, nil)
	require.NoError(t, err, "Script")
	after, _ := os.ReadFile(victim)
	assert.Equal(t, before, after, "the build wrote through the symlink into src/main.go")
	fi, err := os.Lstat(filepath.Join(dir, "scripts", "hello.wasm"))
	if assert.NoError(t, err, "scripts/hello.wasm") {
		assert.True(t, fi.Mode().IsRegular(), "scripts/hello.wasm is %v; want the module as a regular file", fi.Mode())
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
			require.ErrorIs(t, err, ErrToolchainMissing)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w, "the error does not mention it")
			}
			assert.True(t, strings.HasPrefix(err.Error(), "hello:"+tc.lang+": "), "error %q does not start with the script's name", err)
			_, err = os.Stat(filepath.Join(dir, "scripts", "hello.wasm"))
			assert.ErrorIs(t, err, os.ErrNotExist, "module written despite the error")
		})
	}
}

// TestConfined checks that sources and output stay inside the skill
// folder, lexically and through symlinks. Nothing reaches a toolchain.
func TestConfined(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(outside, 0o755))
	dir := filepath.Join(base, "skill")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "go"))))
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
			require.ErrorContains(t, err, tc.want)
			assert.NotErrorIs(t, err, ErrToolchainMissing)
		})
	}
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "something was written outside the skill")
}

// TestBuildFailure checks that a compile error is reported with the
// compiler's message and leaves the previous module in place.
func TestBuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a failing build in each language (1.3 s); the full suite runs it")
	}
	for _, tc := range []struct {
		lang, file, src, want string
	}{
		{"go", "main.go", "package main\n\nfunc main() { undefinedThing() }\n", "undefined: undefinedThing"},
		{"c", "hello.c", "int main(void) { return undefined_thing; }\n", "undefined_thing"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			requireTool(t, map[string]string{"go": "go", "c": "clang"}[tc.lang])
			dir := copySkill(t, tc.lang)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "src", tc.file), []byte(tc.src), 0o644))
			old := filepath.Join(dir, "scripts", "hello.wasm")
			require.NoError(t, os.MkdirAll(filepath.Dir(old), 0o755))
			require.NoError(t, os.WriteFile(old, []byte("\x00asm previous"), 0o644))
			err := Script(t.Context(), dir, "hello:"+tc.lang, Target{Lang: tc.lang, Dir: "src", Output: "scripts/hello.wasm"}, nil)
			if errors.Is(err, ErrToolchainMissing) {
				requireToolchain(t, err)
			}
			require.Error(t, err, "Script succeeded on a broken source")
			assert.ErrorContains(t, err, tc.want, "the error does not quote the compiler's message")
			data, _ := os.ReadFile(old)
			assert.True(t, string(data) == "\x00asm previous", "previous module replaced by %q", data[:min(len(data), 16)])
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
	require.ErrorIs(t, err, context.Canceled)
}

// TestCHeaders: headers passed in Options are on a C script's include path
// (how skillrun.h reaches C skills), and a header name cannot be a path.
func TestCHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: three confined C builds (3 s); the full suite runs it")
	}
	requireTool(t, "clang")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	code := "#include \"answer.h\"\nint main(void) { return ANSWER - 42; }\n"
	require.NoError(t, os.WriteFile(filepath.Join(src, "main.c"), []byte(code), 0o644))
	target := Target{Lang: "c", Dir: "src", Output: "scripts/a.wasm"}
	err := Script(t.Context(), dir, "a:c", target, &Options{})
	if errors.Is(err, ErrToolchainMissing) {
		requireToolchain(t, err)
	}
	require.ErrorContains(t, err, "answer.h", "without the header: want a missing answer.h")
	err = Script(t.Context(), dir, "a:c", target, &Options{CHeaders: map[string][]byte{"answer.h": []byte("#define ANSWER 42\n")}})
	require.NoError(t, err, "with the header")
	err = Script(t.Context(), dir, "a:c", target, &Options{CHeaders: map[string][]byte{"../answer.h": []byte("")}})
	require.ErrorContains(t, err, "plain file name", "header path")
}
