package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/internal/testkit"
)

// hostcallModules caches the hostcall guest compiled by each Runtime.
var (
	hostcallMu      sync.Mutex
	hostcallModules = map[*Runtime]*CompiledModule{}
)

func hostcallModule(t testing.TB, r *Runtime) *CompiledModule {
	t.Helper()
	wasm := testkit.Wasm(t, "hostcall")
	hostcallMu.Lock()
	defer hostcallMu.Unlock()
	if m := hostcallModules[r]; m != nil {
		return m
	}
	m, err := r.Compile(context.Background(), wasm)
	require.NoError(t, err)
	hostcallModules[r] = m
	return m
}

type fakeTools struct{}

func (fakeTools) Call(_ context.Context, name string, input json.RawMessage) (*host.ToolResult, error) {
	return &host.ToolResult{Content: name + " got " + string(input)}, nil
}

type fakeMCP struct{}

func (fakeMCP) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*host.ToolResult, error) {
	return &host.ToolResult{Content: server + "/" + tool + " " + string(args)}, nil
}

// fakeSkills runs "self:hostcall" by running m again, nested in the
// running host call, at the depth it is given.
type fakeSkills struct {
	m        *CompiledModule
	maxDepth int
}

func (fakeSkills) Search(query string, limit int) ([]host.SkillInfo, error) {
	return []host.SkillInfo{{Name: "pdf", Description: "PDF tools for " + query}}, nil
}

func (fakeSkills) Activate(name string) (string, []string, error) {
	return "# " + name, []string{"SKILL.md", "references/a.md"}, nil
}

func (fakeSkills) ReadResource(skill, p string) ([]byte, error) {
	if p != "references/a.md" {
		return nil, fs.ErrNotExist
	}
	return []byte("resource " + p + " of " + skill), nil
}

func (s fakeSkills) RunScript(ctx context.Context, skill, script string, input json.RawMessage, depth int) (*host.ToolResult, error) {
	if skill != "self" {
		return &host.ToolResult{Content: fmt.Sprintf("ran %s:%s at depth %d with %s", skill, script, depth, input)}, nil
	}
	env := hostEnv(nil, nil)
	env.Input, env.Depth, env.MaxDepth = input, depth, s.maxDepth
	env.Skills = s
	var out bytes.Buffer
	env.Output = &out
	if _, err := s.m.Run(ctx, &RunConfig{Name: "self:hostcall", Host: env}); err != nil {
		return nil, err
	}
	return &host.ToolResult{Content: out.String()}, nil
}

// hostEnv returns the host.Env of the tests: tools echo, mcp gh/*, skills
// pdf and self granted.
func hostEnv(out *bytes.Buffer, audit audit.Auditor) *host.Env {
	e := &host.Env{
		Skill: "me", Script: "hostcall",
		Granted: capabilities.Set{Tools: []string{"echo"}, MCP: []string{"gh/*"}, Skills: []string{"pdf", "self"}},
		Services: host.Services{Auditor: audit, Tools: fakeTools{}, Skills: fakeSkills{}, MCP: fakeMCP{}, Fetch: func(_ context.Context, req json.RawMessage) (json.RawMessage, error) {
			var r abi.FetchRequest
			if err := json.Unmarshal(req, &r); err != nil {
				return nil, err
			}
			if strings.Contains(r.URL, "evil") {
				return nil, &capabilities.DeniedError{Kind: "net", Value: "evil.example:443"}
			}
			return json.Marshal(abi.FetchResponse{Status: 200, Body: []byte("fetched " + r.URL)})
		}},
	}
	if out != nil {
		e.Output = out
	}
	return e
}

