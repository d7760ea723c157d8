package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/testkit"
)

// Attack tests of the core tools: each is what a hostile model (or a
// script's tool_call) would send, over a real workspace on disk.

// attackWorkspace writes files (path -> content) and symlinks (path ->
// target) under a new workspace and returns it.
func attackWorkspace(t *testing.T, files, links map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// deniedEvents collects the denials audited through the call's context.
type deniedEvents struct {
	mu     sync.Mutex
	events []audit.Event
}

func (d *deniedEvents) ctx() context.Context {
	return audit.WithAuditor(context.Background(), audit.AuditorFunc(func(_ context.Context, e audit.Event) {
		if e.Decision == audit.Deny {
			d.mu.Lock()
			d.events = append(d.events, e)
			d.mu.Unlock()
		}
	}))
}

func (d *deniedEvents) has(t *testing.T, kind, value, reason string) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range d.events {
		if e.Kind == kind && e.Value == value && strings.Contains(e.Reason, reason) {
			return
		}
	}
	t.Errorf("no %s %s denial with reason %q audited; got %+v", kind, value, reason, d.events)
}

func coreCall(t *testing.T, ctx context.Context, tools []Tool, name, input string) *ToolResult {
	t.Helper()
	for _, tl := range tools {
		if tl.Definition().Name == name {
			res, err := tl.Call(ctx, json.RawMessage(input))
			if err != nil {
				t.Fatalf("%s %s: %v", name, input, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestAttackCoreToolsLinkOutOfSubGrant: with read granted on
// workspace/data only, data/link -> ../secret.txt must not read the
// workspace's secret; with write granted on workspace/out only, out/up ->
// .. must not write at the workspace root (issue 11, finding 3).
func TestAttackCoreToolsLinkOutOfSubGrant(t *testing.T) {
	ws := attackWorkspace(t,
		map[string]string{"secret.txt": "WORKSPACE SECRET", "data/in.csv": "x,y", "out/keep.txt": "k"},
		map[string]string{"data/link": "../secret.txt", "data/dir": "..", "out/up": ".."})
	granted := capabilities.Set{
		Read:  []capabilities.Path{mustPath(t, "workspace/data")},
		Write: []capabilities.Path{mustPath(t, "workspace/out")},
	}
	tools, err := CoreTools(ws, granted)
	if err != nil {
		t.Fatal(err)
	}
	var denied deniedEvents
	ctx := denied.ctx()

	for _, in := range []string{`{"path":"data/link"}`, `{"path":"data/dir/secret.txt"}`, `{"path":"out/up/secret.txt"}`} {
		res := coreCall(t, ctx, tools, "workspace_read", in)
		if !res.IsError || strings.Contains(res.Content, "SECRET") {
			t.Errorf("workspace_read %s: %+v; want a refusal without the secret", in, res)
		}
	}
	res := coreCall(t, ctx, tools, "workspace_list", `{"path":"data/dir"}`)
	if !res.IsError || strings.Contains(res.Content, "secret.txt") {
		t.Errorf("workspace_list data/dir: %+v; want a refusal", res)
	}
	res = coreCall(t, ctx, tools, "workspace_search", `{"pattern":"SECRET","path":"data"}`)
	if strings.Contains(res.Content, "WORKSPACE SECRET") {
		t.Errorf("workspace_search found the secret through a link: %q", res.Content)
	}
	res = coreCall(t, ctx, tools, "workspace_write", `{"path":"out/up/pwned.txt","content":"x"}`)
	if !res.IsError {
		t.Errorf("workspace_write out/up/pwned.txt: %+v; want a refusal", res)
	}
	if _, err := os.Lstat(filepath.Join(ws, "pwned.txt")); err == nil {
		t.Error("workspace_write wrote at the workspace root through out/up -> ..")
	}
	denied.has(t, "read", "workspace/data/link", "escapes")
	denied.has(t, "write", "workspace/out/up/pwned.txt", "escapes")

	// What is granted still works, links inside the grant included.
	if err := os.Symlink("in.csv", filepath.Join(ws, "data", "alias")); err != nil {
		t.Fatal(err)
	}
	if res := coreCall(t, ctx, tools, "workspace_read", `{"path":"data/alias"}`); res.IsError || res.Content != "x,y" {
		t.Errorf("workspace_read data/alias = %+v", res)
	}
	if res := coreCall(t, ctx, tools, "workspace_write", `{"path":"out/new/report.txt","content":"ok"}`); res.IsError {
		t.Errorf("workspace_write out/new/report.txt = %+v", res)
	}
	res = coreCall(t, ctx, tools, "workspace_search", `{"pattern":"x","path":"data"}`)
	if !strings.Contains(res.Content, "data/in.csv:1: x,y") {
		t.Errorf("workspace_search in a sub-grant: %q; want paths relative to the workspace", res.Content)
	}
}

// TestAttackCoreToolsProtectedSkill: the workspace holds another skill's
// folder (the default layout, --workspace . with .agents/skills); a model
// or script with write access to the whole workspace must not change it,
// by its path, through a symlink to it, or by a rename of its ancestors
// (issue 11, finding 4).
func TestAttackCoreToolsProtectedSkill(t *testing.T) {
	const module = "\x00asm original"
	ws := attackWorkspace(t,
		map[string]string{".agents/skills/b/scripts/b.wasm": module, ".agents/skills/b/SKILL.md": "b"},
		map[string]string{"alias": ".agents/skills/b/scripts", "agents": ".agents"})
	skillB := filepath.Join(ws, ".agents", "skills", "b")
	tools, err := CoreTools(ws, allGrant(), skillB)
	if err != nil {
		t.Fatal(err)
	}
	var denied deniedEvents
	ctx := denied.ctx()
	for _, p := range []string{
		".agents/skills/b/scripts/b.wasm",
		".agents/skills/b/new.txt",
		".agents/skills/b/scripts/deeper/new.wasm",
		"alias/b.wasm",
		"agents/skills/b/scripts/b.wasm",
		"agents/skills/../skills/b/scripts/b.wasm",
		".agents/skills/b", // a file over the folder
	} {
		res := coreCall(t, ctx, tools, "workspace_write", `{"path":"`+p+`","content":"evil"}`)
		if !res.IsError || !strings.Contains(res.Content, "protected folder") {
			t.Errorf("workspace_write %s: %+v; want a refusal naming the protected folder", p, res)
		}
	}
	if got, err := os.ReadFile(filepath.Join(skillB, "scripts", "b.wasm")); err != nil || string(got) != module {
		t.Errorf("skill b's module is now %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(skillB, "scripts", "deeper")); err == nil {
		t.Error("a folder was created in skill b")
	}
	denied.has(t, "write", "workspace/alias/b.wasm", "protected folder")

	// Next to the protected folder, writing works.
	if res := coreCall(t, ctx, tools, "workspace_write", `{"path":".agents/notes.txt","content":"fine"}`); res.IsError {
		t.Errorf("workspace_write .agents/notes.txt = %+v", res)
	}
	// Unlisted, b is still a skill folder (it holds a SKILL.md): the
	// model's tools of a session, which list no skill, refuse it too.
	unlisted, err := CoreTools(ws, allGrant())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".agents/skills/b/scripts/b.wasm", "alias/b.wasm", ".agents/skills/b/SKILL.md"} {
		res := coreCall(t, ctx, unlisted, "workspace_write", `{"path":"`+p+`","content":"evil"}`)
		if !res.IsError || !strings.Contains(res.Content, "protected folder") {
			t.Errorf("unlisted: workspace_write %s: %+v; want a refusal naming the protected folder", p, res)
		}
	}
}

// TestAttackCoreToolsFIFO: a FIFO in the workspace must not hang
// workspace_read (open(2) on a FIFO waits for a writer), and the refusal
// says why (issue 11, finding 10).
func TestAttackCoreToolsFIFO(t *testing.T) {
	ws := attackWorkspace(t, map[string]string{"a.txt": "a"}, nil)
	if err := testkit.Mkfifo(filepath.Join(ws, "fifo")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	tools, err := CoreTools(ws, allGrant())
	if err != nil {
		t.Fatal(err)
	}
	var denied deniedEvents
	ctx := denied.ctx()
	done := make(chan *ToolResult, 2)
	go func() {
		done <- coreCall(t, ctx, tools, "workspace_read", `{"path":"fifo"}`)
		done <- coreCall(t, ctx, tools, "workspace_search", `{"pattern":"a"}`)
	}()
	for _, tool := range []string{"workspace_read", "workspace_search"} {
		select {
		case res := <-done:
			if tool == "workspace_read" && (!res.IsError || !strings.Contains(res.Content, "FIFOs, sockets and devices are refused")) {
				t.Errorf("workspace_read fifo = %+v; want a refusal naming special files", res)
			}
			if tool == "workspace_search" && !strings.Contains(res.Content, "a.txt:1: a") {
				t.Errorf("workspace_search = %+v; want the regular file searched", res)
			}
		case <-time.After(time.Minute): // a hang, not a slow machine
			t.Fatalf("%s on a workspace holding a FIFO hangs", tool)
		}
	}
	denied.has(t, "read", "workspace/fifo", "FIFOs")
}
