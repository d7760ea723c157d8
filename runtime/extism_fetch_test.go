package runtime

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

// TestCallPluginSkillrunFetch: a plugin reaches the network through
// skillrun's http_fetch host function, checked against the net grant: the
// loopback server answers when its address is granted, and is denied (with
// the flag named) when it is not.
func TestCallPluginSkillrunFetch(t *testing.T) {
	wasm := extPlugin(t)
	r := newExtRuntime(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	call := func(granted capabilities.Set) string {
		t.Helper()
		env := &host.Env{Skill: "ext", Script: "fetch", Granted: granted,
			Services: host.Services{Fetch: fetchFunc(host.NewFetcher(granted, &host.FetchOptions{Skill: "ext", Script: "fetch"}))}}
		out, _, err := r.CallPlugin(context.Background(), wasm, &PluginCall{
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
