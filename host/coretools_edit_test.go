package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
)

func TestWorkspaceEdit(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	if err := os.WriteFile(filepath.Join(ws, "many.txt"), []byte("x = 1\nx = 1\nx = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const tool = "workspace_edit"
	runCoreCases(t, r, []coreCase{
		{name: "once", tool: tool, input: `{"path":"a.txt","old_string":"world","new_string":"there"}`, wantIn: []string{"replaced 1 occurrence in a.txt"}},
		{name: "sub-path", tool: tool, input: `{"path":"data/../data/in.csv","old_string":"hello,3","new_string":"bye,3"}`, wantIn: []string{"replaced 1 occurrence in data/in.csv"}},
		{name: "ambiguous", tool: tool, input: `{"path":"many.txt","old_string":"x = 1","new_string":"x = 2"}`, wantErr: true,
			wantIn: []string{"old_string occurs 3 times in many.txt", "more surrounding context", "replace_all"}},
		{name: "replace_all", tool: tool, input: `{"path":"many.txt","old_string":"x = 1","new_string":"x = 2","replace_all":true}`, wantIn: []string{"replaced 3 occurrences in many.txt"}},
		{name: "replace_all false", tool: tool, input: `{"path":"data/deep/z.json","old_string":"true","new_string":"false","replace_all":false}`, wantIn: []string{"replaced 1 occurrence"}},
		{name: "not found", tool: tool, input: `{"path":"a.txt","old_string":"absent","new_string":"x"}`, wantErr: true, wantIn: []string{"old_string not found in a.txt"}},
		{name: "symlink inside", tool: tool, input: `{"path":"inside.txt","old_string":"hello","new_string":"hi"}`, wantIn: []string{"replaced 1 occurrence in inside.txt"}},
		{name: "dotdot", tool: tool, input: `{"path":"../secret.txt","old_string":"TOP","new_string":"x"}`, wantErr: true, wantIn: []string{"outside the workspace"}, wantNot: []string{"SECRET"}},
		{name: "absolute", tool: tool, input: `{"path":"/etc/passwd","old_string":"root","new_string":"x"}`, wantErr: true, wantIn: []string{"absolute"}},
		{name: "symlink escape", tool: tool, input: `{"path":"escape.txt","old_string":"TOP","new_string":"x"}`, wantErr: true, wantIn: []string{"escapes"}, wantNot: []string{"SECRET"}},
		{name: "symlinked dir escape", tool: tool, input: `{"path":"escapedir/secret.txt","old_string":"TOP","new_string":"x"}`, wantErr: true, wantNot: []string{"SECRET"}},
		{name: "missing", tool: tool, input: `{"path":"nope.txt","old_string":"a","new_string":"b"}`, wantErr: true, wantIn: []string{"no such file"}},
		{name: "directory", tool: tool, input: `{"path":"data","old_string":"a","new_string":"b"}`, wantErr: true, wantIn: []string{"data is a directory"}},
		{name: "workspace itself", tool: tool, input: `{"path":".","old_string":"a","new_string":"b"}`, wantErr: true, wantIn: []string{"workspace itself"}},
		{name: "no path", tool: tool, input: `{"old_string":"a","new_string":"b"}`, wantErr: true, wantIn: []string{"missing property 'path'"}},
		{name: "no old_string", tool: tool, input: `{"path":"a.txt","new_string":"b"}`, wantErr: true, wantIn: []string{"missing property 'old_string'"}},
		{name: "no new_string", tool: tool, input: `{"path":"a.txt","old_string":"a"}`, wantErr: true, wantIn: []string{"missing property 'new_string'"}},
		{name: "empty old_string", tool: tool, input: `{"path":"a.txt","old_string":"","new_string":"b"}`, wantErr: true, wantIn: []string{"old_string is empty"}},
		{name: "old equals new", tool: tool, input: `{"path":"a.txt","old_string":"hello","new_string":"hello"}`, wantErr: true, wantIn: []string{"are the same"}},
		{name: "replace_all not a boolean", tool: tool, input: `{"path":"a.txt","old_string":"a","new_string":"b","replace_all":"yes"}`, wantErr: true},
		{name: "unknown field", tool: tool, input: `{"path":"a.txt","old":"a","new_string":"b"}`, wantErr: true},
	})
	for name, want := range map[string]string{
		"a.txt":            "hi\nthere\n", // edited by name, then through inside.txt
		"data/in.csv":      "x,y\n1,2\nbye,3\n",
		"many.txt":         "x = 2\nx = 2\nx = 2\n",
		"data/deep/z.json": `{"hello": false}`,
		"../secret.txt":    "TOP SECRET\n",
	} {
		got, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(ws, "inside.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("inside.txt is no longer a symlink: %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWorkspaceEditKeepsMode(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	for _, mode := range []os.FileMode{0o600, 0o755, 0o640} {
		p := filepath.Join(ws, "script.sh")
		if err := os.WriteFile(p, []byte("echo hi\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		res, err := r.Call(context.Background(), "workspace_edit", json.RawMessage(`{"path":"script.sh","old_string":"hi","new_string":"bye"}`))
		if err != nil || res.IsError {
			t.Fatalf("Call = %+v, %v", res, err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("mode after edit = %v, want %v", got, mode)
		}
	}
}

func TestWorkspaceEditBounded(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	if err := os.WriteFile(filepath.Join(ws, "big"), []byte(strings.Repeat("x", maxReadSize+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "grow"), []byte(strings.Repeat("y", maxWriteSize/2+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runCoreCases(t, r, []coreCase{
		{name: "file too big", tool: "workspace_edit", input: `{"path":"big","old_string":"x","new_string":"z"}`, wantErr: true,
			wantIn: []string{"big is 1048577 bytes, over the 1048576-byte limit"}},
		{name: "result too big", tool: "workspace_edit", input: `{"path":"grow","old_string":"y","new_string":"yy","replace_all":true}`, wantErr: true,
			wantIn: []string{"the edited file would be", "over the 1048576-byte limit"}},
	})
	got, err := os.ReadFile(filepath.Join(ws, "grow"))
	if err != nil || len(got) != maxWriteSize/2+1 {
		t.Errorf("grow is %d bytes, %v; want it unchanged", len(got), err)
	}
}

func TestWorkspaceEditDenied(t *testing.T) {
	granted := capabilities.Set{
		Read:  []capabilities.Path{{Root: capabilities.RootWorkspace}},
		Write: []capabilities.Path{mustPath(t, "workspace/other")},
	}
	r, ws := coreSetup(t, granted)
	runCoreCases(t, r, []coreCase{
		{name: "read only", tool: "workspace_edit", input: `{"path":"a.txt","old_string":"hello","new_string":"x"}`, wantErr: true,
			wantIn: []string{"write workspace/a.txt denied", "--allow-write=workspace/a.txt"}},
		{name: "beside the grant", tool: "workspace_edit", input: `{"path":"data/in.csv","old_string":"x,y","new_string":"a,b"}`, wantErr: true,
			wantIn: []string{"write workspace/data/in.csv denied"}},
		{name: "dotdot out of the grant", tool: "workspace_edit", input: `{"path":"other/../a.txt","old_string":"hello","new_string":"x"}`, wantErr: true,
			wantIn: []string{"write workspace/a.txt denied"}},
		{name: "granted", tool: "workspace_edit", input: `{"path":"other/notes.md","old_string":"hello","new_string":"bye"}`, wantIn: []string{"replaced 1 occurrence in other/notes.md"}},
	})
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "hello\nworld\n" {
		t.Errorf("a.txt = %q; a denied edit changed it", got)
	}
	none, _ := coreSetup(t, capabilities.Set{})
	runCoreCases(t, none, []coreCase{
		{name: "deny by default", tool: "workspace_edit", input: `{"path":"a.txt","old_string":"hello","new_string":"x"}`, wantErr: true, wantIn: []string{"denied"}},
	})
}

// TestAttackWorkspaceEditLinkOutOfSubGrant: with write granted on
// workspace/out only, an edit through out/up -> .. or out/link ->
// ../secret.txt must not change the workspace's files, and is audited.
func TestAttackWorkspaceEditLinkOutOfSubGrant(t *testing.T) {
	ws := attackWorkspace(t,
		map[string]string{"secret.txt": "WORKSPACE SECRET", "out/keep.txt": "keep"},
		map[string]string{"out/up": "..", "out/link": "../secret.txt", "out/alias": "keep.txt"})
	tools, err := CoreTools(ws, capabilities.Set{Write: []capabilities.Path{mustPath(t, "workspace/out")}})
	if err != nil {
		t.Fatal(err)
	}
	var denied deniedEvents
	ctx := denied.ctx()
	for _, p := range []string{"out/up/secret.txt", "out/link"} {
		res := coreCall(t, ctx, tools, "workspace_edit", `{"path":"`+p+`","old_string":"SECRET","new_string":"pwned"}`)
		if !res.IsError || !strings.Contains(res.Content, "escapes") {
			t.Errorf("workspace_edit %s: %+v; want a refusal", p, res)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "secret.txt")); string(got) != "WORKSPACE SECRET" {
		t.Errorf("secret.txt = %q; an edit escaped the grant", got)
	}
	denied.has(t, "write", "workspace/out/up/secret.txt", "escapes")
	denied.has(t, "write", "workspace/out/link", "escapes")

	if res := coreCall(t, ctx, tools, "workspace_edit", `{"path":"out/alias","old_string":"keep","new_string":"kept"}`); res.IsError {
		t.Errorf("workspace_edit out/alias = %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "out", "keep.txt")); string(got) != "kept" {
		t.Errorf("out/keep.txt = %q; want the edit through out/alias", got)
	}
}

// TestAttackWorkspaceEditProtectedSkill: with write access to the whole
// workspace, an edit must not change a protected skill folder, by its
// path or through a symlink to it.
func TestAttackWorkspaceEditProtectedSkill(t *testing.T) {
	const module = "\x00asm original"
	ws := attackWorkspace(t,
		map[string]string{".agents/skills/b/scripts/b.wasm": module, ".agents/skills/b/SKILL.md": "b skill", ".agents/notes.txt": "notes"},
		map[string]string{"alias": ".agents/skills/b/scripts", "agents": ".agents", "skillmd": ".agents/skills/b/SKILL.md"})
	skillB := filepath.Join(ws, ".agents", "skills", "b")
	for name, tools := range map[string][]string{"listed": {skillB}, "unlisted": nil} {
		t.Run(name, func(t *testing.T) {
			core, err := CoreTools(ws, allGrant(), tools...)
			if err != nil {
				t.Fatal(err)
			}
			var denied deniedEvents
			ctx := denied.ctx()
			for _, p := range []string{
				".agents/skills/b/scripts/b.wasm",
				".agents/skills/b/SKILL.md",
				"alias/b.wasm",
				"agents/skills/b/scripts/b.wasm",
				"skillmd",
			} {
				old := "original"
				if strings.HasSuffix(p, "SKILL.md") || p == "skillmd" {
					old = "skill"
				}
				res := coreCall(t, ctx, core, "workspace_edit", `{"path":"`+p+`","old_string":"`+old+`","new_string":"evil"}`)
				if !res.IsError || !strings.Contains(res.Content, "protected folder") {
					t.Errorf("workspace_edit %s: %+v; want a refusal naming the protected folder", p, res)
				}
			}
			denied.has(t, "write", "workspace/alias/b.wasm", "protected folder")
		})
	}
	if got, err := os.ReadFile(filepath.Join(skillB, "scripts", "b.wasm")); err != nil || string(got) != module {
		t.Errorf("skill b's module is now %q, %v", got, err)
	}
	if got, _ := os.ReadFile(filepath.Join(skillB, "SKILL.md")); string(got) != "b skill" {
		t.Errorf("skill b's SKILL.md is now %q", got)
	}
	core, err := CoreTools(ws, allGrant(), skillB)
	if err != nil {
		t.Fatal(err)
	}
	if res := coreCall(t, context.Background(), core, "workspace_edit", `{"path":".agents/notes.txt","old_string":"notes","new_string":"more"}`); res.IsError {
		t.Errorf("workspace_edit .agents/notes.txt = %+v", res)
	}
}
