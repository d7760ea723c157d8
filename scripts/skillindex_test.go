package scripts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeSkill writes a skill named name into a new folder: SKILL.md,
// skill.toml from toml (if not empty), and files (path -> content), and
// loads it.
func writeSkill(t *testing.T, name, toml string, files map[string][]byte) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	md := "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\n# " + name + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	if toml != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.toml"), []byte(toml), 0o644))
	}
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, data, 0o644))
	}
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	return s
}

// hostcallSkill is a skill whose script "hostcall" is the hostcall guest.
func hostcallSkill(t *testing.T, name, caps string, extra map[string][]byte) *skills.Skill {
	t.Helper()
	files := map[string][]byte{"scripts/hostcall.wasm": testkit.Wasm(t, "hostcall")}
	for k, v := range extra {
		files[k] = v
	}
	return writeSkill(t, name, "version = 1\n[capabilities]\n"+caps+"\n[scripts.hostcall]\nmodule = \"scripts/hostcall.wasm\"\n", files)
}

// echoTool is a core-source tool "echo" that reads hello.txt with the
// core tool workspace_read of reg.
type echoTool struct{ reg *host.Registry }

func (echoTool) Definition() host.ToolDef {
	return host.ToolDef{Name: "echo", Description: "test", Source: host.SourceCore}
}

func (e echoTool) Call(ctx context.Context, _ json.RawMessage) (*host.ToolResult, error) {
	return e.reg.Call(ctx, "workspace_read", json.RawMessage(`{"path":"hello.txt"}`))
}

// coreRegistry returns the core tools over ws under eff, and echo.
func coreRegistry(t *testing.T, ws string, eff capabilities.Set) *host.Registry {
	t.Helper()
	reg := host.NewRegistry()
	tools, err := host.CoreTools(ws, eff)
	require.NoError(t, err)
	for _, tool := range append(tools, echoTool{reg}) {
		require.NoError(t, reg.Add(tool))
	}
	return reg
}

// stepLines returns the first line of each step the hostcall guest
// printed ("step: outcome"), by step.
func stepLines(s string) map[string]string {
	m := map[string]string{}
	for l := range strings.SplitSeq(s, "\n") {
		if step, _, ok := strings.Cut(l, ": "); ok {
			if _, seen := m[step]; !seen {
				m[step] = l
			}
		}
	}
	return m
}

