package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillrun/skillrun/internal/llmfake"
)

// TestMain lets testscript run this binary as the skillrun command in
// scripts, in a real subprocess with real exit codes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"skillrun":    func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"hostile-mcp": hostileMCPMain,
		// The other local user of TestMCPHTTPOtherUser.
		"mcp-http-attacker": mcpHTTPAttackerMain,
	})
}

// TestScripts runs testdata/script/*.txtar. Each script gets $EXAMPLES
// (the repository's examples/).
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	hostile, err := filepath.Abs("../../internal/testkit/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	// Scripts that build guests reuse the real Go caches: $HOME is
	// replaced below, and a cold cache would rebuild the world.
	goEnv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		goEnv[k] = strings.TrimSpace(string(out))
	}
	// One compilation cache for every script (the sandbox keeps it under the
	// user cache dir): $HOME is per script, and compiling the same Go
	// guests cold in every `skillrun run` would make the scripts slow.
	cache := t.TempDir()
	dir, files := "testdata/script", []string(nil)
	if testing.Short() {
		// The quick tier: the scripts that take about a second or so
		// (the others build guests, run examples and kill runs).
		dir = ""
		for _, name := range []string{"validate_mdskill", "attack_symlink", "attack_devnull_prompt", "run_tskill", "show",
			"search", "attack_terminal", "catalog", "validate", "ownfiles", "attack_limits", "attack_identity", "add"} {
			files = append(files, filepath.Join("testdata/script", name+".txtar"))
		}
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		Files:               files,
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			// REQUIRE_TOOLCHAINS=1 (CI) turns a missing toolchain into a
			// failure instead of a skip: the script runs and fails.
			required := os.Getenv("REQUIRE_TOOLCHAINS") != ""
			switch cond {
			case "toolchains": // clang for wasm32-wasi
				_, err := exec.LookPath("clang")
				return err == nil || required, nil
			case "rust": // a rustc with a WASI standard library
				return required || rustWASI(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"llmfake":     cmdLLMFake,
			"llmrequests": cmdLLMRequests,
			"llmwait":     cmdLLMWait,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("HOSTILE", hostile)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("XDG_CACHE_HOME", cache)
			return nil
		},
	})
}

// fakes are the fake model servers started by scripts, by script.
var fakes sync.Map // *testscript.TestScript -> *llmfake.Server

// cmdLLMFake starts a fake model server in the test process:
//
//	llmfake anthropic|openai REPLIES.json [KEY]
//
// REPLIES.json is a JSON list of llmfake.Reply. The server's base URL is
// put in $LLM_URL; with KEY the server requires that API key. It stops
// when the script ends.
func cmdLLMFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: llmfake anthropic|openai REPLIES.json [KEY]")
	}
	var replies []llmfake.Reply
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &replies))
	var srv *llmfake.Server
	switch args[0] {
	case "anthropic":
		srv = llmfake.NewAnthropic(replies...)
	case "openai":
		srv = llmfake.NewOpenAI(replies...)
	default:
		ts.Fatalf("llmfake: unknown API %q", args[0])
	}
	if len(args) == 3 {
		srv.RequireKey(args[2])
	}
	fakes.Store(ts, srv)
	ts.Defer(srv.Close)
	ts.Setenv("LLM_URL", srv.URL)
}

// cmdLLMRequests writes the bodies of the requests the script's fake
// server received to FILE, one JSON object a line, for grep.
func cmdLLMRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: llmrequests FILE")
	}
	v, ok := fakes.Load(ts)
	if !ok {
		ts.Fatalf("llmrequests: no llmfake server started")
	}
	var b strings.Builder
	for _, r := range v.(*llmfake.Server).Requests() {
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// cmdLLMWait waits until the script's fake server has received N requests
// (at most a minute), so a script can signal a session known to be
// waiting on the model.
func cmdLLMWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: llmwait N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	v, ok := fakes.Load(ts)
	if !ok {
		ts.Fatalf("llmwait: no llmfake server started")
	}
	for deadline := time.Now().Add(time.Minute); v.(*llmfake.Server).Count() < n; {
		if time.Now().After(deadline) {
			ts.Fatalf("llmwait: %d requests after a minute, want %d", v.(*llmfake.Server).Count(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rustWASI reports whether a rustc here can build for WASI: the one in
// PATH (rustup with the target added) or Debian's.
func rustWASI() bool {
	for _, rustc := range []string{"rustc", "/usr/bin/rustc"} {
		for _, target := range []string{"wasm32-wasip1", "wasm32-wasi"} {
			out, err := exec.Command(rustc, "--print", "target-libdir", "--target", target).Output()
			if err != nil {
				continue
			}
			if std, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "libstd-*.rlib")); len(std) > 0 {
				return true
			}
		}
	}
	return false
}
