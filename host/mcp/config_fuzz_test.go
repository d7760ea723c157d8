package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

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
		require.NoError(t, err, "encoding the parsed config")
		again, err := mcp.ParseConfig(text)
		require.NoError(t, err, "config %q parsed, but its encoded form %s does not", data, text)
		require.Equal(t, nilEmpty(servers), nilEmpty(again), "round trip changed the config %q", data)
	})
}

// nilEmpty returns servers with empty maps and lists nil: for the round
// trip, none and an empty one mean the same.
func nilEmpty(servers map[string]mcp.ServerConfig) map[string]mcp.ServerConfig {
	if len(servers) == 0 {
		return nil
	}
	out := make(map[string]mcp.ServerConfig, len(servers))
	for name, c := range servers {
		if len(c.Args) == 0 {
			c.Args = nil
		}
		if len(c.Env) == 0 {
			c.Env = nil
		}
		out[name] = c
	}
	return out
}
