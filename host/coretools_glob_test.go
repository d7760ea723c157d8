package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/testkit"
)

func TestGlobPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.txt", "a.txt", true},
		{"*.txt", "d/a.txt", false},
		{"**/*.txt", "a.txt", true},
		{"**/*.txt", "d/e/a.txt", true},
		{"**/*.txt", "d/e/a.csv", false},
		{"d/**/a.txt", "d/a.txt", true},
		{"d/**/a.txt", "d/x/y/a.txt", true},
		{"d/**/a.txt", "e/x/a.txt", false},
		{"d/**", "d/x/y", true},
		{"**", "x", true},
		{"**/**/b", "a/b", true},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[a-c].txt", "b.txt", true},
		{"[!a-c].txt", "b.txt", false}, // the shell's negation
		{"[!a-c].txt", "d.txt", true},
		{"[^a-c].txt", "d.txt", true},
		{`\[!a].txt`, "[!a].txt", true}, // escaped: no class
		{"models/*/x.yml", "models/m/x.yml", true},
		{"models/*/x.yml", "models/m/n/x.yml", false},
		{"a**b", "axxb", true}, // "**" inside an element is two stars
		{"a**b", "a/b", false},
		{"**/a/**/a/**/a/**/b", strings.Repeat("a/", 60) + "c", false}, // no exponential backtracking
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			dir, rest, err := parseGlob(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			var p []string
			if dir != "" {
				p = strings.Split(dir, "/")
			}
			if got := globPattern(append(p, rest...)).match(strings.Split(tt.name, "/")); got != tt.want {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseGlob(t *testing.T) {
	tests := []struct {
		pattern, dir string
		rest         globPattern
		err          string
	}{
		{pattern: "**/*.sql", rest: globPattern{"**", "*.sql"}},
		{pattern: "models/staging/*.sql", dir: "models/staging", rest: globPattern{"*.sql"}},
		{pattern: "./data//in.csv", dir: "data", rest: globPattern{"in.csv"}},
		{pattern: "a/[b]/c", dir: "a", rest: globPattern{"[b]", "c"}},
		{pattern: "[!a]x[!b-c]", rest: globPattern{"[^a]x[^b-c]"}},
		{pattern: `x\[!a]`, rest: globPattern{`x\[!a]`}},
		{pattern: "[x!]y[!z]", rest: globPattern{"[x!]y[^z]"}},
		{pattern: "", err: "pattern is empty"},
		{pattern: "/etc/*", err: "absolute"},
		{pattern: "a/[b", err: "invalid pattern"},
		{pattern: "./", err: "names no file"},
		{pattern: strings.Repeat("x", maxQueryLen+1), err: "over the"},
	}
	for _, tt := range tests {
		dir, rest, err := parseGlob(tt.pattern)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseGlob(%q) error = %v, want %q", tt.pattern, err, tt.err)
			}
			continue
		}
		if assert.NoError(t, err, "parseGlob(%q)", tt.pattern) {
			assert.Equal(t, tt.dir, dir, "parseGlob(%q)", tt.pattern)
			assert.Equal(t, tt.rest, rest, "parseGlob(%q)", tt.pattern)
		}
	}
}

