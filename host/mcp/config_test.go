package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host/mcp"
)

func TestParseConfig(t *testing.T) {
	got, err := mcp.ParseConfig([]byte(`{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"DEBUG": "1"}},
		"web_2": {"url": "https://example.com/mcp"}
	}}`))
	require.NoError(t, err)
	want := map[string]mcp.ServerConfig{
		"files": {Command: "npx", Args: []string{"-y", "server-files", "/tmp"}, Env: map[string]string{"DEBUG": "1"}},
		"web_2": {URL: "https://example.com/mcp"},
	}
	assert.Equal(t, want, got, "ParseConfig")
	got, err = mcp.ParseConfig([]byte(`{"mcpServers": {}}`))
	assert.NoError(t, err, "empty mcpServers")
	assert.Empty(t, got, "empty mcpServers; want no servers")
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         string // in the error
	}{
		{"unknown top key", `{"mcpServers": {}, "globalShortcut": "x"}`, `unknown key "globalShortcut"`},
		{"unknown server key", `{"mcpServers": {"a": {"command": "x", "cwd": "/"}}}`, `server "a": unknown key "cwd"`},
		{"both command and url", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, `server "a": set command or url, not both`},
		{"neither", `{"mcpServers": {"a": {"args": ["x"]}}}`, `server "a": set command or url`},
		{"bad name", `{"mcpServers": {"a.b": {"command": "x"}}}`, `invalid server name "a.b"`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `invalid server name ""`},
		{"long name", `{"mcpServers": {"` + strings.Repeat("a", 65) + `": {"command": "x"}}}`, `invalid server name`},
		{"bad url", `{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}`, `not an http or https URL`},
		{"env with url", `{"mcpServers": {"a": {"url": "http://h/", "env": {"A": "1"}}}}`, `only to a command server`},
		{"bad env name", `{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}`, `invalid environment variable "A=B"`},
		{"wrong type", `{"mcpServers": {"a": {"command": ["x"]}}}`, `server "a"`},
		{"server not an object", `{"mcpServers": {"a": "x"}}`, `server "a": want an object`},
		{"no mcpServers", `{}`, `no "mcpServers"`},
		{"not an object", `[]`, `config`},
		{"null", `null`, `want an object`},
		{"trailing data", `{"mcpServers": {}} {}`, `data after`},
		{"not JSON", `mcpServers:`, `config`},
		{"oversize", `{"mcpServers": {"a": {"command": "x", "args": ["` + strings.Repeat("x", mcp.MaxConfigSize) + `"]}}}`, `more than the limit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcp.ParseConfig([]byte(tc.config))
			require.Error(t, err, "ParseConfig = %v, want an error containing %q", got, tc.want)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["y"], "env": {"K": "v"}}, "b": {"url": "http://h/mcp"}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := mcp.ParseConfig(data)
		if err != nil {
			return
		}
		for name, c := range servers {
			if (c.Command == "") == (c.URL == "") {
				t.Errorf("server %q: accepted with command %q and url %q", name, c.Command, c.URL)
			}
			if name == "" || len(name) > 64 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
				t.Errorf("accepted server name %q", name)
			}
		}
	})
}
