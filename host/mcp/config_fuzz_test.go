package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillrun/skillrun/host/mcp"
)

// FuzzConfigRoundTrip parses arbitrary MCP configs (they come with plugin
// sets from strangers) and checks that an accepted config means the same
// once written back: encoding the parsed servers as a config and parsing
// that gives the same servers, so no key is dropped or invented on the way
// from the file to the command that is started. FuzzParseConfig
// (config_test.go) checks the accepted values one by one.
func FuzzConfigRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["y"], "env": {"K": "v"}}, "b": {"url": "http://h/mcp"}}}`,
		`{"mcpServers": {"a_b-1": {"command": "/usr/bin/env", "args": [], "env": {}}}}`,
		`{"mcpServers": {"a": {"url": "https://[::1]:8080/mcp?x=1#f"}}}`,
		`{"mcpServers": {"a": {"command": "x\u00e9\ud800", "args": ["\u0001", ""]}}}`,
		`{"mcpServers": {}}`,
		`{"mcpServers": {"A": {"command": "x"}, "a": {"command": "y"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := mcp.ParseConfig(data)
		if err != nil {
			return
		}
		text, err := json.Marshal(map[string]any{"mcpServers": servers})
		if err != nil {
			t.Fatalf("encoding the parsed config: %v", err)
		}
		again, err := mcp.ParseConfig(text)
		if err != nil {
			t.Fatalf("config %q parsed, but its encoded form %s does not: %v", data, text, err)
		}
		if diff := cmp.Diff(servers, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip changed the config %q (-first +second):\n%s", data, diff)
		}
	})
}
