package scripts

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	wasm, r, srv, addr := pongPlugin(t)

	call := func(granted capabilities.Set) string {
		t.Helper()
		env := &host.Env{Skill: "ext", Script: "fetch", Granted: granted,
			Services: host.Services{Fetch: fetchFunc(host.NewFetcher(granted, &host.FetchOptions{Skill: "ext", Script: "fetch"}))}}
		out, _, err := r.Sandbox().CallPlugin(context.Background(), wasm, &sandbox.PluginCall{
			Name: "ext:fetch", Export: "skfetch", Input: []byte(`{"url":"` + srv.URL + `/ping"}`), Host: env,
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	p, err := capabilities.ParseHostPattern(addr)
	if err != nil {
		t.Fatal(err)
	}
	out := call(capabilities.Set{Net: []capabilities.HostPattern{p}})
	if !strings.Contains(out, `"ok":true`) || !strings.Contains(out, base64.StdEncoding.EncodeToString([]byte("pong"))) {
		t.Errorf("granted: %s", out)
	}

	out = call(capabilities.Set{})
	if !strings.Contains(out, `"code":"denied"`) || !strings.Contains(out, "--allow-net="+addr) {
		t.Errorf("not granted: %s", out)
	}

	// A wildcard never reaches loopback, even through skillrun's fetcher.
	wildcard, _ := capabilities.ParseHostPattern("*")
	out = call(capabilities.Set{Net: []capabilities.HostPattern{wildcard}})
	if !strings.Contains(out, `"code":"denied"`) || !strings.Contains(out, "loopback") {
		t.Errorf("wildcard: %s", out)
	}
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
	if strings.Contains(out.String(), "pong") {
		t.Fatal("Extism's http_request reached the server")
	}
	if denied, ok := errors.AsType[*capabilities.DeniedError](err); !ok || denied.Kind != "net" || denied.Value != addr {
		t.Fatalf("got %v, want a net denial of %s", err, addr)
	}
	found := false
	for _, e := range events {
		found = found || e.Kind == "net" && e.Value == addr && e.Decision == audit.Deny && e.Skill == "ext" && e.Script == "fetch"
	}
	if !found {
		t.Errorf("no audited net denial of %s by ext:fetch in %+v", addr, events)
	}
}

// grantAll is what -A grants script of s.
func grantAll(t *testing.T, s *skills.Skill, script string) capabilities.Set {
	t.Helper()
	res, err := Resolve(s, script, &capabilities.Resolver{All: true})
	if err != nil {
		t.Fatal(err)
	}
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