func TestWorkspaceGlob(t *testing.T) {
	r, _ := coreSetup(t, allGrant())
	const tool = "workspace_glob"
	runCoreCases(t, r, []coreCase{
		{name: "nested", tool: tool, input: `{"pattern":"**/*.json"}`, wantIn: []string{"data/deep/z.json\n"}, wantNot: []string{"in.csv"}},
		{name: "top level only", tool: tool, input: `{"pattern":"*.txt"}`, wantIn: []string{"a.txt\n", "inside.txt\n"}, wantNot: []string{"escape.txt", "secret.txt"}},
		{name: "everything", tool: tool, input: `{"pattern":"**"}`,
			wantIn:  []string{"a.txt\n", "data/in.csv\n", "data/bin.dat\n", "data/deep/z.json\n", "other/notes.md\n"},
			wantNot: []string{"secret", "escape", "data/\n", "data/deep\n"}},
		{name: "one folder", tool: tool, input: `{"pattern":"data/*"}`, wantIn: []string{"data/in.csv\n", "data/bin.dat\n"}, wantNot: []string{"z.json"}},
		{name: "class", tool: tool, input: `{"pattern":"**/[a-m]*.*"}`, wantIn: []string{"a.txt\n", "data/in.csv\n", "data/bin.dat\n"}, wantNot: []string{"notes.md", "z.json"}},
		{name: "question mark", tool: tool, input: `{"pattern":"?.txt"}`, wantIn: []string{"a.txt\n"}, wantNot: []string{"inside"}},
		{name: "path", tool: tool, input: `{"pattern":"*.json","path":"data/deep"}`, wantIn: []string{"data/deep/z.json\n"}},
		{name: "path and nested", tool: tool, input: `{"pattern":"**/*","path":"data"}`, wantIn: []string{"data/in.csv\n", "data/deep/z.json\n"}, wantNot: []string{"a.txt", "notes.md"}},
		{name: "path relative to it", tool: tool, input: `{"pattern":"*.csv","path":"data"}`, wantIn: []string{"data/in.csv\n"}},
		{name: "no match", tool: tool, input: `{"pattern":"**/*.go"}`, wantIn: []string{"no files match **/*.go"}},
		{name: "folder of the pattern missing", tool: tool, input: `{"pattern":"nope/**/*.sql"}`, wantIn: []string{"no files match nope/**/*.sql"}},
		{name: "path missing", tool: tool, input: `{"pattern":"*","path":"nope"}`, wantErr: true, wantIn: []string{"no such file"}},
		{name: "path a file", tool: tool, input: `{"pattern":"*","path":"a.txt"}`, wantErr: true, wantIn: []string{"not a folder"}},
		{name: "pattern below a file", tool: tool, input: `{"pattern":"data/in.csv/*"}`, wantErr: true, wantIn: []string{"data/in.csv is not a folder"}},
		{name: "path symlinked dir escape", tool: tool, input: `{"pattern":"*","path":"escapedir"}`, wantErr: true, wantNot: []string{"secret"}},
		{name: "pattern through symlinked dir", tool: tool, input: `{"pattern":"escapedir/*"}`, wantErr: true, wantNot: []string{"secret"}},
		{name: "path dotdot", tool: tool, input: `{"pattern":"*","path":".."}`, wantErr: true, wantIn: []string{"outside the workspace"}},
		{name: "pattern dotdot", tool: tool, input: `{"pattern":"../*.txt"}`, wantErr: true, wantIn: []string{"outside the workspace"}},
		{name: "pattern dotdot below path", tool: tool, input: `{"pattern":"../../*","path":"data"}`, wantErr: true, wantIn: []string{"outside the workspace"}},
		{name: "absolute pattern", tool: tool, input: `{"pattern":"/etc/*"}`, wantErr: true, wantIn: []string{"absolute"}},
		{name: "absolute path", tool: tool, input: `{"pattern":"*","path":"/etc"}`, wantErr: true, wantIn: []string{"absolute"}},
		{name: "bad pattern", tool: tool, input: `{"pattern":"**/[a"}`, wantErr: true, wantIn: []string{"invalid pattern"}},
		{name: "empty pattern", tool: tool, input: `{"pattern":""}`, wantErr: true, wantIn: []string{"pattern is empty"}},
		{name: "no pattern", tool: tool, input: `{"path":"data"}`, wantErr: true, wantIn: []string{"missing property 'pattern'"}},
	})
}