// TestRunScriptHostFunctions runs the hostcall guest through RunScript:
// its host functions see the effective grant, the core tools, a
// SkillIndex and, by default, a fetcher that allows only granted hosts.
func TestRunScriptHostFunctions(t *testing.T) {
	r := sharedRunner(t)
	me := hostcallSkill(t, "me", `read = ["workspace"]`+"\n"+`tools = ["echo"]`+"\n"+`skills = ["pdf"]`,
		map[string][]byte{"references/a.md": []byte("my own reference")})
	pdf := writeSkill(t, "pdf", "", map[string][]byte{"references/a.md": []byte("pdf reference")})
	ix := NewSkillIndex(r, []*skills.Skill{me, pdf}, nil)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello from the workspace"), 0o644))
	_, declared, err := declaredOf(me, "hostcall")
	require.NoError(t, err)

	run := func(t *testing.T, granted capabilities.Set) (map[string]string, string, []audit.Event) {
		t.Helper()
		var stdout, out strings.Builder
		var mu sync.Mutex
		var events []audit.Event
		res, err := r.RunScript(context.Background(), me, "hostcall", &ScriptRun{
			Services: host.Services{Workspace: ws, Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, e)
			}), Tools: coreRegistry(t, ws, capabilities.Effective(declared, granted)), Skills: ix}, Stdout: &stdout, Stderr: &stdout, Output: &out,
			Granted: granted, Input: []byte(`{"mode":"all"}`),
		})
		require.NoError(t, err)
		require.Equal(t, uint32(0), res.ExitCode, stdout.String())
		return stepLines(stdout.String()), out.String(), events
	}

	t.Run("granted", func(t *testing.T) {
		steps, out, events := run(t, grant(t, declared))
		assert.Equal(t, "hello from the guest", out)
		assert.Equal(t, `input: {"mode":"all"}`, steps["input"])
		assert.Equal(t, `tool_call allowed: {"content":"hello from the workspace"}`, steps["tool_call allowed"])
		assert.Equal(t, `tool_call denied: error denied: me:hostcall: tools rm_rf denied: not granted (add --allow-tools=rm_rf)`, steps["tool_call denied"])
		assert.Equal(t, `skills_search: [{"name":"pdf","description":"The pdf skill, for tests."}]`, steps["skills_search"])
		assert.Equal(t, `skill_activate: ["# pdf\n",["SKILL.md","references/a.md"]]`, steps["skill_activate"])
		assert.Equal(t, `skill_read: "my own reference"`, steps["skill_read"])
		assert.Contains(t, steps["skill_run"], `skill_run: error not_found: skill_run: not runnable: skill pdf has no script "extract" (no [scripts] in skill.toml`)
		assert.Contains(t, steps["skill_run denied"], `error denied: me:hostcall: skills evil denied: not granted`)
		assert.Contains(t, steps["mcp_call"], `error denied:`)
		// No net grant: the default fetcher refuses before any connection.
		assert.Equal(t, `http_fetch: error denied: me:hostcall: net api.example.com:443 denied: not granted (add --allow-net=api.example.com)`, steps["http_fetch"])
		var kinds []string
		for _, e := range events {
			assert.Equal(t, "me", e.Skill)
			kinds = append(kinds, e.Kind+":"+e.Value+":"+string(e.Decision))
		}
		assert.Contains(t, kinds, "tools:echo:allow")
		assert.Contains(t, kinds, "tools:rm_rf:deny")
	})

	t.Run("core tool denied", func(t *testing.T) {
		// echo is granted, but the workspace read behind it is not.
		steps, _, _ := run(t, grant(t, declared, capabilities.FlagGrant{Kind: "tools"}))
		assert.Contains(t, steps["tool_call allowed"], `"is_error":true`)
		assert.Contains(t, steps["tool_call allowed"], `add --allow-read=workspace`)
	})

	t.Run("tool not granted", func(t *testing.T) {
		steps, _, _ := run(t, grant(t, declared, capabilities.FlagGrant{Kind: "read"}))
		assert.Equal(t, `tool_call allowed: error denied: me:hostcall: tools echo denied: not granted (add --allow-tools=echo)`, steps["tool_call allowed"])
	})
}

// TestSkillIndexRecursion: a script that runs itself through the
// SkillIndex is stopped at the depth limit; each level's output is the
// content of its caller's result.
func TestSkillIndexRecursion(t *testing.T) {
	r := sharedRunner(t)
	self := hostcallSkill(t, "self", `skills = ["self"]`, nil)
	granted := capabilities.Set{Skills: []string{"self"}}
	ix := NewSkillIndex(r, []*skills.Skill{self}, func(name string) capabilities.Set {
		if name == "self" {
			return granted
		}
		return capabilities.Set{}
	})
	var stdout, out strings.Builder
	res, err := r.RunScript(context.Background(), self, "hostcall", &ScriptRun{
		Stdout: &stdout, Stderr: &stdout, Output: &out, Granted: granted,
		Input: []byte(`{"mode":"recurse"}`), Services: host.Services{Skills: ix},
	})
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, stdout.String())
	want := strings.Repeat("nested(", host.DefaultMaxDepth) +
		"limit: denied: self:hostcall: skills self denied: skill runs nest at most 4 deep" +
		strings.Repeat(")", host.DefaultMaxDepth)
	assert.Equal(t, want, out.String())

	// Nested runs get what granted gives their skill: nothing here.
	ix2 := NewSkillIndex(r, []*skills.Skill{self}, nil)
	out.Reset()
	_, err = r.RunScript(context.Background(), self, "hostcall", &ScriptRun{
		Stdout: &stdout, Stderr: &stdout, Output: &out, Granted: granted,
		Input: []byte(`{"mode":"recurse"}`), Services: host.Services{Skills: ix2},
	})
	require.NoError(t, err)
	assert.Equal(t, "nested(limit: denied: self:hostcall: skills self denied: not granted (add --allow-skills=self))", out.String())
}

