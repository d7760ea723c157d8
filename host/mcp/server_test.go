package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// srvTestSkill loads a skill called name from memory, with a reference, a
// script and a binary file.
func srvTestSkill(t testing.TB, name string) *skills.Skill {
	t.Helper()
	fsys := fstest.MapFS{
		name + "/SKILL.md":               {Data: []byte("---\nname: " + name + "\ndescription: Test skill " + name + ".\n---\n# " + name + "\n\nRead references/guide.md.\n")},
		name + "/references/guide.md":    {Data: []byte("# Guide\n")},
		name + "/scripts/run.py":         {Data: []byte("print('hi')\n")},
		name + "/assets/logo.png":        {Data: []byte{0x89, 'P', 'N', 'G', 0xff, 0xfe}},
		name + "/references/notes.txt":   {Data: []byte("notes\n")},
		name + "/references/invalid.txt": {Data: []byte{0xff, 0xfe}},
	}
	s, err := skills.LoadFS(fsys, name, nil)
	require.NoError(t, err)
	return s
}

// srvFakeTool is a host.Tool: echo returns its text, fail returns a host
// error, panic panics.
type srvFakeTool struct{ name string }

func (f srvFakeTool) Definition() host.ToolDef {
	return host.ToolDef{
		Name:        f.name,
		Description: "A fake tool.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Source:      host.SourceCore,
	}
}

func (f srvFakeTool) Call(_ context.Context, input json.RawMessage) (*host.ToolResult, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	switch f.name {
	case "fail":
		return nil, errors.New("disk on fire")
	case "panic":
		panic("oops")
	case "bad":
		return host.ErrorResult("bad: " + in.Text), nil
	}
	return &host.ToolResult{Content: "echo: " + in.Text}, nil
}

func srvTestRegistry(t testing.TB) *host.Registry {
	t.Helper()
	reg := host.NewRegistry()
	for _, n := range []string{"echo", "fail", "panic", "bad"} {
		require.NoError(t, reg.Add(srvFakeTool{n}))
	}
	return reg
}

// srvConnect connects an SDK client to s over in-memory transports.
func srvConnect(t *testing.T, s *Server, o *mcpsdk.ClientOptions) *mcpsdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := s.srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, o)
	cs, err := c.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func srvToolNames(t *testing.T, cs *mcpsdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func srvText(t *testing.T, res *mcpsdk.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcpsdk.TextContent)
		require.True(t, ok, "content %T, want text", c)
		b.WriteString(tc.Text)
	}
	return b.String()
}

func srvCall(t *testing.T, cs *mcpsdk.ClientSession, name string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "CallTool(%s)", name)
	return res
}

