package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
)

func allGrant() capabilities.Set {
	return capabilities.Set{Write: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
}

func mustPath(t testing.TB, s string) capabilities.Path {
	t.Helper()
	p, err := capabilities.ParsePath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// coreSetup makes a workspace beside a secret outside it, and returns a
// registry of the core tools under granted.
func coreSetup(t *testing.T, granted capabilities.Set) (*Registry, string) {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	files := map[string]string{
		"secret.txt":          "TOP SECRET\n",
		"ws/a.txt":            "hello\nworld\n",
		"ws/data/in.csv":      "x,y\n1,2\nhello,3\n",
		"ws/data/bin.dat":     "hello\x00binary",
		"ws/other/notes.md":   "# hello notes\n",
		"ws/data/deep/z.json": `{"hello": true}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/escape.txt": "../secret.txt",
		"ws/escapedir":  "..",
		"ws/inside.txt": "a.txt",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks not supported: %v", err)
		}
	}
	tools, err := CoreTools(ws, granted)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	for _, tl := range tools {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r, ws
}

type coreCase struct {
	name, tool, input string
	wantErr           bool     // an IsError result
	wantIn            []string // substrings of the content
	wantNot           []string // substrings the content must not hold
}

func runCoreCases(t *testing.T, r *Registry, tests []coreCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.input))
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if res.IsError != tt.wantErr {
				t.Errorf("IsError = %v, want %v; content %q", res.IsError, tt.wantErr, res.Content)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content %q does not contain %q", res.Content, s)
				}
			}
			for _, s := range tt.wantNot {
				if strings.Contains(res.Content, s) {
					t.Errorf("content %q contains %q", res.Content, s)
				}
			}
		})
	}
}

func TestWorkspaceRead(t *testing.T) {
	r, _ := coreSetup(t, allGrant())
	runCoreCases(t, r, []coreCase{
		{name: "file", tool: "workspace_read", input: `{"path":"a.txt"}`, wantIn: []string{"hello\nworld\n"}},
		{name: "sub-path", tool: "workspace_read", input: `{"path":"data/in.csv"}`, wantIn: []string{"hello,3"}},
		{name: "dot segments inside", tool: "workspace_read", input: `{"path":"data/../a.txt"}`, wantIn: []string{"hello"}},
		{name: "symlink inside", tool: "workspace_read", input: `{"path":"inside.txt"}`, wantIn: []string{"hello"}},
		{name: "dotdot", tool: "workspace_read", input: `{"path":"../secret.txt"}`, wantErr: true, wantIn: []string{"outside the workspace"}, wantNot: []string{"SECRET"}},
		{name: "absolute", tool: "workspace_read", input: `{"path":"/etc/passwd"}`, wantErr: true, wantIn: []string{"absolute"}},
		{name: "symlink escape", tool: "workspace_read", input: `{"path":"escape.txt"}`, wantErr: true, wantNot: []string{"SECRET"}},
		{name: "symlinked dir escape", tool: "workspace_read", input: `{"path":"escapedir/secret.txt"}`, wantErr: true, wantNot: []string{"SECRET"}},
		{name: "backslash", tool: "workspace_read", input: `{"path":"..\\secret.txt"}`, wantErr: true, wantIn: []string{"backslash"}},
		{name: "missing", tool: "workspace_read", input: `{"path":"nope.txt"}`, wantErr: true, wantIn: []string{"no such file"}},
		{name: "directory", tool: "workspace_read", input: `{"path":"data"}`, wantErr: true, wantIn: []string{"is a directory"}},
		{name: "no path", tool: "workspace_read", input: `{}`, wantErr: true, wantIn: []string{"missing property 'path'"}},
	})
}

func TestWorkspaceReadTruncates(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	if err := os.WriteFile(filepath.Join(ws, "big"), []byte(strings.Repeat("x", maxReadSize+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := r.Call(context.Background(), "workspace_read", json.RawMessage(`{"path":"big"}`))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	if !strings.HasPrefix(res.Content, strings.Repeat("x", maxReadSize)+"\n[truncated") {
		t.Errorf("content does not start with %d bytes and a truncation note", maxReadSize)
	}
}

func TestWorkspaceWrite(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	runCoreCases(t, r, []coreCase{
		{name: "new file", tool: "workspace_write", input: `{"path":"out/new.txt","content":"made"}`, wantIn: []string{"wrote 4 bytes to out/new.txt"}},
		{name: "replace", tool: "workspace_write", input: `{"path":"a.txt","content":"replaced"}`, wantIn: []string{"wrote 8 bytes"}},
		{name: "dotdot", tool: "workspace_write", input: `{"path":"../pwned.txt","content":"x"}`, wantErr: true, wantIn: []string{"outside the workspace"}},
		{name: "absolute", tool: "workspace_write", input: `{"path":"/tmp/pwned.txt","content":"x"}`, wantErr: true},
		{name: "through symlinked dir", tool: "workspace_write", input: `{"path":"escapedir/pwned.txt","content":"x"}`, wantErr: true},
		{name: "workspace itself", tool: "workspace_write", input: `{"path":".","content":"x"}`, wantErr: true},
		{name: "directory", tool: "workspace_write", input: `{"path":"data","content":"x"}`, wantErr: true, wantIn: []string{"is a directory"}},
		{name: "no content", tool: "workspace_write", input: `{"path":"x"}`, wantErr: true, wantIn: []string{"content"}},
		{name: "too big", tool: "workspace_write", input: `{"path":"x","content":"` + strings.Repeat("x", maxWriteSize+1) + `"}`, wantErr: true},
	})
	for name, want := range map[string]string{"out/new.txt": "made", "a.txt": "replaced"} {
		got, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	parent := filepath.Dir(ws)
	if _, err := os.Stat(filepath.Join(parent, "pwned.txt")); err == nil {
		t.Error("a write escaped the workspace")
	}
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWorkspaceList(t *testing.T) {
	r, _ := coreSetup(t, allGrant())
	runCoreCases(t, r, []coreCase{
		{name: "root", tool: "workspace_list", input: `{}`, wantIn: []string{"a.txt\ndata/\n", "other/\n"}},
		{name: "sub", tool: "workspace_list", input: `{"path":"data"}`, wantIn: []string{"bin.dat\ndeep/\nin.csv\n"}},
		{name: "dotdot", tool: "workspace_list", input: `{"path":".."}`, wantErr: true},
		{name: "symlinked dir escape", tool: "workspace_list", input: `{"path":"escapedir"}`, wantErr: true, wantNot: []string{"secret.txt"}},
		{name: "file", tool: "workspace_list", input: `{"path":"a.txt"}`, wantErr: true},
	})
}

func TestWorkspaceListBounded(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	many := filepath.Join(ws, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxListEntries + 5 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.Call(context.Background(), "workspace_list", json.RawMessage(`{"path":"many"}`))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	if n := strings.Count(res.Content, "\n"); n != maxListEntries+1 || !strings.Contains(res.Content, "[truncated") {
		t.Errorf("%d lines, want %d entries and a truncation note", n, maxListEntries)
	}
}

func TestWorkspaceSearch(t *testing.T) {
	r, _ := coreSetup(t, allGrant())
	runCoreCases(t, r, []coreCase{
		{name: "all", tool: "workspace_search", input: `{"pattern":"hello"}`,
			wantIn:  []string{"a.txt:1: hello", "data/in.csv:3: hello,3", "other/notes.md:1: # hello notes", `data/deep/z.json:1: {"hello": true}`},
			wantNot: []string{"bin.dat", "SECRET", "inside.txt"}},
		{name: "sub", tool: "workspace_search", input: `{"pattern":"hel+o","path":"data"}`, wantIn: []string{"data/in.csv:3:"}, wantNot: []string{"a.txt"}},
		{name: "one file", tool: "workspace_search", input: `{"pattern":"world","path":"a.txt"}`, wantIn: []string{"a.txt:2: world"}},
		{name: "no match", tool: "workspace_search", input: `{"pattern":"zzz"}`, wantIn: []string{"no matches"}},
		{name: "secret via symlink", tool: "workspace_search", input: `{"pattern":"SECRET"}`, wantIn: []string{"no matches"}},
		{name: "escape dir", tool: "workspace_search", input: `{"pattern":"SECRET","path":"escapedir"}`, wantErr: true, wantNot: []string{"TOP"}},
		{name: "dotdot", tool: "workspace_search", input: `{"pattern":"x","path":"../"}`, wantErr: true},
		{name: "bad pattern", tool: "workspace_search", input: `{"pattern":"(x"}`, wantErr: true, wantIn: []string{"invalid pattern"}},
		{name: "no pattern", tool: "workspace_search", input: `{}`, wantErr: true, wantIn: []string{"missing property 'pattern'"}},
	})
}

func TestWorkspaceSearchBounded(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	if err := os.WriteFile(filepath.Join(ws, "lines.txt"), []byte(strings.Repeat("match\n", maxSearchMatches+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := r.Call(context.Background(), "workspace_search", json.RawMessage(`{"pattern":"match","path":"lines.txt"}`))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	if n := strings.Count(res.Content, "lines.txt:"); n != maxSearchMatches || !strings.Contains(res.Content, "[stopped") {
		t.Errorf("%d matches, want %d and a stop note", n, maxSearchMatches)
	}
	big := strings.Repeat(strings.Repeat("y", 1023)+"\n", maxSearchScan/1024+100)
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = r.Call(context.Background(), "workspace_search", json.RawMessage(`{"pattern":"nothing","path":"big.txt"}`))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	if !strings.Contains(res.Content, "[stopped: scanned the") {
		t.Errorf("content %q, want a scan-limit note", res.Content)
	}
}

func TestCoreToolsDenied(t *testing.T) {
	readData := capabilities.Set{Read: []capabilities.Path{mustPath(t, "workspace/data")}}
	r, _ := coreSetup(t, readData)
	runCoreCases(t, r, []coreCase{
		{name: "read granted", tool: "workspace_read", input: `{"path":"data/in.csv"}`, wantIn: []string{"x,y"}},
		{name: "read denied", tool: "workspace_read", input: `{"path":"a.txt"}`, wantErr: true, wantIn: []string{"read workspace/a.txt denied: not granted (add --allow-read=workspace/a.txt)"}},
		{name: "write denied", tool: "workspace_write", input: `{"path":"data/x","content":"x"}`, wantErr: true, wantIn: []string{"write workspace/data/x denied", "--allow-write=workspace/data/x"}},
		{name: "list denied", tool: "workspace_list", input: `{}`, wantErr: true, wantIn: []string{"read workspace denied", "--allow-read=workspace"}},
		{name: "list granted", tool: "workspace_list", input: `{"path":"data/"}`, wantIn: []string{"in.csv"}},
		{name: "search denied", tool: "workspace_search", input: `{"pattern":"x","path":"other"}`, wantErr: true, wantIn: []string{"read workspace/other denied"}},
		{name: "search granted", tool: "workspace_search", input: `{"pattern":"hello","path":"data"}`, wantIn: []string{"data/in.csv:3:"}},
	})
	none, _ := coreSetup(t, capabilities.Set{})
	runCoreCases(t, none, []coreCase{
		{name: "deny by default", tool: "workspace_read", input: `{"path":"a.txt"}`, wantErr: true, wantIn: []string{"denied"}},
	})
}

func TestCoreToolsBadWorkspace(t *testing.T) {
	if _, err := CoreTools(filepath.Join(t.TempDir(), "missing"), allGrant()); err == nil {
		t.Error("CoreTools on a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CoreTools(f, allGrant()); err == nil {
		t.Error("CoreTools on a file succeeded")
	}
}

func TestCoreToolsCancelled(t *testing.T) {
	r, _ := coreSetup(t, allGrant())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Call(ctx, "workspace_read", json.RawMessage(`{"path":"a.txt"}`)); err == nil {
		t.Error("Call with a cancelled context succeeded")
	}
}
