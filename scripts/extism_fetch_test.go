package scripts

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// TestCallPluginSkillrunFetch: a plugin reaches the network through
// skillrun's http_fetch host function, checked against the net grant: the
// loopback server answers when its address is granted, and is denied (with
// the flag named) when it is not.
func TestCallPluginSkillrunFetch(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds the Extism plugin and fetches from a loopback server (2 s); the full suite runs it")
	}
	wasm, r, srv, addr := pongPlugin(t)

	call := func(granted capabilities.Set) string {
		t.Helper()
		env := &host.Env{Skill: "ext", Script: "fetch", Granted: granted,
			Services: host.Services{Fetch: fetchFunc(host.NewFetcher(granted, &host.FetchOptions{Skill: "ext", Script: "fetch"}))}}
		out, _, err := r.Sandbox().CallPlugin(context.Background(), wasm, &sandbox.PluginCall{
			Name: "ext:fetch", Export: "skfetch", Input: []byte(`{"url":"` + srv.URL + `/ping"}`), Host: env,
		})
		require.NoError(t, err)
		return string(out)
	}

	p, err := capabilities.ParseHostPattern(addr)
	require.NoError(t, err)
	out := call(capabilities.Set{Net: []capabilities.HostPattern{p}})
	assert.Contains(t, out, `"ok":true`, "granted")
	assert.Contains(t, out, base64.StdEncoding.EncodeToString([]byte("pong")), "granted")

	out = call(capabilities.Set{})
	assert.Contains(t, out, `"code":"denied"`, "not granted")
	assert.Contains(t, out, "--allow-net="+addr, "not granted")

	// A wildcard never reaches loopback, even through skillrun's fetcher.
	wildcard, _ := capabilities.ParseHostPattern("*")
	out = call(capabilities.Set{Net: []capabilities.HostPattern{wildcard}})
	assert.Contains(t, out, `"code":"denied"`, "wildcard")
	assert.Contains(t, out, "loopback", "wildcard")
}

// TestPluginNetGrantNotExtism: a plugin script granted the server's
// address (net, as -A gives it) still cannot reach it through Extism's
// own http_request, whose client follows redirects unchecked and reaches
// private addresses; the refusal is a net denial, audited with the skill.
func TestPluginNetGrantNotExtism(t *testing.T) {
	wasm, r, srv, addr := pongPlugin(t)
	s := writeSkill(t, "ext", "version = 1\n[capabilities]\nnet = [\""+addr+"\"]\n[scripts.fetch]\nplugin = \"fetch.wasm\"\nexport = \"fetch\"\n",
		map[string][]byte{"fetch.wasm": wasm})
	var out strings.Builder
	var events []audit.Event
	_, err := r.RunScript(context.Background(), s, "fetch", &ScriptRun{
		Services: host.Services{Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) { events = append(events, e) })},
		Input:    []byte(srv.URL + "/ping"),
		Stdout:   &out,
		Granted:  grantAll(t, s, "fetch"),
	})
	require.NotContains(t, out.String(), "pong", "Extism's http_request reached the server")
	denied, ok := errors.AsType[*capabilities.DeniedError](err)
	require.True(t, ok, "got %v, want a net denial of %s", err, addr)
	require.Equal(t, "net", denied.Kind, "the denial's kind")
	require.Equal(t, addr, denied.Value, "the denial's value")
	found := false
	for _, e := range events {
		found = found || e.Kind == "net" && e.Value == addr && e.Decision == audit.Deny && e.Skill == "ext" && e.Script == "fetch"
	}
	assert.True(t, found, "no audited net denial of %s by ext:fetch in %+v", addr, events)
}

// grantAll is what -A grants script of s.
func grantAll(t *testing.T, s *skills.Skill, script string) capabilities.Set {
	t.Helper()
	res, err := Resolve(s, script, &capabilities.Resolver{All: true})
	require.NoError(t, err)
	return res.Granted
}

// pongPlugin returns the test plugin, a Runtime for it, and a loopback
// server at addr that answers "pong".
func pongPlugin(t *testing.T) (wasm []byte, r *Runner, srv *httptest.Server, addr string) {
	t.Helper()
	wasm, r = extPlugin(t), newRunner(t)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("pong"))
	}))
	t.Cleanup(srv.Close)
	return wasm, r, srv, strings.TrimPrefix(srv.URL, "http://")
}