func TestServerTools(t *testing.T) {
	s := NewServer([]*skills.Skill{srvTestSkill(t, "demo"), srvTestSkill(t, "other")}, &ServerOptions{Tools: srvTestRegistry(t)})
	cs := srvConnect(t, s, nil)

	want := []string{"bad", "echo", "fail", "panic", "skill_activate", "skill_read", "skill_search", "skills_catalog"}
	assert.Equal(t, want, srvToolNames(t, cs), "tools")

	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range list.Tools {
		if tl.Name != "echo" {
			continue
		}
		got, _ := json.Marshal(tl.InputSchema)
		assert.Contains(t, string(got), `"required":["text"]`, "echo input schema, want the registry's")
	}

	tests := []struct {
		name    string
		tool    string
		args    any
		isError bool
		want    string // a substring of the text
	}{
		{"catalog", "skills_catalog", nil, false, "<name>\ndemo\n</name>"},
		{"catalog with args", "skills_catalog", map[string]any{"x": 1}, true, `unknown argument "x"`},
		{"catalog not an object", "skills_catalog", []int{1}, true, "arguments must be a JSON object"},
		{"activate", "skill_activate", map[string]any{"name": "demo"}, false, "Read references/guide.md.\n\nFiles of skill demo"},
		{"activate lists files", "skill_activate", map[string]any{"name": "demo"}, false, "- references/guide.md\n"},
		{"activate missing name", "skill_activate", map[string]any{}, true, `missing argument "name"`},
		{"activate bad name type", "skill_activate", map[string]any{"name": 3}, true, `argument "name" must be a non-empty string`},
		{"activate unknown arg", "skill_activate", map[string]any{"name": "demo", "x": 1}, true, `unknown argument "x"`},
		{"activate unknown skill", "skill_activate", map[string]any{"name": "nope"}, true, `argument "name": no skill is named "nope"`},
		{"read", "skill_read", map[string]any{"name": "other", "path": "references/guide.md"}, false, "# Guide\n"},
		{"read missing path", "skill_read", map[string]any{"name": "demo"}, true, `missing argument "path"`},
		{"read dotdot", "skill_read", map[string]any{"name": "demo", "path": "../other/SKILL.md"}, true, "outside"},
		{"read absolute", "skill_read", map[string]any{"name": "demo", "path": "/etc/passwd"}, true, "absolute"},
		{"read missing file", "skill_read", map[string]any{"name": "demo", "path": "nope.md"}, true, "nope.md"},
		{"read binary", "skill_read", map[string]any{"name": "demo", "path": "assets/logo.png"}, true, "binary"},
		{"registry", "echo", map[string]any{"text": "hi"}, false, "echo: hi"},
		{"registry bad args", "echo", map[string]any{"text": 3}, true, "invalid input"},
		{"registry missing args", "echo", nil, true, "invalid input"},
		{"registry tool error result", "bad", map[string]any{"text": "x"}, true, "bad: x"},
		{"registry host error", "fail", map[string]any{"text": "x"}, true, "internal error: host: tool \"fail\": disk on fire"},
		{"registry panic", "panic", map[string]any{"text": "x"}, true, "internal error: tool panic panicked: oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := srvCall(t, cs, tt.tool, tt.args)
			got := srvText(t, res)
			assert.Equal(t, tt.isError, res.IsError, "IsError; text:\n%s", got)
			assert.Contains(t, got, tt.want, "text")
		})
	}

	_, err = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "nope"})
	assert.Error(t, err, "calling an unknown tool succeeded, want a protocol error")
}

func TestServerResources(t *testing.T) {
	s := NewServer([]*skills.Skill{srvTestSkill(t, "demo")}, nil)
	cs := srvConnect(t, s, nil)
	ctx := context.Background()

	res, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.URI] = r.MIMEType
	}
	want := map[string]string{
		"skill://demo/SKILL.md":               "text/markdown",
		"skill://demo/assets/logo.png":        "application/octet-stream",
		"skill://demo/references/guide.md":    "text/markdown",
		"skill://demo/references/invalid.txt": "text/plain",
		"skill://demo/references/notes.txt":   "text/plain",
		"skill://demo/scripts/run.py":         "text/plain",
	}
	assert.Equal(t, want, got, "resources")

	tests := []struct {
		uri      string
		mime     string
		text     string
		blob     string
		wantFail bool
	}{
		{uri: "skill://demo/references/guide.md", mime: "text/markdown", text: "# Guide\n"},
		{uri: "skill://demo/scripts/run.py", mime: "text/plain", text: "print('hi')\n"},
		{uri: "skill://demo/assets/logo.png", mime: "application/octet-stream", blob: "\x89PNG\xff\xfe"},
		{uri: "skill://demo/references/invalid.txt", mime: "application/octet-stream", blob: "\xff\xfe"},
		{uri: "skill://demo/../demo/SKILL.md", wantFail: true},
		{uri: "skill://demo/references/../../x", wantFail: true},
		{uri: "skill://nope/SKILL.md", wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			r, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: tt.uri})
			if tt.wantFail {
				require.Error(t, err, "ReadResource succeeded: %+v", r)
				return
			}
			require.NoError(t, err)
			c := r.Contents[0]
			assert.Equal(t, tt.mime, c.MIMEType, "MIME type")
			assert.Equal(t, tt.text, c.Text, "text")
			assert.Equal(t, tt.blob, string(c.Blob), "blob")
		})
	}
}

