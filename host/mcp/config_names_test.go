package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/host/mcp"
)

// TestParseConfigServerNamespace is issue 11 finding 18: server names may
// not make two bridged tools share a name. "a" with tool "b__c" and "a__b"
// with tool "c" were both mcp__a__b__c; such names are refused, on the
// line of the name, with a name to use instead.
func TestParseConfigServerNamespace(t *testing.T) {
	for _, tc := range []struct{ name, fix string }{
		{"a__b", "a-b"},
		{"a_", "a"},
		{"files__", "files"},
		{"x___y", "x-_y"},
	} {
		config := "{\n  \"mcpServers\": {\n    \"ok\": {\"command\": \"x\"},\n    \"" + tc.name + "\": {\"command\": \"x\"}\n  }\n}\n"
		_, err := mcp.ParseConfig([]byte(config))
		if !assert.Error(t, err, "server name %q accepted", tc.name) {
			continue
		}
		for _, want := range []string{"line 4: ", `invalid server name "` + tc.name + `"`, `"__"`, `e.g. "` + tc.fix + `"`} {
			assert.ErrorContains(t, err, want, "server %q", tc.name)
		}
	}
	// Single underscores and a leading one stay valid: they cannot be
	// mistaken for the separator.
	got, err := mcp.ParseConfig([]byte(`{"mcpServers": {"a_b": {"command": "x"}, "_a": {"command": "x"}, "a-_b": {"command": "x"}}}`))
	assert.NoError(t, err)
	assert.Len(t, got, 3, "want three servers")
	// Every server error has its line, wherever the server is.
	_, err = mcp.ParseConfig([]byte("{\"mcpServers\": {\n\"a\": {\"command\": \"x\"},\n\n\"b\": {\"cwd\": \"/\"}}}"))
	assert.ErrorContains(t, err, `line 4: mcp: config: server "b": unknown key "cwd"`, "want the line of server b")
}