func TestWorkspaceGlobNewestFirst(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, age := range map[string]time.Duration{
		"a.txt":            3 * time.Hour,
		"data/in.csv":      time.Hour,
		"data/bin.dat":     2 * time.Hour,
		"data/deep/z.json": time.Hour, // the same time as in.csv: by name
		"other/notes.md":   0,
	} {
		mt := base.Add(-age)
		if err := os.Chtimes(filepath.Join(ws, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.Call(context.Background(), "workspace_glob", json.RawMessage(`{"pattern":"**/*.*","path":"."}`))
	if err != nil || res.IsError {
		t.Fatalf("Call = %+v, %v", res, err)
	}
	want := "other/notes.md\ndata/deep/z.json\ndata/in.csv\ndata/bin.dat\na.txt\ninside.txt\n"
	assert.Equal(t, want, res.Content)
	var structured struct{ Files []string }
	if err := json.Unmarshal(res.Structured, &structured); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, strings.Fields(want), structured.Files, "structured files")
}

func TestWorkspaceGlobSubGrant(t *testing.T) {
	readData := capabilities.Set{Read: []capabilities.Path{mustPath(t, "workspace/data")}}
	r, _ := coreSetup(t, readData)
	const tool = "workspace_glob"
	runCoreCases(t, r, []coreCase{
		{name: "granted folder", tool: tool, input: `{"pattern":"**/*","path":"data"}`,
			wantIn: []string{"data/in.csv\n", "data/deep/z.json\n"}, wantNot: []string{"a.txt", "notes.md", "secret"}},
		{name: "granted through the pattern", tool: tool, input: `{"pattern":"data/**/*.json"}`, wantIn: []string{"data/deep/z.json\n"}},
		{name: "workspace denied", tool: tool, input: `{"pattern":"**/*.csv"}`, wantErr: true,
			wantIn: []string{"read workspace denied", "--allow-read=workspace"}, wantNot: []string{"in.csv"}},
		{name: "other folder denied", tool: tool, input: `{"pattern":"*","path":"other"}`, wantErr: true, wantIn: []string{"read workspace/other denied"}},
		{name: "dotdot out of the grant", tool: tool, input: `{"pattern":"../*.txt","path":"data"}`, wantErr: true, wantIn: []string{"read workspace denied"}},
	})
}

// TestAttackWorkspaceGlobLinkOutOfSubGrant: with read granted on
// workspace/data only, links in data leading out of it are neither
// followed nor listed.
func TestAttackWorkspaceGlobLinkOutOfSubGrant(t *testing.T) {
	ws := attackWorkspace(t,
		map[string]string{"secret.txt": "WORKSPACE SECRET", "other/hidden.txt": "h", "data/in.csv": "x,y"},
		map[string]string{"data/link": "../secret.txt", "data/dir": "..", "data/otherdir": "../other", "data/alias": "in.csv"})
	tools, err := CoreTools(ws, capabilities.Set{Read: []capabilities.Path{mustPath(t, "workspace/data")}})
	if err != nil {
		t.Fatal(err)
	}
	var denied deniedEvents
	ctx := denied.ctx()
	res := coreCall(t, ctx, tools, "workspace_glob", `{"pattern":"**","path":"data"}`)
	if res.IsError || res.Content != "data/alias\ndata/in.csv\n" && res.Content != "data/in.csv\ndata/alias\n" {
		t.Errorf("workspace_glob data = %+v; want data/in.csv and data/alias only", res)
	}
	res = coreCall(t, ctx, tools, "workspace_glob", `{"pattern":"*","path":"data/otherdir"}`)
	if !res.IsError || strings.Contains(res.Content, "hidden") {
		t.Errorf("workspace_glob data/otherdir = %+v; want a refusal", res)
	}
	denied.has(t, "read", "workspace/data/otherdir", "escapes")
}

func TestWorkspaceGlobBounded(t *testing.T) {
	r, ws := coreSetup(t, allGrant())
	many := filepath.Join(ws, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxListEntries + 5 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%04d.log", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	some := filepath.Join(ws, "some")
	if err := os.Mkdir(some, 0o755); err != nil {
		t.Fatal(err)
	}
	mt := time.Now().Add(-time.Hour)
	for i := range maxGlobFiles + 50 {
		p := filepath.Join(some, fmt.Sprintf("f%04d.log", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil { // the same time: by name
			t.Fatal(err)
		}
	}
	call := func(input string) string {
		t.Helper()
		res, err := r.Call(context.Background(), "workspace_glob", json.RawMessage(input))
		if err != nil || res.IsError {
			t.Fatalf("Call %s = %+v, %v", input, res, err)
		}
		return res.Content
	}

	got := call(`{"pattern":"**/*.log"}`)
	if !strings.Contains(got, "[stopped: visited 1000 entries") {
		t.Errorf("content ends %q, want a stop note", got[max(0, len(got)-200):])
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != maxGlobFiles+2 || !strings.HasPrefix(lines[maxGlobFiles], "(") || !strings.HasSuffix(lines[maxGlobFiles], " more not shown)") {
		t.Errorf("%d lines, want %d files, a count of the rest and a stop note", len(lines), maxGlobFiles)
	}

	got = call(`{"pattern":"*.log","path":"some"}`)
	if !strings.HasSuffix(got, "\nsome/f0099.log\n(50 more not shown)\n") {
		t.Errorf("content ends %q, want the first %d by name and 50 more not shown, without a stop note", got[max(0, len(got)-200):], maxGlobFiles)
	}

	// Folders the pattern cannot reach are not walked, so they do not
	// count against the bound.
	got = call(`{"pattern":"*.txt"}`)
	if got != "a.txt\ninside.txt\n" && got != "inside.txt\na.txt\n" {
		t.Errorf("content = %q, want a.txt and inside.txt only", got)
	}
	got = call(`{"pattern":"data/**/*.json"}`)
	if got != "data/deep/z.json\n" {
		t.Errorf("content = %q, want data/deep/z.json", got)
	}
}

func TestIsWorkspaceToolEditGlob(t *testing.T) {
	tools, err := CoreTools(t.TempDir(), allGrant())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Definition().Name)
		if !IsWorkspaceTool(tl.Definition().Name) {
			t.Errorf("IsWorkspaceTool(%q) = false", tl.Definition().Name)
		}
	}
	want := []string{"workspace_read", "workspace_write", "workspace_edit", "workspace_list", "workspace_search", "workspace_glob"}
	assert.Equal(t, want, names, "CoreTools names")
}

// TestAttackWorkspaceGlobFIFO: a FIFO in the workspace neither hangs
// workspace_glob nor is listed as a file.
func TestAttackWorkspaceGlobFIFO(t *testing.T) {
	ws := attackWorkspace(t, map[string]string{"a.txt": "a"}, nil)
	if err := testkit.Mkfifo(filepath.Join(ws, "fifo")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	tools, err := CoreTools(ws, allGrant())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *ToolResult, 1)
	go func() { done <- coreCall(t, context.Background(), tools, "workspace_glob", `{"pattern":"**"}`) }()
	select {
	case res := <-done:
		if res.IsError || res.Content != "a.txt\n" {
			t.Errorf("workspace_glob = %+v; want a.txt only", res)
		}
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("workspace_glob on a workspace holding a FIFO hangs")
	}
}