func TestSkillIndexDisclosure(t *testing.T) {
	r := sharedRunner(t)
	a := writeSkill(t, "alpha", "", map[string][]byte{"references/x.md": []byte("x")})
	b := writeSkill(t, "beta", "", nil)
	ix := NewSkillIndex(r, []*skills.Skill{a, nil, b, a}, nil)
	found, err := ix.Search("beta", 5)
	require.NoError(t, err)
	assert.Equal(t, []host.SkillInfo{{Name: "beta", Description: "The beta skill, for tests."}}, found)
	_, err = ix.Search(" ", 5)
	assert.Error(t, err)
	body, files, err := ix.Activate("alpha")
	require.NoError(t, err)
	assert.Equal(t, "# alpha\n", body)
	assert.Equal(t, []string{"SKILL.md", "references/x.md"}, files)
	data, err := ix.ReadResource("alpha", "references/x.md")
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	_, err = ix.ReadResource("alpha", "../beta/SKILL.md")
	assert.ErrorIs(t, err, skills.ErrOutsideSkill)
	_, err = ix.ReadResource("gamma", "SKILL.md")
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, _, err = ix.Activate("gamma")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

var (
	fetchTitleOnce sync.Once
	fetchTitleWasm []byte
	fetchTitleErr  error
)

// fetchTitleModule builds the fetch-title example's script.
func fetchTitleModule(t *testing.T) []byte {
	t.Helper()
	fetchTitleOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			fetchTitleErr = err
			return
		}
		out := filepath.Join(testDir, "fetch-title.wasm")
		cmd := exec.Command(goTool, "build", "-o", out, ".")
		cmd.Dir = filepath.Join("..", "examples", "fetch-title", "src", "title")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			fetchTitleErr = fmt.Errorf("%s: %w\n%s", cmd, err, msg)
			return
		}
		fetchTitleWasm, fetchTitleErr = os.ReadFile(out)
	})
	if fetchTitleErr != nil {
		if _, err := exec.LookPath("go"); err != nil && os.Getenv("REQUIRE_TOOLCHAINS") == "" {
			t.Skip(fetchTitleErr)
		}
		require.NoError(t, fetchTitleErr)
	}
	return fetchTitleWasm
}

// TestRunScriptFetch: with no Fetch given, http_fetch reaches a loopback
// server only when the grant names its address and port.
func TestRunScriptFetch(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs against a loopback server, granted and not (1.4 s); the full suite runs it")
	}
	r := sharedRunner(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<html><head><title>Hello  &amp; welcome</title></head></html>")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	s := writeSkill(t, "fetcher", "version = 1\n[capabilities]\nnet = [\""+addr+"\"]\n[scripts.title]\nmodule = \"scripts/title.wasm\"\n",
		map[string][]byte{"scripts/title.wasm": fetchTitleModule(t)})
	_, declared, err := declaredOf(s, "title")
	require.NoError(t, err)

	run := func(granted capabilities.Set) (*sandbox.Result, string, string) {
		var stdout, stderr strings.Builder
		res, err := r.RunScript(context.Background(), s, "title", &ScriptRun{
			Args: []string{srv.URL + "/page"}, Stdout: &stdout, Stderr: &stderr, Granted: granted,
		})
		require.NoError(t, err)
		return res, stdout.String(), stderr.String()
	}
	res, stdout, stderr := run(grant(t, declared, capabilities.FlagGrant{Kind: "net", Value: addr, HasValue: true}))
	assert.Equal(t, uint32(0), res.ExitCode, stderr)
	assert.Equal(t, "Hello & welcome\n", stdout)

	res, stdout, stderr = run(capabilities.Set{})
	assert.Equal(t, uint32(1), res.ExitCode)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "fetcher:title: net "+addr+" denied: not granted")
}

// TestSkillIndexRunCommandLine: skill_run of a script without an input
// schema passes the input's "args" and "stdin" as its command line, as
// its tool does.
func TestSkillIndexRunCommandLine(t *testing.T) {
	r := sharedRunner(t)
	s := writeSkill(t, "echoer", "version = 1\n[scripts.echo]\nmodule = \"scripts/hostile.wasm\"\nargs = [\"echo\"]\n",
		map[string][]byte{"scripts/hostile.wasm": testkit.Wasm(t, "hostile")})
	ix := NewSkillIndex(r, []*skills.Skill{s}, nil)
	res, err := ix.RunScript(context.Background(), "echoer", "echo", json.RawMessage(`{"args":["a b"],"stdin":"in"}`), 1)
	require.NoError(t, err)
	assert.Equal(t, &host.ToolResult{Content: "arg: \"a b\"\nin"}, res)
}