// TestHostCallGuest runs the Go guest through every host function, on
// both engines.
func TestHostCallGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs the Go guest through every host function on both engines (2 s); the full suite runs it")
	}
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var out, stdout bytes.Buffer
		var events []audit.Event
		env := hostEnv(&out, audit.AuditorFunc(func(_ context.Context, e audit.Event) { events = append(events, e) }))
		env.Input = []byte(`{"mode":"all"}`)
		res, err := m.Run(context.Background(), &RunConfig{Host: env, Stdout: &stdout, Stderr: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.Zero(t, res.ExitCode, "exit code; output:\n%s", stdout.String())
		want := []string{
			`abi_version: 1`,
			`input: {"mode":"all"}`,
			`output: null`,
			`tool_call allowed: {"content":"echo got {\"x\":1}"}`,
			`tool_call denied: error denied: me:hostcall: tools rm_rf denied: not granted (add --allow-tools=rm_rf)`,
			`skills_search: [{"name":"pdf","description":"PDF tools for pdf"}]`,
			`skill_activate: ["# pdf",["SKILL.md","references/a.md"]]`,
			`skill_read: "resource references/a.md of me"`,
			`skill_read escape: error denied: me:hostcall: read skill/../other/SKILL.md denied`,
			`skill_run: {"content":"ran pdf:extract at depth 1 with {\"f\":\"a.pdf\"}"}`,
			`skill_run denied: error denied: me:hostcall: skills evil denied: not granted`,
			`mcp_call: {"content":"gh/issues {\"n\":2}"}`,
			`mcp_call denied: error denied: me:hostcall: mcp slack/post denied: not granted`,
			`http_fetch: {"status":200,"body":"ZmV0Y2hlZCBodHRwczovL2FwaS5leGFtcGxlLmNvbS94"}`,
			`http_fetch denied: error denied: me:hostcall: net evil.example:443 denied: not granted (add --allow-net=evil.example)`,
			`output too large: error too_large:`,
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		require.Len(t, lines, len(want), "lines of output:\n%s", stdout.String())
		for i, w := range want {
			assert.True(t, strings.HasPrefix(lines[i], w), "line %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
		assert.Equal(t, "hello from the guest", out.String(), "output")
		var denied []string
		for _, e := range events {
			if e.Decision == audit.Deny {
				denied = append(denied, e.Kind+" "+e.Value)
			}
		}
		wantDenied := []string{"tools rm_rf", "read skill/../other/SKILL.md", "skills evil", "mcp slack/post", "net evil.example:443"}
		assert.Equal(t, wantDenied, denied, "audited denials")
	})
}

// TestHostCallHostile: bad pointers, huge lengths and garbage give error
// responses or negative take codes, never a trap or a host panic.
func TestHostCallHostile(t *testing.T) {
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var stdout bytes.Buffer
		env := hostEnv(nil, nil)
		env.Input = []byte(`{"mode":"hostile"}`)
		res, err := m.Run(context.Background(), &RunConfig{Host: env, Stdout: &stdout, Stderr: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.Zero(t, res.ExitCode, "exit code; output:\n%s", stdout.String())
		for _, w := range []string{
			`out of bounds: {"ok":false,"error":{"code":"invalid","message":"log: the request (100 bytes at 0xfffffff0) is outside the module's memory`,
			`straddling: {"ok":false,"error":{"code":"too_large"`,
			`over MaxPayload: {"ok":false,"error":{"code":"too_large","message":"log: the request is 1048577 bytes, over the 1048576-byte limit"}}`,
			`garbage: {"ok":false,"error":{"code":"invalid","message":"log: malformed request: not valid JSON`,
			"take with nothing waiting: -1",
			"take into too small a buffer: -2",
			"take out of bounds: -3",
			"take after that: true",
		} {
			assert.Contains(t, stdout.String(), w, "output")
		}
	})
}

// TestHostCallRecursion: a guest that runs itself through skill_run is
// stopped at the depth limit, with runs nested inside host calls of the
// same Runtime.
func TestHostCallRecursion(t *testing.T) {
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var out, stdout bytes.Buffer
		env := hostEnv(&out, nil)
		env.Skills = fakeSkills{m: m}
		env.Input = []byte(`{"mode":"recurse"}`)
		res, err := m.Run(context.Background(), &RunConfig{Host: env, Stdout: &stdout, Stderr: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.Zero(t, res.ExitCode, "exit code; output:\n%s", stdout.String())
		want := strings.Repeat("nested(", host.DefaultMaxDepth) +
			"limit: denied: me:hostcall: skills self denied: skill runs nest at most 4 deep" +
			strings.Repeat(")", host.DefaultMaxDepth)
		assert.Equal(t, want, out.String(), "output")
	})
}

// TestHostCallNoHost: without RunConfig.Host every call fails with
// "unavailable", and the module still runs.
func TestHostCallNoHost(t *testing.T) {
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var stdout bytes.Buffer
		res, err := m.Run(context.Background(), &RunConfig{Stdout: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.EqualValues(t, 1, res.ExitCode, "exit code; output:\n%s", stdout.String())
		require.Contains(t, stdout.String(), "input error: unavailable: this run has no host functions", "output")
	})
}

// TestCompileHostImports: imports of the skillrun module are checked
// against the ABI.
func TestCompileHostImports(t *testing.T) {
	r := newTestRuntime(t)
	for _, tt := range []struct {
		name, wat string
		want      string
	}{
		{"unknown function", importWasm("skillrun", "launch_missiles", 2, 1), "the module imports function skillrun.launch_missiles, which is not a skillrun host function (ABI version 1; see ABI.md)"},
		{"wrong signature", importWasm("skillrun", "log", 1, 1), "the module imports function skillrun.log as func(i32) (i32), but its signature is func(i32, i32) (i32)"},
		{"right", importWasm("skillrun", "tool_call", 2, 1), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Compile(context.Background(), []byte(tt.wat))
			if tt.want == "" {
				assert.NoError(t, err, "Compile")
			} else {
				assert.ErrorContains(t, err, tt.want, "Compile")
			}
		})
	}
}

func newTestRuntime(t *testing.T) *Runtime {
	t.Helper()
	r, err := New(context.Background(), &Options{NoCache: true, Interpreter: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// importWasm returns a module that imports module.name as a function of
// params i32 parameters and results i32 results, and exports an empty
// _start.
func importWasm(module, name string, params, results int) string {
	leb := func(n int) string { return string([]byte{byte(n)}) } // all sizes here are < 128
	vec := func(items ...string) string { return leb(len(items)) + strings.Join(items, "") }
	section := func(id byte, body string) string { return string([]byte{id}) + leb(len(body)) + body }
	str := func(s string) string { return leb(len(s)) + s }
	sig := func(p, r int) string {
		return "\x60" + leb(p) + strings.Repeat("\x7f", p) + leb(r) + strings.Repeat("\x7f", r)
	}
	return "\x00asm\x01\x00\x00\x00" +
		section(1, vec(sig(params, results), sig(0, 0))) +
		section(2, vec(str(module)+str(name)+"\x00\x00")) +
		section(3, vec("\x01")) +
		section(7, vec(str("_start")+"\x00\x01")) +
		section(10, vec(leb(2)+"\x00\x0b"))
}

// TestCHostCallGuest: a C guest using guest/include/skillrun.h echoes its
// input and is denied a tool.
func TestCHostCallGuest(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("clang is required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		t.Skip("clang not installed")
	}
	out := filepath.Join(t.TempDir(), "hostcall.wasm")
	cmd := exec.Command("clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2",
		"-I", filepath.Join(testkit.ModuleRoot(), "guest", "include"), "-o", out, filepath.Join(testkit.Dir("chostcall"), "hostcall.c"))
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%v:\n%s", cmd, msg)
	wasm, err := os.ReadFile(out)
	require.NoError(t, err)
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m, err := te.r.Compile(context.Background(), wasm)
		require.NoError(t, err)
		defer m.Close(context.Background())
		var output, stdout bytes.Buffer
		env := hostEnv(&output, nil)
		env.Input = []byte(`{"q":"hi"}`)
		res, err := m.Run(context.Background(), &RunConfig{Host: env, Stdout: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.Zero(t, res.ExitCode, "exit code; output:\n%s", stdout.String())
		assert.Equal(t, `{"ok":true,"result":{"q":"hi"}}`, output.String(), "output")
		assert.Contains(t, stdout.String(), `{"ok":false,"error":{"code":"denied","message":"me:hostcall: tools rm_rf denied: not granted (add --allow-tools=rm_rf)"}}`, "stdout")
		// Every host function from C: the allowed ones succeed, the
		// denied and malformed ones come back as error envelopes.
		lines := map[string]string{}
		for _, l := range strings.Split(stdout.String(), "\n") {
			if fn, rest, ok := strings.Cut(l, ": "); ok {
				lines[fn] = rest
			}
		}
		for fn, want := range map[string]string{
			"log":               `{"ok":true`,
			"tool_call":         `{"ok":true`,
			"skills_search":     `{"ok":true`,
			"skill_activate":    `{"ok":true`,
			"skill_read":        `"code":"denied"`,
			"skill_run":         `"code":"denied"`,
			"mcp_call":          `{"ok":true`,
			"mcp_call_denied":   `"code":"denied"`,
			"http_fetch":        `{"ok":true`,
			"http_fetch_denied": `"code":"denied"`,
			"garbage":           `"code":"invalid"`,
			"out_of_bounds":     `"code":"invalid"`,
		} {
			assert.Contains(t, lines[fn], want, fn)
		}
	})
}

// BenchmarkHostCall measures a guest→host call (a raw "input" call and
// its take, from a Go guest's loop) beside a direct Go call of
// host.Env.Dispatch, and reports the ratio.
func BenchmarkHostCall(b *testing.B) {
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			te := sharedEnv(b, eng.interpreter)
			m := hostcallModule(b, te.r)
			env := hostEnv(nil, nil)
			run := func(n int) time.Duration {
				env.Input = fmt.Appendf(nil, `{"mode":"bench","n":%d}`, n)
				start := time.Now()
				res, err := m.Run(context.Background(), &RunConfig{Host: env})
				require.NoError(b, err)
				require.Zero(b, res.ExitCode, "exit code")
				return time.Since(start)
			}
			base := run(0) // instantiation and startup, subtracted
			b.ResetTimer()
			guest := run(b.N) - base
			b.StopTimer()

			ctx := context.Background()
			const direct = 100000
			start := time.Now()
			for range direct {
				_ = env.Dispatch(ctx, abi.FuncInput, nil)
			}
			directNS := float64(time.Since(start).Nanoseconds()) / direct
			guestNS := float64(max(guest, 0).Nanoseconds()) / float64(b.N)
			b.ReportMetric(guestNS, "guest-ns/call")
			b.ReportMetric(directNS, "direct-ns/call")
			b.ReportMetric(guestNS/directNS, "guest/direct")
		})
	}
}

// panicky is a HostDispatcher with a bug.
type panicky struct{}

func (panicky) Dispatch(context.Context, string, []byte) []byte { panic("oops") }

// TestHostCallDispatcherPanics: a panicking dispatcher gives the guest an
// internal error, not a crash.
func TestHostCallDispatcherPanics(t *testing.T) {
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var stdout bytes.Buffer
		res, err := m.Run(context.Background(), &RunConfig{Host: panicky{}, Stdout: &stdout})
		require.NoError(t, err, "output:\n%s", stdout.String())
		require.EqualValues(t, 1, res.ExitCode, "exit code; output:\n%s", stdout.String())
		require.Contains(t, stdout.String(), "input error: internal: input: the host failed: oops", "output")
	})
}

// TestHostCallConcurrent: runs of one module with their own Envs overlap
// without seeing each other's input or output.
func TestHostCallConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: overlaps many runs with their own Envs (1.7 s); the full suite runs it")
	}
	forEachEngine(t, func(t *testing.T, te *testEnv) {
		m := hostcallModule(t, te.r)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				var out bytes.Buffer
				env := hostEnv(&out, nil)
				env.MaxDepth = 1 + i%3
				env.Skills = fakeSkills{m: m, maxDepth: env.MaxDepth}
				env.Input = []byte(`{"mode":"recurse"}`)
				if _, err := m.Run(context.Background(), &RunConfig{Host: env}); !assert.NoError(t, err) {
					return
				}
				want := strings.Repeat("nested(", env.MaxDepth) + fmt.Sprintf("limit: denied: me:hostcall: skills self denied: skill runs nest at most %d deep", env.MaxDepth) + strings.Repeat(")", env.MaxDepth)
				assert.Equal(t, want, out.String(), "run %d: output", i)
			})
		}
		wg.Wait()
	})
}