func TestSetSkillsNotifies(t *testing.T) {
	reg := srvTestRegistry(t)
	s := NewServer([]*skills.Skill{srvTestSkill(t, "demo")}, &ServerOptions{Tools: reg})
	toolsChanged := make(chan struct{}, 10)
	resChanged := make(chan struct{}, 10)
	cs := srvConnect(t, s, &mcpsdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcpsdk.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcpsdk.ResourceListChangedRequest) { resChanged <- struct{}{} },
	})
	ctx := context.Background()

	reg.Remove("panic")
	s.SetSkills([]*skills.Skill{srvTestSkill(t, "fresh")})
	for name, ch := range map[string]chan struct{}{"tools": toolsChanged, "resources": resChanged} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no list_changed notification", "%s/list_changed", name)
		}
	}
	assert.NotContains(t, srvToolNames(t, cs), "panic", "tool removed from the registry is still served")
	res, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Resources, "no resources served after SetSkills; want the new skill's files")
	for _, r := range res.Resources {
		assert.True(t, strings.HasPrefix(r.URI, "skill://fresh/"), "resource %s served after SetSkills without its skill", r.URI)
	}
	got := srvText(t, srvCall(t, cs, "skills_catalog", nil))
	assert.Contains(t, got, "fresh", "catalog after SetSkills")
	assert.NotContains(t, got, "demo", "catalog after SetSkills")
	assert.True(t, srvCall(t, cs, "skill_activate", map[string]any{"name": "demo"}).IsError, "activating a removed skill succeeded")
}

func TestHandler(t *testing.T) {
	s := NewServer([]*skills.Skill{srvTestSkill(t, "demo")}, nil)
	ts := httptest.NewServer(s.Handler(nil))
	defer ts.Close()

	ctx := context.Background()
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Contains(t, srvToolNames(t, cs), "skills_catalog", "tools over HTTP")

	post := func(t *testing.T, host, origin string) int {
		t.Helper()
		req, err := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		require.NoError(t, err)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	for _, tt := range []struct{ host, origin string }{
		{"evil.example", ""},
		{"evil.example:80", ""},
		{"localhost.evil.example", ""},
		{"localhost", "http://evil.example"},
		{"127.0.0.1", "null"},
	} {
		assert.Equal(t, http.StatusForbidden, post(t, tt.host, tt.origin), "Host %q Origin %q: status", tt.host, tt.origin)
	}
	for _, tt := range []struct{ host, origin string }{
		{"localhost:1234", ""},
		{"127.0.0.1", "http://localhost:3000"},
		{"[::1]:8080", ""},
	} {
		assert.NotEqual(t, http.StatusForbidden, post(t, tt.host, tt.origin), "Host %q Origin %q: status 403, want it allowed", tt.host, tt.origin)
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"localhost", "[::1]", "example.com:8080", "::2"}
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LOCALHOST:99", true},
		{"[::1]:1", true},
		{"[::1]", true},
		{"[::2]:5", true},
		{"example.com:8080", true},
		{"example.com", false},
		{"example.com:8081", false},
		{"", false},
		{"127.0.0.1", false},
	} {
		assert.Equal(t, tt.want, hostAllowed(allowed, tt.host), "hostAllowed(%q)", tt.host)
	}
}

func TestServeStdio(t *testing.T) {
	s := NewServer([]*skills.Skill{srvTestSkill(t, "demo")}, nil)
	cr, sw := io.Pipe() // server to client
	sr, cw := io.Pipe() // client to server
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()

	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &mcpsdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(t, err)
	assert.Equal(t, "# Guide\n", srvText(t, srvCall(t, cs, "skill_read", map[string]any{"name": "demo", "path": "references/guide.md"})), "skill_read over stdio")
	cs.Close()
	select {
	case err := <-done:
		assert.NoError(t, err, "ServeStdio after the client closed")
	case <-time.After(10 * time.Second):
		require.FailNow(t, "ServeStdio did not return after the client closed")
	}
}

func TestServeStdioCancel(t *testing.T) {
	s := NewServer(nil, nil)
	sr, _ := io.Pipe()
	_, sw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled, "ServeStdio after cancel")
	case <-time.After(10 * time.Second):
		require.FailNow(t, "ServeStdio did not return after cancel")
	}
}

// TestSetSkillsConcurrent hammers SetSkills while a client calls the skill
// tools, for the race detector.
func TestSetSkillsConcurrent(t *testing.T) {
	a, b := srvTestSkill(t, "alpha"), srvTestSkill(t, "beta")
	s := NewServer([]*skills.Skill{a}, &ServerOptions{Tools: srvTestRegistry(t)})
	cs := srvConnect(t, s, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			if i%2 == 0 {
				s.SetSkills([]*skills.Skill{a, b})
			} else {
				s.SetSkills([]*skills.Skill{b})
			}
		}
	}()
	for range 50 {
		srvCall(t, cs, "skills_catalog", nil)
		srvCall(t, cs, "skill_read", map[string]any{"name": "beta", "path": "SKILL.md"})
		srvCall(t, cs, "echo", map[string]any{"text": "x"})
	}
	<-done
}
