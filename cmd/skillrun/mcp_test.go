package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillrun/skillrun/internal/testkit"
)

// mcpSkill writes a skill with one instruction file into a temp dir.
// connectStdio connects the official SDK's client to a skillrun mcp
// served over the pipes (the client reads in, writes out); the caller
// closes the session.
func connectStdio(ctx context.Context, t *testing.T, in io.ReadCloser, out io.WriteCloser) *mcpsdk.ClientSession {
	t.Helper()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func mcpSkill(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills", "notes")
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nRead references/how.md.\n")
	write("references/how.md", "# How\nWrite it down.\n")
	return filepath.Dir(dir)
}

func textOf(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPStdio runs `skillrun mcp` in process over a pipe pair and talks to
// it with the official SDK's client: catalog, activation, a resource, and
// an error result for bad arguments.
func TestMCPStdio(t *testing.T) {
	root := mcpSkill(t)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", root}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)

	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skills_catalog"})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "<name>\nnotes\n</name>") {
		t.Fatalf("catalog: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skill_activate", Arguments: map[string]any{"name": "notes"}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "Read references/how.md.") {
		t.Fatalf("activate: %v %+v", err, res)
	}
	rr, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "skill://notes/references/how.md"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Write it down.") {
		t.Fatalf("resource: %v %+v", err, rr)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skill_read", Arguments: map[string]any{"name": "notes", "path": "../../etc/passwd"}})
	if err != nil || !res.IsError {
		t.Fatalf("read outside: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("unknown tool: no protocol error")
	}
	cs.Close()
	clientOut.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("skillrun mcp exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("skillrun mcp did not stop when the client went away")
	}
}

// TestMCPHTTP serves over streamable HTTP on loopback: the SDK client,
// sending the bearer token, lists tools; a request naming another Host is
// refused (DNS rebinding) even with the token.
func TestMCPHTTP(t *testing.T) {
	root := mcpSkill(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tokenFile := filepath.Join(t.TempDir(), "token")
	go run([]string{"mcp", "--http", addr, "--token-file", tokenFile, root}, strings.NewReader(""), io.Discard, io.Discard)

	url := "http://" + addr
	var resp *http.Response
	for range 100 {
		if resp, err = http.Get(url); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("server did not start: %v", err)
	}
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectHTTP(ctx, url, strings.TrimSpace(string(token)))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "skill_activate") {
		t.Errorf("tools %v", names)
	}

	body := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	req, _ := http.NewRequest(http.MethodPost, url, body)
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example: status %d, want 403", resp.StatusCode)
	}
}

// TestMCPHotReload: a skill added on disk while `skillrun mcp` runs is
// announced (tools and resources list_changed) and served, no restart.
func TestMCPHotReload(t *testing.T) {
	root := mcpSkill(t)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", root}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	toolsChanged := make(chan struct{}, 8)
	resourcesChanged := make(chan struct{}, 8)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, &mcpsdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcpsdk.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcpsdk.ResourceListChangedRequest) { resourcesChanged <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	dir := filepath.Join(root, "later")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: later\ndescription: Added while serving.\n---\nHello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan struct{}{"tools": toolsChanged, "resources": resourcesChanged} {
		select {
		case <-ch:
		case <-time.After(15 * time.Second):
			t.Fatalf("no %s/list_changed after adding a skill", name)
		}
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skill_activate", Arguments: map[string]any{"name": "later"}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "Hello.") {
		t.Fatalf("activate the new skill: %v %+v", err, res)
	}
	clientOut.Close()
}

// TestMCPHotReloadMarkdown: a Markdown skill added to a served folder
// (through a symbolic link to its .AchillesSkills) is served as
// skill_<name> without a restart, and one removed is no longer served.
func TestMCPHotReloadMarkdown(t *testing.T) {
	root := mcpSkill(t)
	md := filepath.Join(t.TempDir(), "md")
	if err := os.Mkdir(md, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(md, filepath.Join(root, ".AchillesSkills")); err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", root, "--workspace", t.TempDir()}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	toolsChanged := make(chan struct{}, 8)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, &mcpsdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { toolsChanged <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	served := func() bool {
		t.Helper()
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == "skill_notes" {
				return true
			}
		}
		return false
	}
	if served() {
		t.Fatal("skill_notes served before it was written")
	}
	file := filepath.Join(md, "notes.tskill.md")
	if err := os.WriteFile(file, []byte("# notes\n\nKeep notes.\n\n## Fields\n- `title` (string, required): The title.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor := func(want bool) {
		t.Helper()
		for served() != want {
			select {
			case <-toolsChanged:
			case <-time.After(15 * time.Second):
				t.Fatalf("skill_notes served = %v after 15 s, want %v", !want, want)
			}
		}
	}
	waitFor(true)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	waitFor(false)
	clientOut.Close()
}

// TestMCPYAMLModules: `skillrun mcp` serves a folder of YAML modules: the
// skill.yaml disclosed like any skill, each tool.yaml action a tool whose
// script runs in the sandbox, its input checked against its parameters.
func TestMCPYAMLModules(t *testing.T) {
	examples, err := filepath.Abs("../../examples/yamlmod")
	if err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", examples, "--workspace", t.TempDir()}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skill_activate", Arguments: map[string]any{"name": "text-report"}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "Count the words") {
		t.Fatalf("activate text-report: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "text-tools__count_words", Arguments: map[string]any{"text": "one two three"}})
	if err != nil || res.IsError || strings.TrimSpace(textOf(res)) != `{"words": 3}` {
		t.Fatalf("count_words: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "text-tools__sort_lines", Arguments: map[string]any{"text": "b\na\nc", "reverse": true}})
	if err != nil || res.IsError || strings.TrimSpace(textOf(res)) != "c\nb\na" {
		t.Fatalf("sort_lines reverse: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "text-tools__count_words", Arguments: map[string]any{"txt": "x"}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "txt") {
		t.Fatalf("an unknown parameter is refused before the script runs: %v %+v", err, res)
	}
	clientOut.Close()
}

// TestMCPADRModules: `skillrun mcp` serves the ADR's implementation
// files: a tool's wrapper.py (one class, invoke(action, params)) as its
// actions, and a skill's executor.py as <id>__execute, whose tool calls
// reach the served actions under the skill's policy table (the tools it
// names, no more) and whose result is checked against its output_schema.
func TestMCPADRModules(t *testing.T) {
	requireInterpreters(t)
	dir := t.TempDir()
	files := map[string]string{
		"tools/calc/tool.yaml":     "tool:\n  id: calc\n  actions:\n    - name: add\n      description: Adds.\n      parameters:\n        - {name: a, type: integer, required: true}\n        - {name: b, type: integer, required: true}\n    - name: neg\n      description: Negates.\n      parameters:\n        - {name: a, type: integer, required: true}\n",
		"tools/calc/wrapper.py":    "from ..base import BaseTool\n\nclass Calc(BaseTool):\n    def invoke(self, action, params):\n        if action == 'add':\n            return {'sum': params['a'] + params['b']}\n        return {'neg': -params['a']}\n",
		"skills/total/skill.yaml":  "skill:\n  id: total\n  triggers: [total]\n  input_schema: {type: object, properties: {xs: {type: array}}, required: [xs]}\n  output_schema: {type: object, properties: {total: {type: integer}}, required: [total]}\n  methodology:\n    - {description: Add them up., tools: [calc.add]}\n",
		"skills/total/executor.py": "def execute(input, tools):\n    t = 0\n    for x in input['xs']:\n        t = tools.calc.add(a=t, b=x)['sum']\n    try:\n        tools.calc.neg(a=1)\n        return {'total': t, 'escaped': True}\n    except Exception:\n        return {'total': t}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte("[skills.total]\ntools = [\"calc__add\", \"calc__neg\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", dir, "--policy", policy, "--workspace", t.TempDir()}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "calc__add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || strings.TrimSpace(textOf(res)) != `{"sum": 5}` {
		t.Fatalf("calc__add through wrapper.py: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "total__execute", Arguments: map[string]any{"xs": []int{1, 2, 3, 4}}})
	if err != nil || res.IsError || strings.TrimSpace(textOf(res)) != `{"total": 10}` {
		t.Fatalf("total__execute: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "total__execute", Arguments: map[string]any{"ys": []int{1}}})
	if err != nil || !res.IsError {
		t.Fatalf("an input that does not match input_schema is refused: %v %+v", err, res)
	}
	clientOut.Close()
}

// TestMCPNativeTier: a skill whose own policy table says native = true is
// served with its Python script run as a confined host process (numpy
// loads); the same script of a skill without it stays in WebAssembly.
func TestMCPNativeTier(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"trusted", "stranger"} {
		dir := filepath.Join(root, name, "scripts")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			filepath.Join(root, name, "SKILL.md"): "---\nname: " + name + "\ndescription: numpy's version.\n---\nRun scripts/v.py.\n",
			filepath.Join(dir, "v.py"):            "import numpy\nprint('numpy', numpy.__version__.split('.')[0])\n",
		}
		for p, data := range files {
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	policy := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte("[skills.trusted]\nnative = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", root, "--policy", policy, "--workspace", t.TempDir()}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "trusted__v", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.HasPrefix(textOf(res), "numpy ") {
		t.Fatalf("trusted__v runs natively: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "stranger__v", Arguments: map[string]any{}})
	if err != nil || !res.IsError || strings.HasPrefix(textOf(res), "numpy ") {
		t.Fatalf("stranger__v stays in WebAssembly, where numpy cannot load: %v %+v", err, res)
	}
	clientOut.Close()
}

// TestMCPBridgeConfig: `skillrun mcp --mcp-config` starts the configured
// MCP servers (here: another skillrun serving an inner skill over stdio)
// and serves their tools as mcp__<server>__<tool>, callable end to end.
func TestMCPBridgeConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	bin := filepath.Join(t.TempDir(), "skillrun")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	inner := mcpSkill(t)
	outer := mcpSkill(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"inner": map[string]any{"command": bin, "args": []string{"mcp", inner}},
	}})
	if err := os.WriteFile(cfg, conf, 0o644); err != nil {
		t.Fatal(err)
	}

	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", "--mcp-config", cfg, outer}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "mcp__inner__skill_activate", Arguments: map[string]any{"name": "notes"}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "Read references/how.md.") {
		t.Fatalf("bridged tool: %v %+v", err, res)
	}
	clientOut.Close()
}

// TestMCPScriptsCompose: a script served over MCP reaches the other served
// skills through skill_run, as the policy grants it, down to the depth
// limit; without the grant the call is denied.
func TestMCPScriptsCompose(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills", "self")
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "scripts", "hostcall.wasm"), ".")
	build.Dir = testkit.Dir("hostcall")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, out)
	}
	for name, data := range map[string]string{
		"SKILL.md":   "---\nname: self\ndescription: Runs itself.\n---\nRecurse.\n",
		"skill.toml": "version = 1\n[capabilities]\nskills = [\"self\"]\n[scripts.hostcall]\nmodule = \"scripts/hostcall.wasm\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte("[skills.self]\nskills = [\"self\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"granted", []string{"mcp", filepath.Dir(dir), "--policy", policy}, "nested(nested(nested(nested(limit: "},
		{"not granted", []string{"mcp", filepath.Dir(dir)}, "limit: denied: self:hostcall: skills self denied: not granted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serverIn, clientOut := io.Pipe()
			clientIn, serverOut := io.Pipe()
			go func() {
				run(tc.args, serverIn, serverOut, io.Discard)
				serverOut.Close()
			}()
			defer clientOut.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs := connectStdio(ctx, t, clientIn, clientOut)
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "self__hostcall", Arguments: map[string]any{"mode": "recurse"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); res.IsError || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q (isError %v), want it to start with %q", got, res.IsError, tc.want)
			}
		})
	}
}

// TestMCPFileScripts: `skillrun mcp` serves a published skill's script
// files (no skill.toml) as <skill>__<stem> tools taking a command line,
// behind the policy: granted, the script runs in /workspace; not
// granted, it runs without the workspace (as every script tool of
// `skillrun mcp` runs with what the policy grants) and fails to find it.
func TestMCPFileScripts(t *testing.T) {
	needPython(t)
	root := filepath.Join(t.TempDir(), "skills")
	ws := t.TempDir()
	testkit.WriteTree(t, "", map[string]string{
		root + "/pub/SKILL.md":           "---\nname: pub\ndescription: Counts lines.\n---\nRun `python scripts/count.py FILE`.\n",
		root + "/pub/scripts/count.py":   "import os, sys\nprint(os.getcwd(), sum(1 for _ in open(sys.argv[1])))\n",
		root + "/pub/scripts/_util.py":   "X = 1\n",
		ws + "/in.txt":                   "a\nb\n",
		t.TempDir() + "/unused.toml":     "",
		filepath.Dir(ws) + "/grant.toml": "[skills.pub]\nread = [\"skill\", \"workspace\"]\nwrite = [\"workspace\"]\n",
	})
	call := func(policy string) (*mcpsdk.CallToolResult, []string) {
		t.Helper()
		args := []string{"mcp", root, "--workspace", ws}
		if policy != "" {
			args = append(args, "--policy", policy)
		}
		return serveMCPCall(t, args, "pub__count", map[string]any{"args": []string{"in.txt"}})
	}
	res, names := call(filepath.Join(filepath.Dir(ws), "grant.toml"))
	if !slices.Contains(names, "pub__count") || slices.Contains(names, "pub___util") {
		t.Errorf("tools %v; want pub__count and no helper", names)
	}
	if res.IsError || strings.TrimSpace(textOf(res)) != "/workspace 2" {
		t.Errorf("granted call: %q (error %v); want the line count, run in /workspace", textOf(res), res.IsError)
	}
	res, _ = call("")
	if !res.IsError || !strings.Contains(textOf(res), "No such file or directory: 'in.txt'") {
		t.Errorf("call without a grant: %q (error %v); want the script failing, the workspace not mounted", textOf(res), res.IsError)
	}
}

// TestMCPShellTool: `skillrun mcp` serves the sandboxed shell as "shell"
// when the policy's [default] grants the workspace (the shell declares
// reading and writing it), with the served skills read-only at
// /skills/<name>; without such a grant there is no shell tool.
func TestMCPShellTool(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	ws := t.TempDir()
	policyDir := t.TempDir()
	testkit.WriteTree(t, "", map[string]string{
		root + "/pub/SKILL.md":         "---\nname: pub\ndescription: Counts lines.\n---\nRun `bash scripts/count.sh FILE`.\n",
		root + "/pub/scripts/count.sh": "echo \"$(wc -l < \"$1\") lines in $1\"\n",
		ws + "/in.txt":                 "a\nb\n",
		policyDir + "/shell.toml":      "[default]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\n",
		policyDir + "/readonly.toml":   "[default]\nread = [\"workspace\"]\n",
		policyDir + "/nothing.toml":    "[default]\nenv = [\"LANG\"]\n",
	})
	call := func(policy, command string) (*mcpsdk.CallToolResult, []string) {
		t.Helper()
		return serveMCPCall(t, []string{"mcp", root, "--workspace", ws, "--policy", policy}, "shell", map[string]any{"command": command})
	}
	res, _ := call(policyDir+"/shell.toml", "bash /skills/pub/scripts/count.sh in.txt; echo x > made.txt")
	if res == nil || res.IsError || strings.TrimSpace(textOf(res)) != "2 lines in in.txt" {
		t.Fatalf("shell call: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Errorf("the shell could not write the granted workspace: %v", err)
	}
	res, _ = call(policyDir+"/readonly.toml", "cat in.txt; echo y > other.txt")
	if res == nil || !res.IsError || !strings.Contains(textOf(res), "a\nb") {
		t.Errorf("read-only shell call: %+v; want the file read and the write refused", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "other.txt")); err == nil {
		t.Errorf("a read-only grant let the shell write the workspace")
	}
	if res, names := call(policyDir+"/nothing.toml", "true"); res != nil || slices.Contains(names, "shell") {
		t.Errorf("tools %v: a policy granting no workspace serves no shell", names)
	}
}

// serveMCPCall starts `skillrun` with args (an mcp command) on in-memory
// pipes, lists its tools and, when tool is among them, calls it with
// arguments; it returns the result (nil if the tool is not served) and
// the tool names.
func serveMCPCall(t *testing.T, args []string, tool string, arguments map[string]any) (*mcpsdk.CallToolResult, []string) {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(args, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer func() { cs.Close(); clientOut.Close(); <-done }()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, tool) {
		return nil, names
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		t.Fatal(err)
	}
	return res, names
}
