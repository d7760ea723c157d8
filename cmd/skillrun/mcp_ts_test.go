package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/testkit"
)

// TestMCPTypeScriptClient checks `skillrun mcp` against the official
// TypeScript MCP client (test/mcp-ts/check.mjs, @modelcontextprotocol/sdk),
// over stdio and over streamable HTTP, using a built skillrun binary.
func TestMCPTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	const checkDir = "../../test/mcp-ts"
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node (CI: .ci/run runs apt-get install nodejs npm)")
	}
	if _, err := os.Stat(filepath.Join(checkDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		missing = append(missing, "test/mcp-ts/node_modules (CI: .ci/run runs `cd test/mcp-ts && npm ci`)")
	}
	if len(missing) > 0 {
		msg := "TypeScript MCP client check needs " + strings.Join(missing, " and ")
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	// Every subprocess gets its own 60s bound.
	const timeout = 60 * time.Second
	bctx, bcancel := context.WithTimeout(context.Background(), timeout)
	defer bcancel()
	bin := filepath.Join(t.TempDir(), "skillrun")
	if out, err := exec.CommandContext(bctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := mcpSkill(t) // notes: SKILL.md + references/how.md
	if err := os.WriteFile(filepath.Join(root, "notes", "references", "x.md"), []byte("# X\nAn extra reference.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A skill with a real script: the hostile test guest in echo mode,
	// which copies its stdin (the tool's JSON input) to stdout.
	probe := filepath.Join(root, "probe")
	if err := os.MkdirAll(filepath.Join(probe, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	guest := exec.CommandContext(bctx, "go", "build", "-o", filepath.Join(probe, "scripts", "probe.wasm"), ".")
	guest.Dir = testkit.Dir("hostile")
	guest.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := guest.CombinedOutput(); err != nil {
		t.Fatalf("building the probe guest: %v\n%s", err, out)
	}
	for name, data := range map[string]string{
		"SKILL.md":   "---\nname: probe\ndescription: Echoes its input.\n---\nCall probe__echo.\n",
		"skill.toml": "version = 1\n[scripts.echo]\ndescription = \"Echo the input\"\nmodule = \"scripts/probe.wasm\"\nargs = [\"echo\"]\n",
	} {
		if err := os.WriteFile(filepath.Join(probe, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(checkDir, "check.mjs")
	wantLines := []string{
		"ok: tools/list has skills_catalog, skill_activate, skill_read",
		"ok: resources/list has",
		"ok: skills_catalog lists",
		"ok: skill_activate",
		"ok: resources/read skill://",
		`ok: skill_read {"name": 42} is an error result`,
		"ok: script tool probe__echo answered (isError=false)",
	}
	runCheck := func(t *testing.T, args ...string) {
		t.Helper()
		cctx, ccancel := context.WithTimeout(context.Background(), timeout)
		defer ccancel()
		out, err := exec.CommandContext(cctx, node, append([]string{script}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("node check.mjs %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		for _, w := range wantLines {
			if !strings.Contains(string(out), w) {
				t.Errorf("check.mjs output lacks %q:\n%s", w, out)
			}
		}
		t.Logf("check.mjs %s:\n%s", args[0], out)
	}

	t.Run("stdio", func(t *testing.T) {
		runCheck(t, "stdio", bin, root)
	})

	t.Run("http", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		sctx, scancel := context.WithTimeout(context.Background(), timeout)
		defer scancel()
		var stderr strings.Builder
		tokenFile := filepath.Join(t.TempDir(), "token")
		srv := exec.CommandContext(sctx, bin, "mcp", "--http", addr, "--token-file", tokenFile, root)
		srv.Stderr = &stderr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = srv.Process.Kill()
			_ = srv.Wait()
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("skillrun mcp --http %s did not accept connections: %v\n%s", addr, err, stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		runCheck(t, "http", "http://"+addr, tokenFile)
	})
}
