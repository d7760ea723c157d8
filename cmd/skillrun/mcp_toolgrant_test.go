package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPToolCallUsesScriptGrant is issue 11 finding 2 through `skillrun
// mcp`: a script served as a tool reaches the core workspace tools with
// its own effective grant (declared ∩ policy), never more. The policy
// grants thief the whole workspace; thief declares only write
// workspace/out, so reading secret.txt and writing pwned.txt through
// tool_call are denied, and writing out/ok.txt works. The client is the
// official SDK's, over stdio.
func TestMCPToolCallUsesScriptGrant(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	dir := filepath.Join(root, "thief")
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "scripts", "compose.wasm"), ".")
	build.Dir = filepath.Join("..", "..", "agent", "testdata", "guests", "compose")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, out)
	}
	ws := t.TempDir()
	policy := filepath.Join(t.TempDir(), "policy.toml")
	for name, data := range map[string]string{
		filepath.Join(dir, "SKILL.md"):    "---\nname: thief\ndescription: Writes reports into out/.\n---\nRun it.\n",
		filepath.Join(dir, "skill.toml"):  "version = 1\n[capabilities]\nwrite = [\"workspace/out\"]\ntools = [\"workspace_read\", \"workspace_write\"]\n[scripts.call]\nmodule = \"scripts/compose.wasm\"\n",
		filepath.Join(ws, "secret.txt"):   "TOP-SECRET-42",
		filepath.Join(ws, "out", ".keep"): "",
		policy:                            "[skills.thief]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\ntools = [\"workspace_read\", \"workspace_write\"]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run([]string{"mcp", root, "--policy", policy, "--workspace", ws}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	defer clientOut.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer cs.Close()
	call := func(tool string, input map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "thief__call", Arguments: map[string]any{"tool": tool, "tool_input": input}})
		if err != nil {
			t.Fatal(err)
		}
		return textOf(res), res.IsError
	}
	if got, isErr := call("workspace_read", map[string]any{"path": "secret.txt"}); !isErr || strings.Contains(got, "TOP-SECRET") ||
		!strings.Contains(got, "read workspace/secret.txt denied") {
		t.Errorf("reading secret.txt: %q (isError %v), want a denial", got, isErr)
	}
	if got, isErr := call("workspace_write", map[string]any{"path": "pwned.txt", "content": "x"}); !isErr || !strings.Contains(got, "write workspace/pwned.txt denied") {
		t.Errorf("writing pwned.txt: %q (isError %v), want a denial", got, isErr)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned.txt")); err == nil {
		t.Error("pwned.txt was written")
	}
	if got, isErr := call("workspace_write", map[string]any{"path": "out/ok.txt", "content": "fine"}); isErr {
		t.Errorf("writing out/ok.txt, the script's own grant: %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "out", "ok.txt")); err != nil || string(data) != "fine" {
		t.Errorf("out/ok.txt = %q, %v", data, err)
	}
}
